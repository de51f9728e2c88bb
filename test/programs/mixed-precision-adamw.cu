// A mixed-precision trainer as a user would write it (real toolkit
// headers): __half weights and activations, float master weights and AdamW
// moments, dynamic loss scaling with a device-side overflow flag read back
// each step (a skipped step `continue`s), error-check macros on every call.
// What a user relies on: the loop is found, every access resolves, the
// AdamW launch reading half grads and writing float state and half params
// is an elementwise (split) op, and at half the peak the replay runs it in
// pieces with every checksum equal (the rewrite compiling with nvcc:
// nvcc-compiles-programs.test).
// RUN: %tidal graph %s 2>&1 | FileCheck --check-prefix=GRAPH %s
// RUN: %tidal kernels %s | FileCheck --check-prefix=KERNELS %s
// RUN: %tidal replay %s --budget 50% 2>&1 | FileCheck --check-prefix=REPLAY %s
// GRAPH: summary: {{.*}}managed [[A:[0-9]+]] of [[A]] allocations{{.*}}; [[N:[0-9]+]] of [[N]] accesses resolved
// GRAPH: training loop: {{.*}}mixed-precision-adamw.cu:[[@LINE+148]] {{.*}}forward-then-backward
// GRAPH: upd adamw_mixed {{.*}} split over n1
// GRAPH: unresolved (0):
// KERNELS-LABEL: kernel check_overflow
// KERNELS: split: no
// KERNELS-LABEL: kernel adamw_mixed
// KERNELS: split: count=n{{$}}
// REPLAY: adamw_mixed runs split: {{[0-9]+}} elements
// REPLAY: checksums match
// REPLAY: replay: peak [[P:[0-9.]+]] MiB -> {{[0-9.]+}} MiB, budget {{[0-9.]+}} MiB met, checksums match
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define BATCH 64
#define DIN 2048
#define DHID 2048
#define DOUT 16
#define STEPS 20

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void init_master(float *w, int n, unsigned seed, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned h = (unsigned)i * 2654435761u + seed;
    h ^= h >> 13;
    w[i] = ((h & 0xffff) / 65535.0f - 0.5f) * scale;
  }
}

__global__ void to_half(__half *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = __float2half(src[i]);
}

// y[b, o] = sum_k x[b, k] * w[k, o] (+ relu), accumulated in float.
__global__ void matmul_fwd(__half *y, const __half *x, const __half *w, int B, int K, int O, int relu) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (o >= O || b >= B) return;
  float s = 0.0f;
  for (int k = 0; k < K; k++) s += __half2float(x[b * K + k]) * __half2float(w[k * O + o]);
  if (relu && s < 0.0f) s = 0.0f;
  y[b * O + o] = __float2half(s);
}

// dw[k, o] = sum_b x[b, k] * dy[b, o]
__global__ void matmul_bwd_w(__half *dw, const __half *x, const __half *dy, int B, int K, int O) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int k = blockIdx.y;
  if (o >= O || k >= K) return;
  float s = 0.0f;
  for (int b = 0; b < B; b++) s += __half2float(x[b * K + k]) * __half2float(dy[b * O + o]);
  dw[k * O + o] = __float2half(s);
}

// dx[b, k] = sum_o dy[b, o] * w[k, o], masked by relu(h[b, k]) > 0
__global__ void matmul_bwd_x(__half *dx, const __half *dy, const __half *w, const __half *h, int B, int K, int O) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (k >= K || b >= B) return;
  float s = 0.0f;
  for (int o = 0; o < O; o++) s += __half2float(dy[b * O + o]) * __half2float(w[k * O + o]);
  if (__half2float(h[b * K + k]) <= 0.0f) s = 0.0f;
  dx[b * K + k] = __float2half(s);
}

// squared error against the target, gradient scaled by the loss scale
__global__ void mse_grad(__half *dy, float *loss, const __half *y, const float *t, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float d = __half2float(y[i]) - t[i];
    dy[i] = __float2half(2.0f * d * scale / n);
    atomicAdd(loss, d * d / n);
  }
}

__global__ void check_overflow(int *flag, const __half *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(g[i]);
    if (isinf(v) || isnan(v)) *flag = 1;
  }
}

// AdamW on float master weights from half gradients; writes the half copy.
__global__ void adamw_mixed(__half *p16, float *master, const __half *g16, float *m, float *v,
                            int n, float lr, float inv_scale, float b1c, float b2c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float g = __half2float(g16[i]) * inv_scale;
  float mi = 0.9f * m[i] + 0.1f * g;
  float vi = 0.999f * v[i] + 0.001f * g * g;
  m[i] = mi;
  v[i] = vi;
  float w = master[i];
  w -= lr * ((mi / b1c) / (sqrtf(vi / b2c) + 1e-8f) + 0.01f * w);
  master[i] = w;
  p16[i] = __float2half(w);
}

static int blocks(int n) { return (n + 255) / 256; }

int main(void) {
  const int n1 = DIN * DHID, n2 = DHID * DOUT;
  __half *x, *h, *y, *dy, *dh, *w1, *w2, *g1, *g2;
  float *t, *mw1, *mw2, *m1, *v1, *m2, *v2, *loss;
  int *overflow;
  CK(cudaMalloc(&x, BATCH * DIN * sizeof(__half)));
  CK(cudaMalloc(&t, BATCH * DOUT * sizeof(float)));
  CK(cudaMalloc(&h, BATCH * DHID * sizeof(__half)));
  CK(cudaMalloc(&y, BATCH * DOUT * sizeof(__half)));
  CK(cudaMalloc(&dy, BATCH * DOUT * sizeof(__half)));
  CK(cudaMalloc(&dh, BATCH * DHID * sizeof(__half)));
  CK(cudaMalloc(&w1, n1 * sizeof(__half)));
  CK(cudaMalloc(&w2, n2 * sizeof(__half)));
  CK(cudaMalloc(&g1, n1 * sizeof(__half)));
  CK(cudaMalloc(&g2, n2 * sizeof(__half)));
  CK(cudaMalloc(&mw1, n1 * sizeof(float)));
  CK(cudaMalloc(&mw2, n2 * sizeof(float)));
  CK(cudaMalloc(&m1, n1 * sizeof(float)));
  CK(cudaMalloc(&v1, n1 * sizeof(float)));
  CK(cudaMalloc(&m2, n2 * sizeof(float)));
  CK(cudaMalloc(&v2, n2 * sizeof(float)));
  CK(cudaMalloc(&loss, sizeof(float)));
  CK(cudaMalloc(&overflow, sizeof(int)));
  CK(cudaMemset(m1, 0, n1 * sizeof(float)));
  CK(cudaMemset(v1, 0, n1 * sizeof(float)));
  CK(cudaMemset(m2, 0, n2 * sizeof(float)));
  CK(cudaMemset(v2, 0, n2 * sizeof(float)));
  init_master<<<blocks(n1), 256>>>(mw1, n1, 1u, 0.06f);
  init_master<<<blocks(n2), 256>>>(mw2, n2, 2u, 0.3f);
  to_half<<<blocks(n1), 256>>>(w1, mw1, n1);
  to_half<<<blocks(n2), 256>>>(w2, mw2, n2);
  {
    float *xf;
    CK(cudaMalloc(&xf, BATCH * DIN * sizeof(float)));
    init_master<<<blocks(BATCH * DIN), 256>>>(xf, BATCH * DIN, 3u, 2.0f);
    to_half<<<blocks(BATCH * DIN), 256>>>(x, xf, BATCH * DIN);
    init_master<<<blocks(BATCH * DOUT), 256>>>(t, BATCH * DOUT, 4u, 1.0f);
    CK(cudaFree(xf));
  }

  float scale = 65536.0f;
  int good_steps = 0, t_adam = 0;
  for (int step = 0; step < STEPS; step++) {
    CK(cudaMemset(loss, 0, sizeof(float)));
    CK(cudaMemset(overflow, 0, sizeof(int)));
    matmul_fwd<<<dim3(blocks(DHID), BATCH), 256>>>(h, x, w1, BATCH, DIN, DHID, 1);
    matmul_fwd<<<dim3(blocks(DOUT), BATCH), 256>>>(y, h, w2, BATCH, DHID, DOUT, 0);
    mse_grad<<<blocks(BATCH * DOUT), 256>>>(dy, loss, y, t, BATCH * DOUT, scale);
    matmul_bwd_w<<<dim3(blocks(DOUT), DHID), 256>>>(g2, h, dy, BATCH, DHID, DOUT);
    matmul_bwd_x<<<dim3(blocks(DHID), BATCH), 256>>>(dh, dy, w2, h, BATCH, DHID, DOUT);
    matmul_bwd_w<<<dim3(blocks(DHID), DIN), 256>>>(g1, x, dh, BATCH, DIN, DHID);
    check_overflow<<<blocks(n1), 256>>>(overflow, g1, n1);
    check_overflow<<<blocks(n2), 256>>>(overflow, g2, n2);
    int of = 0;
    float l = 0.0f;
    CK(cudaMemcpy(&of, overflow, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&l, loss, sizeof(float), cudaMemcpyDeviceToHost));
    if (of) {
      scale *= 0.5f;
      good_steps = 0;
      printf("step %d overflow, scale -> %g\n", step, scale);
      continue;
    }
    t_adam++;
    float b1c = 1.0f - powf(0.9f, (float)t_adam), b2c = 1.0f - powf(0.999f, (float)t_adam);
    adamw_mixed<<<blocks(n1), 256>>>(w1, mw1, g1, m1, v1, n1, 1e-3f, 1.0f / scale, b1c, b2c);
    adamw_mixed<<<blocks(n2), 256>>>(w2, mw2, g2, m2, v2, n2, 1e-3f, 1.0f / scale, b1c, b2c);
    if (++good_steps == 10) {
      scale *= 2.0f;
      good_steps = 0;
    }
    printf("step %d loss %.6f scale %g\n", step, l, scale);
  }
  CK(cudaDeviceSynchronize());
  cudaFree(x); cudaFree(t); cudaFree(h); cudaFree(y); cudaFree(dy); cudaFree(dh);
  cudaFree(w1); cudaFree(w2); cudaFree(g1); cudaFree(g2); cudaFree(mw1); cudaFree(mw2);
  cudaFree(m1); cudaFree(v1); cudaFree(m2); cudaFree(v2); cudaFree(loss); cudaFree(overflow);
  return 0;
}
