// A bf16 autoencoder trainer: cublasGemmEx on bf16 operands (fp32
// compute, beta = &zero), activations and parameters carved from one arena
// through a C table of {__nv_bfloat16 **slot, size_t count}, an in-place
// gelu, grid-stride bf16 AdamW kernels over float moments, a `while` step
// loop, and a checkpoint copy every 5 steps.  What a user relies on: every
// access resolves into the carved regions, the checkpoint is periodic,
// both AdamW launches are split ops, and at half the peak the replay runs
// them in pieces with every checksum equal (rewrite compiling:
// nvcc-compiles-programs.test).
// RUN: %tidal graph %s 2>&1 | FileCheck --check-prefix=GRAPH %s
// RUN: %tidal replay %s --budget 50% 2>&1 | FileCheck --check-prefix=REPLAY %s
// GRAPH: summary: {{.*}}; [[N:[0-9]+]] of [[N]] accesses resolved
// GRAPH: periodic (not every iteration): {{.*}}if (step % 5 == 4)
// GRAPH: upd adamw_bf16 {{.*}} split over (int)np
// GRAPH: upd adamw_bf16 {{.*}} split over (int)np
// GRAPH: T1 net.x {{.*}} in arena at +
// GRAPH: unresolved (0):
// REPLAY: split: {{[0-9]+}} ops per iteration may run in pieces; 2 did
// REPLAY: adamw_bf16 runs split
// REPLAY: checksums match
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>

#define B 128
#define D 2048
#define MAX_STEPS 12

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "cuda %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
#define BLAS_OK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  fprintf(stderr, "cublas %d at %d\n", (int)s_, __LINE__); exit(1); } } while (0)

typedef struct { __nv_bfloat16 **slot; size_t count; } Carve;

struct Net {
  __nv_bfloat16 *w1, *w2, *g1, *g2;
  float *m1, *v1, *m2, *v2;
  __nv_bfloat16 *x, *h, *y, *dy, *dh;
};

__global__ void gelu_fwd(__nv_bfloat16 *__restrict__ out, const __nv_bfloat16 *__restrict__ in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = __bfloat162float(in[i]);
    out[i] = __float2bfloat16(v / (1.0f + __expf(-1.702f * v)));
  }
}
__global__ void diff(__nv_bfloat16 *__restrict__ dy, const __nv_bfloat16 *__restrict__ y,
                     const __nv_bfloat16 *__restrict__ x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    dy[i] = __float2bfloat16(__bfloat162float(y[i]) - __bfloat162float(x[i]));
}
__global__ void adamw_bf16(__nv_bfloat16 *__restrict__ p, const __nv_bfloat16 *__restrict__ g,
                           float *__restrict__ m, float *__restrict__ v, int n, float lr, int t) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float gi = __bfloat162float(g[i]);
    float mi = m[i] = 0.9f * m[i] + 0.1f * gi;
    float vi = v[i] = 0.999f * v[i] + 0.001f * gi * gi;
    float w = __bfloat162float(p[i]);
    w -= lr * (mi / (1.0f - powf(0.9f, t)) / (sqrtf(vi / (1.0f - powf(0.999f, t))) + 1e-8f) + 0.01f * w);
    p[i] = __float2bfloat16(w);
  }
}
__global__ void init_bf16(__nv_bfloat16 *p, int n, float s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    p[i] = __float2bfloat16(s * (float)((i * 37) % 101 - 50) / 50.0f);
}

static void gemm(cublasHandle_t hb, const __nv_bfloat16 *A, const __nv_bfloat16 *Bm, __nv_bfloat16 *C,
                 int m, int n, int k, cublasOperation_t ta, cublasOperation_t tb) {
  const float one = 1.0f, zero = 0.0f;
  BLAS_OK(cublasGemmEx(hb, ta, tb, m, n, k, &one, A, CUDA_R_16BF, ta == CUBLAS_OP_N ? m : k, Bm,
                       CUDA_R_16BF, tb == CUBLAS_OP_N ? k : n, &zero, C, CUDA_R_16BF, m,
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

int main() {
  Net net;
  cublasHandle_t hb;
  BLAS_OK(cublasCreate(&hb));
  const size_t np = (size_t)D * D;
  Carve table[] = {{&net.w1, np}, {&net.w2, np}, {&net.g1, np}, {&net.g2, np},
                   {&net.x, (size_t)B * D}, {&net.h, (size_t)B * D}, {&net.y, (size_t)B * D},
                   {&net.dy, (size_t)B * D}, {&net.dh, (size_t)B * D}};
  const int nt = sizeof table / sizeof table[0];
  size_t total = 0;
  for (int i = 0; i < nt; i++) total += table[i].count;
  __nv_bfloat16 *arena;
  CUDA_OK(cudaMalloc(&arena, total * sizeof(__nv_bfloat16)));
  __nv_bfloat16 *it = arena;
  for (int i = 0; i < nt; i++) {
    *table[i].slot = it;
    it += table[i].count;
  }
  CUDA_OK(cudaMalloc(&net.m1, np * sizeof(float)));
  CUDA_OK(cudaMalloc(&net.v1, np * sizeof(float)));
  CUDA_OK(cudaMalloc(&net.m2, np * sizeof(float)));
  CUDA_OK(cudaMalloc(&net.v2, np * sizeof(float)));
  CUDA_OK(cudaMemset(net.m1, 0, np * sizeof(float)));
  CUDA_OK(cudaMemset(net.v1, 0, np * sizeof(float)));
  CUDA_OK(cudaMemset(net.m2, 0, np * sizeof(float)));
  CUDA_OK(cudaMemset(net.v2, 0, np * sizeof(float)));
  init_bf16<<<256, 256>>>(net.w1, (int)np, 0.02f);
  init_bf16<<<256, 256>>>(net.w2, (int)np, 0.02f);
  init_bf16<<<64, 256>>>(net.x, B * D, 1.0f);
  __nv_bfloat16 *ckpt = (__nv_bfloat16 *)malloc(np * sizeof(__nv_bfloat16));

  int step = 0;
  while (step < MAX_STEPS) {
    // autoencoder: y = W2 gelu(W1 x), loss |y - x|^2
    gemm(hb, net.w1, net.x, net.h, D, B, D, CUBLAS_OP_N, CUBLAS_OP_N);
    gelu_fwd<<<64, 256>>>(net.h, net.h, B * D);
    gemm(hb, net.w2, net.h, net.y, D, B, D, CUBLAS_OP_N, CUBLAS_OP_N);
    diff<<<64, 256>>>(net.dy, net.y, net.x, B * D);
    gemm(hb, net.dy, net.h, net.g2, D, D, B, CUBLAS_OP_N, CUBLAS_OP_T);
    gemm(hb, net.w2, net.dy, net.dh, D, B, D, CUBLAS_OP_T, CUBLAS_OP_N);
    gemm(hb, net.dh, net.x, net.g1, D, D, B, CUBLAS_OP_N, CUBLAS_OP_T);
    adamw_bf16<<<512, 256>>>(net.w1, net.g1, net.m1, net.v1, (int)np, 1e-3f, step + 1);
    adamw_bf16<<<512, 256>>>(net.w2, net.g2, net.m2, net.v2, (int)np, 1e-3f, step + 1);
    if (step % 5 == 4) {
      CUDA_OK(cudaMemcpy(ckpt, net.w1, np * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
      printf("checkpoint at step %d: w1[0] = %f\n", step, __bfloat162float(ckpt[0]));
    }
    step++;
  }
  CUDA_OK(cudaDeviceSynchronize());
  free(ckpt);
  cublasDestroy(hb);
  return 0;
}
