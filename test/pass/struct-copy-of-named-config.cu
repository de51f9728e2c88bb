// A helper copies the model's config and changes one field before sizing
// buffers with it (`Cfg cfg = m->cfg; cfg.layers = 1; fill(sizes, B, cfg);`,
// llm.c's backward buffers).  The copy's other fields read as the
// original does, by name (`m.cfg.ch`, read from a file at run time), not as
// the unknown value stored there: the buffers carved from those sizes
// resolve, and their sizes are written in names a person can --bind.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: once (setup, first iteration only)
// CHECK: write     m.grad.a
// CHECK-NEXT: read      m.grad.b
// CHECK: m.grad.a {{.*}} in m.grad_mem at +0
// CHECK: m.grad.b 16*m.cfg.ch in m.grad_mem at +16*m.cfg.ch
// CHECK: unresolved (0):
#include <stddef.h>
#include <stdio.h>
typedef struct Cfg { int layers; int ch; } Cfg;
typedef struct Grad { float *a, *b; } Grad;
typedef struct Model { Cfg cfg; Grad grad; float *grad_mem; } Model;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void fill(size_t *sizes, int B, Cfg c) {
  sizes[0] = c.layers * B * c.ch;
  sizes[1] = c.layers * B * c.ch;
}
void backward(Model *m, int B) {
  if (m->grad_mem == NULL) {
    size_t sizes[2];
    Cfg cfg = m->cfg;
    cfg.layers = 1;
    fill(sizes, B, cfg);
    cudaMalloc((void **)&m->grad_mem, (sizes[0] + sizes[1]) * sizeof(float));
    m->grad.a = m->grad_mem;
    m->grad.b = m->grad_mem + sizes[0];
  }
  scale<<<B * m->cfg.ch / 256, 256>>>(m->grad.a, m->grad.b, B * m->cfg.ch);
}
void load(Model *m, const char *path) {
  int header[2];
  FILE *f = fopen(path, "rb");
  fread(header, sizeof(int), 2, f);
  m->cfg.layers = header[0];
  m->cfg.ch = header[1];
  m->grad_mem = NULL;
}
int main(void) {
  Model m;
  load(&m, "model.bin");
  for (int step = 0; step < 10; step++) backward(&m, 4);
  return 0;
}
