// llm.c idioms: `typedef float floatX`, a Packed128 struct loaded and stored
// through `reinterpret_cast<int4 *>` in helpers (`load128`, `store128`,
// `x128::size` as the step), and a warp-per-row layernorm with shuffles,
// `__restrict__` and cache-hint intrinsics.  Modes and extents are right;
// the packed index is a multiple of 4 the analysis does not track, so its
// extent is the upper bound N + 3.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

typedef float floatX;
#define WARP_SIZE 32

template <class ElementType>
struct alignas(16) Packed128 {
  static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
  __device__ ElementType &operator[](int index) { return reinterpret_cast<ElementType *>(&payload)[index]; }
  int4 payload;
};
typedef Packed128<floatX> x128;

__device__ x128 load128(const floatX *address) { return x128{*reinterpret_cast<const int4 *>(address)}; }
__device__ void store128(floatX *target, x128 value) { *reinterpret_cast<int4 *>(target) = value.payload; }

__global__ void residual_forward_kernel(floatX *out, const floatX *inp1, const floatX *inp2, int N) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
  if (idx >= N) { return; }
  x128 packed_out;
  x128 packed_inp1 = load128(inp1 + idx);
  x128 packed_inp2 = load128(inp2 + idx);
  for (int k = 0; k < x128::size; k++) packed_out[k] = packed_inp1[k] + packed_inp2[k];
  store128(out + idx, packed_out);
}
// CHECK-LABEL: kernel residual_forward_kernel
// CHECK-NEXT: param out: mode=write extent=N + 3 elem=floatX bytes=4 dense=no
// CHECK-NEXT: param inp1: mode=read extent=N + 3
// CHECK-NEXT: param inp2: mode=read extent=N + 3

__global__ void layernorm_forward_kernel(floatX *__restrict__ out, float *__restrict__ mean,
                                         float *__restrict__ rstd, const floatX *__restrict__ inp,
                                         const floatX *__restrict__ weight,
                                         const floatX *__restrict__ bias, int N, int C) {
  int lane_id = threadIdx.x % WARP_SIZE;
  int warp_id = threadIdx.x / WARP_SIZE;
  int num_warps = blockDim.x / WARP_SIZE;
  int idx = blockIdx.x * num_warps + warp_id;
  if (idx >= N) { return; }
  const floatX *x = inp + idx * C;
  float sum = 0.0f;
  for (int i = lane_id; i < C; i += WARP_SIZE) sum += (float)x[i];
  sum += __shfl_xor_sync(0xffffffff, sum, 16);
  float m = sum / C;
  if (lane_id == 0 && mean != nullptr) mean[idx] = m;
  float s = rsqrtf(m);
  if (lane_id == 0 && rstd != nullptr) rstd[idx] = s;
  floatX *o = out + idx * C;
  for (int c = lane_id; c < C; c += WARP_SIZE) {
    float n = s * ((float)__ldcs(x + c) - m);
    __stcs(o + c, (floatX)(n * (float)weight[c] + (float)bias[c]));
  }
}
// CHECK-LABEL: kernel layernorm_forward_kernel
// CHECK-NEXT: param out: mode=write extent=N*C elem=floatX bytes=4 dense=no
// CHECK-NEXT: param mean: mode=write extent=N elem=float bytes=4 dense=no
// CHECK-NEXT: param rstd: mode=write extent=N elem=float bytes=4 dense=no
// CHECK-NEXT: param inp: mode=read extent=N*C
// CHECK-NEXT: param weight: mode=read extent=C
// CHECK-NEXT: param bias: mode=read extent=C
