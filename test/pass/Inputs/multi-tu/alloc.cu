// Allocation helpers: a struct returned by value, and an init that uses it.
#include "model.h"
tensor_t tensor_alloc(int n) {
  tensor_t t;
  t.n = n;
  cudaError_t err = cudaMalloc((void **)&t.data, n * sizeof(float));
  if (err != cudaSuccess) t.data = 0;
  return t;
}
void model_init(model_t *m, int n) {
  m->w = tensor_alloc(n);
  m->h = tensor_alloc(n);
}
