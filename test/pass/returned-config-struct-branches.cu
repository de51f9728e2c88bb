// A config struct of integers returned by value (`g = init(1, 0)`, llm.c's
// `multi_gpu_config = multi_gpu_config_init(...)`) and then set through a
// pointer in branches on a run-time flag, both arms leaving the same size:
// the size stays the value the program computes (1000), so the iteration
// unrolls with no --bind.  Only a returned struct holding device pointers
// is copied field by field (interp_expr.c, Note [struct copies]); a first
// version copied every one, and this size became unbound.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// CHECK: managed 1 of 1 allocations (3.9 KiB of 3.9 KiB)
// CHECK: ops: 1 static, 1 per iteration unrolled
#include <stdlib.h>
typedef struct { int num_processes; int process_rank; int zero_stage; size_t shard; } Cfg;
Cfg g;
Cfg init(int n, int rank) {
  Cfg r;
  r.num_processes = n;
  r.process_rank = rank;
  return r;
}
void set_zero(Cfg *c, int zs, size_t total) {
  c->zero_stage = 0;
  c->shard = total;
  if (zs == 0) {
  } else if (zs == 1) {
    if (total % c->num_processes != 0) c->zero_stage = 0;
    else { c->zero_stage = 1; c->shard = total / c->num_processes; }
  }
}
__global__ void k(float *p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = 0;
}
int main(int argc, char **argv) {
  int zs = 0;
  for (int i = 1; i < argc; i += 2)
    if (argv[i][1] == 'z') zs = atoi(argv[i + 1]);
  g = init(1, 0);
  set_zero(&g, zs, 1000);
  float *p;
  cudaMalloc((void **)&p, g.shard * sizeof(float));
  for (int s = 0; s < 3; s++) k<<<4, 256>>>(p, 1000);
  return 0;
}
