// Carving over a table of specs passed by reference to an array (C++,
// llm.c's bf16 trainer): `fill(const Acts *a, Spec (&t)[3], ...)` stores
// `t[i] = Spec{(void **)&a->x, n}` into the caller's table, and
// `carve(Spec (&t)[3])` stores through each entry.  A reference to an array
// is the caller's array (unlike an array parameter, which is a pointer:
// Note [array parameters]), so every access resolves.
// RUN: %tidal graph %s -- %stubflags | FileCheck %s
// CHECK: write     m.acts.h
// CHECK-NEXT: read      m.acts.x
// CHECK: write     m.acts.y
// CHECK-NEXT: read      m.acts.h
// CHECK: unresolved (0):
#include <stddef.h>
#include <stdlib.h>
struct Spec { void **ptr; size_t size; };
typedef struct Acts { float *x, *h, *y; } Acts;
typedef struct Model { int ch; Acts acts; Spec specs[3]; void *mem; } Model;
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
void fill(const Acts *a, Spec (&t)[3], size_t n) {
  t[0] = Spec{(void **)(&a->x), n * sizeof(float)};
  t[1] = Spec{(void **)(&a->h), 2 * n * sizeof(float)};
  t[2] = Spec{(void **)(&a->y), n * sizeof(float)};
}
void *carve(Spec (&t)[3]) {
  size_t bytes = 0;
  for (int i = 0; i < 3; i++) bytes += t[i].size;
  void *mem;
  cudaMalloc(&mem, bytes);
  char *it = (char *)mem;
  for (int i = 0; i < 3; i++) {
    *(t[i].ptr) = it;
    it += t[i].size;
  }
  return mem;
}
int main(int argc, char **argv) {
  Model m;
  m.ch = atoi(argv[1]);
  fill(&m.acts, m.specs, m.ch);
  m.mem = carve(m.specs);
  for (int step = 0; step < 10; step++) {
    scale<<<m.ch / 256, 256>>>(m.acts.h, m.acts.x, m.ch);
    scale<<<m.ch / 256, 256>>>(m.acts.y, m.acts.h + m.ch, m.ch);
  }
  return 0;
}
