// A model built one of several ways (resume from a state file, load a
// checkpoint, or a preset), each arm sizing the parameters by the same
// helper from the config it read (llm.c's gpt2_build_from_checkpoint and
// gpt_build_from_descriptor both call gpt2_allocate_weights): the count
// every arm computes alike is known after the if (Note [arms that agree]),
// so the optimizer state sized by it unrolls with the config bound.  An
// integer the arms set differently is still unknown.
// RUN: %tidal graph %s --bind m.layers=2 --bind m.width=1024 -- %stubflags | FileCheck %s
// (m.n's name is bound to 0, its value before the sum, so the sum reads
// m.n + ...: the count, not 0.)
// CHECK: per iteration unrolled
// CHECK: readwrite m.params{{ +}}16.0 KiB
// CHECK-NEXT: readwrite m.opt{{ +}}16.0 KiB
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct Model { int layers, width; size_t n; float *params, *opt; } Model;
__global__ void adam(float *p, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { m[i] += p[i]; p[i] -= m[i]; }
}
void allocate(Model *m) {
  m->n = 0;
  for (int l = 0; l < 4; l++) m->n += (l < 2 ? m->width : 1) * (size_t)m->layers;
  cudaMalloc((void **)&m->params, m->n * sizeof(float));
}
void load(Model *m, const char *path) {
  int hdr[2];
  FILE *f = fopen(path, "rb");
  fread(hdr, sizeof(int), 2, f);
  m->layers = hdr[0];
  m->width = hdr[1];
  allocate(m);
}
void preset(Model *m, const char *name) {
  int depth = atoi(name);
  if (depth == 6) { m->layers = 6; m->width = 384; }
  else { m->layers = 12; m->width = 768; }
  allocate(m);
}
int main(int argc, char **argv) {
  Model m;
  int resume = argc > 2;
  if (resume) load(&m, argv[2]);
  else if (strstr(argv[1], ".bin")) load(&m, argv[1]);
  else preset(&m, argv[1]);
  cudaMalloc((void **)&m.opt, 2 * m.n * sizeof(float));
  for (int step = 0; step < 10; step++) adam<<<(m.n + 255) / 256, 256>>>(m.params, m.opt, m.n);
  return 0;
}
