// Issue 8, idiom 2: a kernel passing its pointers to a __device__ helper
// with 15 or more parameters got mode `none` for every pointer - the
// helper's body was looked up among a fixed number of children, after its
// parameters and attributes, and lost.  Also a kernel with that many
// parameters, and an initialiser list longer than 16.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__device__ void adamw_update(float *param, const float *grad, float *m, float *v, float lr,
                             float beta1, float beta2, float beta1_corr, float beta2_corr,
                             float eps, float wd, float grad_scale, int step, int stride,
                             long offset, int i) {
  float g = grad[i] * grad_scale;
  float mi = beta1 * m[i] + (1.0f - beta1) * g;
  float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  param[i] -= lr * ((mi / beta1_corr) / (sqrtf(vi / beta2_corr) + eps) + wd * param[i]);
}

__global__ void adamw(float *params, const float *grads, float *m, float *v, int N, float lr,
                      float beta1, float beta2, float beta1_corr, float beta2_corr, float eps,
                      float wd, float grad_scale, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  adamw_update(params, grads, m, v, lr, beta1, beta2, beta1_corr, beta2_corr, eps, wd, grad_scale,
               step, 1, 0, i);
}
// CHECK-LABEL: kernel adamw
// CHECK-NEXT: param params: mode=readwrite extent=N elem=float
// CHECK-NEXT: param grads: mode=read extent=N elem=float
// CHECK-NEXT: param m: mode=readwrite extent=N elem=float
// CHECK-NEXT: param v: mode=readwrite extent=N elem=float

// 17 parameters on the kernel itself: its body comes after them.
__global__ void wide(float *out, const float *a0, const float *a1, const float *a2,
                     const float *a3, const float *a4, const float *a5, const float *a6,
                     const float *a7, const float *a8, const float *a9, const float *a10,
                     const float *a11, const float *a12, const float *a13, const float *a14,
                     int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float t[17] = {0.0f, 0.0f, a0[i], a1[i], a2[i], a3[i], a4[i], a5[i], a6[i],
                 a7[i], a8[i], a9[i], a10[i], a11[i], a12[i], a13[i], a14[i]};
  out[i] = t[2] + t[16];
}
// CHECK-LABEL: kernel wide
// CHECK-NEXT: param out: mode=write extent=N
// CHECK-NEXT: param a0: mode=read extent=N
// CHECK: param a13: mode=read extent=N
// CHECK-NEXT: param a14: mode=read extent=N
