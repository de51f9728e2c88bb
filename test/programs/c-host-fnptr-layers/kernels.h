/* GPU entry points of the .cu files, callable from C. */
#ifndef KERNELS_H
#define KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

void fill_gpu(int n, float value, float *x);
void axpy_gpu(int n, float a, const float *x, float *y);
void gemm_nn_gpu(int m, int n, int k, const float *a, const float *b, float *c);
void gemm_nt_gpu(int m, int n, int k, const float *a, const float *b, float *c);
void gemm_tn_gpu(int m, int n, int k, const float *a, const float *b, float *c);
void add_bias_gpu(float *out, const float *bias, int batch, int n);
void backward_bias_gpu(float *bias_updates, const float *delta, int batch, int n);
void relu_gpu(int n, const float *x, float *y);
void relu_gradient_gpu(int n, const float *x, const float *dy, float *dx);
void l2_gpu(int n, const float *pred, const float *truth, float *delta, float *cost);

#ifdef __cplusplus
}
#endif

#endif
