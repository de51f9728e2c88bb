// RAII matrix temporaries from a caching allocator: `Matrix operator*`
// returns a Matrix whose constructor takes a block from a user pool (one
// cudaMalloc, freed blocks reused; the destructor gives the block back).
// The pool's cudaMalloc is managed, the weights carved from it before the
// loop resolve exactly, and every temporary made inside the loop covers the
// whole pool, with a warning: the pool's `top += bytes` (inside pool.get(),
// inside the constructor, inside operator*) moves each iteration's blocks,
// which the one walk of the body does not see (interp.c Note [state changed
// by calls]).  Before: the temporaries resolved to the first iteration's
// offsets, one of them onto the weights (`write w1.d`): a plan could have
// taken the weights for overwritten.
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck %s
// RUN: %tidal replay %s --chunk 4K --budget 100%% --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=REPLAY %s
#include <stddef.h>
__global__ void matmul(float *c, const float *a, const float *b, int m, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * n) {
    float s = 0.f;
    for (int j = 0; j < k; j++) s += a[(i / n) * k + j] * b[j * n + i % n];
    c[i] = s;
  }
}
__global__ void relu_k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
struct Pool {
  char *base = nullptr;
  size_t cap = 0, top = 0;
  size_t free_off[32], free_len[32];
  int n_free = 0;
  float *get(size_t bytes) {
    if (base == nullptr) {
      cap = 1 << 22;
      cudaMalloc((void **)&base, cap);
    }
    for (int i = 0; i < n_free; i++)
      if (free_len[i] >= bytes) {
        size_t off = free_off[i];
        free_off[i] = free_off[--n_free];
        free_len[i] = free_len[n_free];
        return (float *)(base + off);
      }
    size_t off = top;
    top += bytes;
    return (float *)(base + off);
  }
  void put(float *p, size_t bytes) {
    free_off[n_free] = (size_t)((char *)p - base);
    free_len[n_free++] = bytes;
  }
};
static Pool pool;
struct Matrix {
  int r, c;
  float *d;
  Matrix(int r_, int c_) : r(r_), c(c_), d(pool.get((size_t)r_ * c_ * sizeof(float))) {}
  ~Matrix() { pool.put(d, (size_t)r * c * sizeof(float)); }
};
Matrix operator*(const Matrix &a, const Matrix &b) {
  Matrix out(a.r, b.c);
  matmul<<<(a.r * b.c + 255) / 256, 256>>>(out.d, a.d, b.d, a.r, a.c, b.c);
  return out;
}
Matrix relu(const Matrix &x) {
  Matrix y(x.r, x.c);
  relu_k<<<(x.r * x.c + 255) / 256, 256>>>(y.d, x.d, x.r * x.c);
  return y;
}
int main() {
  Matrix w1(64, 128), w2(32, 10), x(128, 32);
  for (int step = 0; step < 10; step++) {
    Matrix h = relu(w1 * x);
    Matrix out = h * w2;
  }
  return 0;
}
// CHECK-DAG: cxx-raii-pool-temporaries.cu:62:48: warning: pointer 'out.d' passed to matmul: offset carried around a loop; the access covers all of 'pool.base'
// CHECK-DAG: cxx-raii-pool-temporaries.cu:67:46: warning: pointer 'y.d' passed to relu_k: offset carried around a loop
// CHECK-DAG: cxx-raii-pool-temporaries.cu:67:51: warning: pointer 'x.d' passed to relu_k: offset carried around a loop
// CHECK: managed 1 of 1 allocations (4.0 MiB of 4.0 MiB); 8 of 8 accesses resolved
// CHECK: #0 {{.*}}operator* -> matmul
// CHECK-NEXT: readwrite pool.base
// CHECK-NEXT: read      w1.d {{.*}}32.0 KiB
// CHECK-NEXT: read      x.d {{.*}}16.0 KiB
// CHECK: #1 {{.*}}relu -> relu_k
// CHECK-NEXT: readwrite pool.base
// CHECK-NEXT: read      pool.base
// CHECK: #2 {{.*}}operator* -> matmul
// CHECK-NEXT: readwrite pool.base
// CHECK-NEXT: read      pool.base
// CHECK-NEXT: read      w2.d {{.*}}1.2 KiB
// CHECK-NOT: write     w1.d
// CHECK: T1   w1.d {{.*}} in pool.base at +pool.top
// CHECK: T2   x.d {{.*}} in pool.base at +34048
// REPLAY: "checksums_match": true,
// REPLAY: "ok": true
