/* Minimal CUDA runtime stub for tidal's fast lit tests, in the style of
 * clang's test/CodeGenCUDA/Inputs/cuda.h.  Parse with
 *   -nocudainc -nocudalib -I test/Inputs -include cuda.h   (lit: %stubflags)
 * Declarations only, with the real toolkit's signatures and enum values
 * (CUDA 13), so that what a test proves about call sites also holds for the
 * real headers.  The builtin index variables come from clang's own
 * __clang_cuda_builtin_vars.h, exactly as with the real headers, so the
 * kernel analysis sees the same AST either way. */
#ifndef TIDAL_STUB_CUDA_H
#define TIDAL_STUB_CUDA_H

#include <stddef.h>
#include <stdint.h>

#define __constant__ __attribute__((constant))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
/* clang 15+ takes __noinline__ as a keyword in CUDA mode; a macro would
 * break libstdc++'s own __attribute__((__noinline__)) (<memory>). */
#if !defined(__clang__) || __clang_major__ < 15
#define __noinline__ __attribute__((noinline))
#endif
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict

#ifdef __CUDA__
#include <__clang_cuda_builtin_vars.h>
#endif

/* C host files of a program include the runtime header too (its C API,
 * as the real one's): what is C++ is behind __cplusplus. */
#ifdef __cplusplus
#define TIDAL_STUB_DV(v) = v
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
#else
#define TIDAL_STUB_DV(v)
typedef struct dim3 { unsigned x, y, z; } dim3;
typedef struct float2 float2;
typedef struct float4 float4;
typedef struct int2 int2;
typedef struct int4 int4;
typedef struct uint2 uint2;
typedef struct uint4 uint4;
typedef struct __half __half;
typedef struct __nv_bfloat16 __nv_bfloat16;
#endif

struct float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct int2 { int x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct __half { unsigned short x; };
struct __nv_bfloat16 { unsigned short x; };
typedef __half half;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2
} cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

typedef enum cudaDataType_t {
  CUDA_R_16F = 2,
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_8I = 3,
  CUDA_R_32I = 10,
  CUDA_R_16BF = 14
} cudaDataType;

#ifdef __cplusplus
extern "C" {
#endif
/* The launch configuration hooks: <<<g, b, s, st>>> lowers to a call of
 * __cudaPushCallConfiguration (CUDA >= 9.2) or cudaConfigureCall. */
int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedSize TIDAL_STUB_DV(0),
                      cudaStream_t stream TIDAL_STUB_DV(0));
int __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize, size_t sharedSize TIDAL_STUB_DV(0),
                                cudaStream_t stream TIDAL_STUB_DV(0));

cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags TIDAL_STUB_DV(1));
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream TIDAL_STUB_DV(0));
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream TIDAL_STUB_DV(0));
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t cudaThreadSynchronize(void);
#define cudaStreamNonBlocking 0x01
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream TIDAL_STUB_DV(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaGetLastError(void);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
/* the fields tidal models (pass/graph/interp_device.c), at the real struct's names */
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize, maxThreadsPerBlock, major, minor, multiProcessorCount;
  int maxThreadsPerMultiProcessor, l2CacheSize;
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39
};
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
const char *cudaGetErrorString(cudaError_t error);
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus

/* The runtime header's typed convenience overloads. */
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T **devPtr, size_t size,
                                                       cudaStream_t stream) {
  return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size) {
  return ::cudaMallocHost((void **)(void *)ptr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                        void **args, size_t sharedMem = 0,
                                                        cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}

/* Device-side synchronisation, atomics and intrinsics. */
__device__ void __syncthreads(void);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ int atomicAdd(int *address, int val);
__device__ unsigned int atomicAdd(unsigned int *address, unsigned int val);
__device__ unsigned long long atomicAdd(unsigned long long *address, unsigned long long val);
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ int atomicSub(int *address, int val);
__device__ int atomicExch(int *address, int val);
__device__ float atomicExch(float *address, float val);
__device__ int atomicMax(int *address, int val);
__device__ int atomicMin(int *address, int val);
__device__ int atomicCAS(int *address, int compare, int val);
__device__ unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val);
__device__ unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare,
                                        unsigned long long val);
__device__ float __shfl_xor_sync(unsigned mask, float var, int laneMask, int width = 32);
__device__ float __shfl_down_sync(unsigned mask, float var, unsigned delta, int width = 32);
__device__ int __float_as_int(float x);
__device__ float __int_as_float(int x);

__device__ float __ldg(const float *ptr);
__device__ float4 __ldg(const float4 *ptr);
__device__ int __ldg(const int *ptr);
__device__ float __ldcs(const float *ptr);
__device__ float4 __ldcs(const float4 *ptr);
__device__ int __ldcs(const int *ptr);
__device__ float __ldcg(const float *ptr);
__device__ float4 __ldcg(const float4 *ptr);
__device__ float __ldca(const float *ptr);
__device__ float __ldlu(const float *ptr);
__device__ float __ldcv(const float *ptr);
__device__ void __stcs(float *ptr, float value);
__device__ void __stcs(float4 *ptr, float4 value);
__device__ void __stcs(int *ptr, int value);
__device__ void __stcg(float *ptr, float value);
__device__ void __stcg(float4 *ptr, float4 value);
__device__ void __stwb(float *ptr, float value);
__device__ void __stwt(float *ptr, float value);

/* Math: host and device, as the real math headers provide. */
__host__ __device__ float sqrtf(float);
__host__ __device__ float rsqrtf(float);
__host__ __device__ float expf(float);
__host__ __device__ float logf(float);
__host__ __device__ float tanhf(float);
__host__ __device__ float powf(float, float);
__host__ __device__ float fabsf(float);
__host__ __device__ float fmaxf(float, float);
__host__ __device__ float fminf(float, float);
__host__ __device__ float coshf(float);
__device__ float __expf(float);
__device__ float __fdividef(float, float);
__device__ int min(int, int);
__device__ int max(int, int);
__device__ float min(float, float);
__device__ float max(float, float);
#endif /* __cplusplus */

#endif
