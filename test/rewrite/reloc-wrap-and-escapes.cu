// Relocation at op sites (Note [relocatable allocations], graph/relocatable.c;
// Note [escapes], graph/escapes.c): every pointer argument an op declares an
// access through is passed as TIDAL_AT(arg) - kernels, cuBLAS, memcpy/memset,
// interior pointers, an argument inside a check macro - and the allocations
// get TIDAL_GROUP_RELOCATABLE.  A pointer field of a struct passed by value,
// a pointer a library keeps (cublasSetWorkspace) and one passed to a function
// with no body in the program (ext_fill) are sent home with
// tidal_home just before (the struct's allocations, which the graph follows,
// are allocated at home too, so replay models them as they run); a host
// pointer stays as written.
// RUN: sed -e 's@// *\(CHECK\|SUM\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
#define N 1024
#include <cublas_v2.h>
#define CHECK(x) do { if ((x) != 0) return 1; } while (0)
struct pair { float *a; float *b; };
void ext_fill(float *p, int n); /* defined elsewhere: it may use or keep p */
__global__ void k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
__global__ void kp(pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.a[i] += p.b[i];
}
int main(void) {
  float *x, *y, *w, *ws, h[N];
  cublasHandle_t hd;
  cublasCreate(&hd);
// CHECK: tidal_malloc_grouped((void **)(&x), 2 * N * sizeof(float), TIDAL_GROUP_RELOCATABLE)) /* tidal: relocatable
  cudaMalloc(&x, 2 * N * sizeof(float));
// CHECK: tidal_malloc((void **)(&y), N * sizeof(float))) /* tidal: at home: kp ({{.*}}) passes it through a struct argument: tidal_home at run time */
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&w, N * sizeof(float));
  cudaMalloc(&ws, N * sizeof(float));
// CHECK: TIDAL_CHECK(tidal_home((const void *)(ws))); /* tidal: stays at home: cublasSetWorkspace_v2 may use or keep the address outside every op */
// CHECK-NEXT: #line
// CHECK-NEXT: cublasSetWorkspace(hd, ws, N * sizeof(float)); }
  cublasSetWorkspace(hd, ws, N * sizeof(float));
// CHECK: { TIDAL_CHECK(tidal_home((const void *)(ws + 8))); /* tidal: stays at home: ext_fill may use or keep the address outside every op */
  ext_fill(ws + 8, 4);
// CHECK: cudaMemcpy(TIDAL_AT(x), h, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(x, h, N * sizeof(float), cudaMemcpyHostToDevice);
  for (int it = 0; it < 2; it++) {
// CHECK: k<<<N / 256, 256>>>(TIDAL_AT(y), TIDAL_AT(x + N / 2), N / 2);
    k<<<N / 256, 256>>>(y, x + N / 2, N / 2);
// CHECK: CHECK(cudaMemset(TIDAL_AT(w), 0, N * sizeof(float)));
    CHECK(cudaMemset(w, 0, N * sizeof(float)));
    float one = 1.0f, zero = 0.0f;
// CHECK: cublasSgemv(hd, CUBLAS_OP_N, 32, 32, &one, TIDAL_AT(w), 32, TIDAL_AT(y), 1, &zero, TIDAL_AT(x), 1);
    cublasSgemv(hd, CUBLAS_OP_N, 32, 32, &one, w, 32, y, 1, &zero, x, 1);
    pair p = {w, y};
// CHECK: TIDAL_CHECK(tidal_home((const void *)(p.a))); /* tidal: stays at home: reaches the op through a pointer field of a struct passed by value, not TIDAL_AT */
// CHECK: kp<<<N / 256, 256>>>(p, N);
    kp<<<N / 256, 256>>>(p, N);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
  cudaFree(ws);
  return 0;
}
// SUM: 2 of 4 allocations relocatable
