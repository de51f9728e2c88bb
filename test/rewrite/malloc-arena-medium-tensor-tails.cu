// A buffer of a chunk or more gets whole 2 MiB chunks, and its last
// chunk's tail is idle; the small buffers the same ops use sit in slabs of
// their own.  The rewrite lays each 2.8 MiB buffer out with the 720 KiB
// buffer it is used with in one arena (TIDAL_GROUP_ARENA), so both fit in
// the medium's two chunks: conv with pool (allocated after it), dpool with
// dconv (allocated before it).  The op reading all four then needs four
// chunks, not 2 + 2 + slabs (plan/pack_arena.c, Note [arenas for medium
// tensors]).  A medium freed inside the loop (tmp), one bigger than half an
// arena (huge, 33 chunks) and their small partners get no arena.
// RUN: sed -e 's@// *CHECK[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu -o %t.out.cu -- %stubflags
// RUN: FileCheck %s < %t.out.cu
#define MED 737280    /* floats: 2.8 MiB, two chunks with a 1.2 MiB tail */
#define SMALL 184320  /* floats: 720 KiB */
#define HUGE 17039360 /* floats: 65 MiB, 33 chunks */
__global__ void step(float *x, int nx, float *y, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) x[i] = 0.5f * x[i] + 1.0f;
  if (i < ny) y[i] = 0.5f * y[i] + 1.0f;
}
__global__ void pool_bwd(float *dx, const float *x, const float *y, const float *dy, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = 0.25f * x[i];
  if (i < m) dx[i] += y[i] * dy[i];
}
int main(void) {
  float *conv, *pool, *dconv, *dpool, *side, *huge, *hside, *tmp;
// CHECK: tidal_malloc_grouped((void **)(&conv), MED * sizeof(float), TIDAL_GROUP_RELOCATABLE | TIDAL_GROUP_ARENA | [[A1:[0-9]+]]u)) /* tidal: laid out with pool so they share chunks: the same ops use them, and together they fit in the 2 chunks this one takes alone */
  cudaMalloc(&conv, MED * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&pool), SMALL * sizeof(float), TIDAL_GROUP_RELOCATABLE | TIDAL_GROUP_ARENA | [[A1]]u)) /* tidal: laid out with conv so they share chunks: the same ops use them, and together they fit in the 2 chunks conv takes alone */
  cudaMalloc(&pool, SMALL * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&dconv), SMALL * sizeof(float), TIDAL_GROUP_RELOCATABLE | TIDAL_GROUP_ARENA | [[A2:[0-9]+]]u)) /* tidal: laid out with dpool so they share chunks: the same ops use them, and together they fit in the 2 chunks dpool takes alone */
  cudaMalloc(&dconv, SMALL * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&dpool), MED * sizeof(float), TIDAL_GROUP_RELOCATABLE | TIDAL_GROUP_ARENA | [[A2]]u)
  cudaMalloc(&dpool, MED * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&side), SMALL * sizeof(float), TIDAL_GROUP_RELOCATABLE | {{[0-9]+}}u)
  cudaMalloc(&side, SMALL * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&huge), HUGE * sizeof(float), TIDAL_GROUP_RELOCATABLE)
  cudaMalloc(&huge, HUGE * sizeof(float));
// CHECK: tidal_malloc_grouped((void **)(&hside), SMALL * sizeof(float), TIDAL_GROUP_RELOCATABLE | {{[0-9]+}}u)
  cudaMalloc(&hside, SMALL * sizeof(float));
  for (int it = 0; it < 4; it++) {
// CHECK: tidal_malloc_grouped((void **)(&tmp), MED * sizeof(float), TIDAL_GROUP_RELOCATABLE)
    cudaMalloc(&tmp, MED * sizeof(float));
    step<<<MED / 256, 256>>>(conv, MED, pool, SMALL);
    step<<<MED / 256, 256>>>(dpool, MED, dconv, SMALL);
    pool_bwd<<<MED / 256, 256>>>(dpool, conv, pool, dconv, MED, SMALL);
    step<<<MED / 256, 256>>>(tmp, MED, side, SMALL);
    step<<<HUGE / 256, 256>>>(huge, HUGE, hside, SMALL);
    cudaFree(tmp);
  }
  cudaFree(conv);
  cudaFree(pool);
  cudaFree(dconv);
  cudaFree(dpool);
  cudaFree(side);
  cudaFree(huge);
  cudaFree(hside);
  return 0;
}
