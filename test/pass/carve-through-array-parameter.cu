// Bump-pointer carving over a size array, as llm.c writes it: the sizes are
// filled by a helper writing through a pointer parameter
// (`fill_sizes(m.sizes, B, m.cfg)`), the carving helper takes the table of
// field addresses as an array parameter (`float **targets[]`, which C makes
// a pointer: Note [array parameters]) and stores through it
// (`*(targets[i]) = it; it += sizes[i];`), and the forward pass copies the
// struct of pointers (`Acts acts = m->acts;`) and offsets into it per layer.
// Every access resolves to a carved region, and with the sizes bound the
// iteration unrolls and replays.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// RUN: %tidal replay %s --bind m.cfg.layers=4 --bind m.cfg.ch=16384 --chunk 64K --budget 50%% -- %stubflags 2>&1 | FileCheck --check-prefix=REPLAY %s
// CHECK: write     m.acts.h[l]
// CHECK-NEXT: read      m.acts.x
// CHECK: write     m.acts.y
// CHECK-NEXT: read      m.acts.h+
// CHECK: tensors:
// CHECK: m.acts.h[l] {{.*}} in mem at +4*B*m.cfg.ch + 4*l*B*m.cfg.ch
// CHECK: unresolved (0):
// REPLAY: checksums match (5 ops x 2 iterations
#include <stddef.h>
#include <stdlib.h>
typedef struct Cfg { int layers; int ch; } Cfg;
typedef struct Acts { float *x, *h, *y; } Acts;
typedef struct Model { Cfg cfg; Acts acts; size_t sizes[3]; float *mem; } Model;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void fill_sizes(size_t *sizes, int B, Cfg c) {
  sizes[0] = B * c.ch;
  sizes[1] = c.layers * B * c.ch;
  sizes[2] = B * c.ch;
}
float *carve(float **targets[], const size_t *sizes, int n) {
  size_t total = 0;
  for (int i = 0; i < n; i++) total += sizes[i];
  float *mem;
  cudaMalloc((void **)&mem, total * sizeof(float));
  float *it = mem;
  for (int i = 0; i < n; i++) {
    *(targets[i]) = it;
    it += sizes[i];
  }
  return mem;
}
float *carve_acts(Acts *a, const size_t *sizes) {
  float **ptrs[] = {&a->x, &a->h, &a->y};
  return carve(ptrs, sizes, 3);
}
void forward(Model *m, int B) {
  Acts acts = m->acts;
  int C = m->cfg.ch;
  for (int l = 0; l < m->cfg.layers; l++)
    scale<<<B * C / 256, 256>>>(acts.h + l * B * C, acts.x, B * C);
  scale<<<B * C / 256, 256>>>(acts.y, acts.h + (m->cfg.layers - 1) * B * C, B * C);
}
int main(int argc, char **argv) {
  Model m;
  m.cfg.layers = atoi(argv[1]);
  m.cfg.ch = atoi(argv[2]);
  int B = 4;
  fill_sizes(m.sizes, B, m.cfg);
  m.mem = carve_acts(&m.acts, m.sizes);
  for (int step = 0; step < 10; step++) forward(&m, B);
  return 0;
}
