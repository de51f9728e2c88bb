// A cuBLASLt wrapper called from forward and backward, the model passed as
// `Model *model` while the training loop's function holds `Model model`
// (llm.c's bf16 trainer): the matmul's operands are declared at the op in
// the wrapper's own names (`2*k*m`: Note [descriptor extents at the op]),
// never in the loop's (`model.cfg.c`, no name inside mm; on a pointer one
// level up, not C: the rewrite did not compile).  The output compiles with
// nvcc (nvcc-compiles-rewrite-inputs).
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.in.cu
// RUN: %tidal rewrite %t.in.cu -o %t.cu -- %stubflags
// RUN: FileCheck %s < %t.cu
// CHECK: {(const void *)(a), ((size_t)2*(size_t)(k)*(size_t)(m)), TIDAL_READ},
// CHECK-NEXT: {(const void *)(b), ((size_t)2*(size_t)(k)*(size_t)(n)), TIDAL_READ},
// CHECK-NOT: model.cfg.c)),
#include <stddef.h>
#include <stdio.h>
#include <cublasLt.h>
typedef unsigned short bf16;
typedef struct Cfg { int c, v; } Cfg;
typedef struct Params { bf16 *wte, *w; } Params;
typedef struct Model { Cfg cfg; Params params, grads; bf16 *acts, *dacts; } Model;
cublasLtHandle_t lt;
__global__ void act(bf16 *out, const bf16 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
void mm(bf16 *d, const bf16 *a, const bf16 *b, int m, int n, int k, bool acc) {
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t al, bl, dl;
  cublasLtMatrixLayoutCreate(&al, CUDA_R_16BF, k, m, k);
  cublasLtMatrixLayoutCreate(&bl, CUDA_R_16BF, k, n, k);
  cublasLtMatrixLayoutCreate(&dl, CUDA_R_16BF, m, n, m);
  const float alpha = 1.0f, beta = acc ? 1.0f : 0.0f;
  cublasLtMatmul(lt, desc, &alpha, a, al, b, bl, &beta, d, dl, d, dl, NULL, NULL, 0, 0);
}
void load(Model *m) {
  int h[2];
  FILE *f = fopen("m.bin", "rb");
  fread(h, sizeof(int), 2, f);
  m->cfg.c = h[0];
  m->cfg.v = h[1];
  cudaMalloc((void **)&m->params.wte, m->cfg.v * m->cfg.c * sizeof(bf16));
  cudaMalloc((void **)&m->params.w, m->cfg.c * m->cfg.c * sizeof(bf16));
  cudaMalloc((void **)&m->grads.wte, m->cfg.v * m->cfg.c * sizeof(bf16));
  cudaMalloc((void **)&m->grads.w, m->cfg.c * m->cfg.c * sizeof(bf16));
  cudaMalloc((void **)&m->acts, 64 * m->cfg.v * sizeof(bf16));
  cudaMalloc((void **)&m->dacts, 64 * m->cfg.v * sizeof(bf16));
}
void forward(Model *model) {
  Params params = model->params;
  mm(model->acts, params.wte, model->acts, model->cfg.v, 64, model->cfg.c, false);
  for (int i = 0; i < 8; i++) act<<<64, 256>>>(model->dacts, model->acts, 64 * model->cfg.c);
}
void backward(Model *model) {
  Params grads = model->grads, params = model->params;
  mm(grads.wte, model->acts, model->dacts, model->cfg.c, model->cfg.v, 64, true);
  for (int i = 0; i < 8; i++) act<<<64, 256>>>(model->dacts, model->acts, 64 * model->cfg.c);
  mm(grads.w, model->acts, model->dacts, model->cfg.c, model->cfg.c, 64, true);
  mm(model->dacts, params.wte, model->dacts, model->cfg.c, 64, model->cfg.v, false);
}
int main(void) {
  Model model;
  load(&model);
  cublasLtCreate(&lt);
  for (int step = 0; step < 10; step++) {
    forward(&model);
    backward(&model);
  }
  return 0;
}
