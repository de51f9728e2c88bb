// launchkernel/train.cu - a small training-loop-shaped program whose kernels
// are all launched through cudaLaunchKernel's argument array, written so
// that it also compiles as C (simcuda's twin, test/samples/CMakeLists.txt).
//
// The rewrite gives each in-loop launch a copy of its argument array whose
// pointer parameters hold TIDAL_AT addresses (Note [argument arrays],
// pass/graph/sitehomes.c): x and y are relocatable, so their stable
// addresses are never mapped and a launch that read the program's own array
// would fault.  A struct parameter's fields (u, v) go home instead, before
// and inside the op (Note [home residency]).  The program checks its result
// against the same arithmetic on the host, and prints one line per step.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N (1 << 16)
#define BLOCK 256

typedef struct pair {
  float *a;
  const float *b;
} pair;

__global__ void axpy(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 0.5f * x[i];
}

__global__ void decay(pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.a[i] = 0.75f * p.a[i] + p.b[i];
}

static void host_axpy(float *y, const float *x, int n) {
  for (int i = 0; i < n; i++) y[i] += 0.5f * x[i];
}

static void host_decay(float *a, const float *b, int n) {
  for (int i = 0; i < n; i++) a[i] = 0.75f * a[i] + b[i];
}

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 4;
  int n = N;
  size_t bytes = (size_t)N * sizeof(float);
  float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
  float *hu = (float *)malloc(bytes), *hv = (float *)malloc(bytes);
  float *got = (float *)malloc(bytes);
  if (!hx || !hy || !hu || !hv || !got) return 1;
  for (int i = 0; i < N; i++) {
    hx[i] = (float)(i % 97) * 0.25f;
    hy[i] = (float)(i % 31) - 15.0f;
    hu[i] = (float)(i % 13) * 0.5f;
    hv[i] = (float)(i % 7) * 0.125f;
  }
  float *x, *y, *u, *v;
  check(cudaMalloc((void **)&x, bytes), "cudaMalloc x");
  check(cudaMalloc((void **)&y, bytes), "cudaMalloc y");
  check(cudaMalloc((void **)&u, bytes), "cudaMalloc u");
  check(cudaMalloc((void **)&v, bytes), "cudaMalloc v");
  check(cudaMemcpy(x, hx, bytes, cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(y, hy, bytes, cudaMemcpyHostToDevice), "copy y");
  check(cudaMemcpy(u, hu, bytes, cudaMemcpyHostToDevice), "copy u");
  check(cudaMemcpy(v, hv, bytes, cudaMemcpyHostToDevice), "copy v");

  pair p0 = {u, v};
  void *setup[] = {&p0, &n};
  check(cudaLaunchKernel((const void *)decay, dim3(N / BLOCK), dim3(BLOCK), setup, 0, 0),
        "setup decay");
  host_decay(hu, hv, N);

  for (int step = 0; step < steps; step++) {
    void *args[] = {&y, &x, &n};
    check(cudaLaunchKernel((const void *)axpy, dim3(N / BLOCK), dim3(BLOCK), args, 0, 0),
          "axpy y");
    void *back[] = {&x, &y, &n};
    check(cudaLaunchKernel((const void *)axpy, dim3(N / BLOCK), dim3(BLOCK), back, 0, 0),
          "axpy x");
    pair p = {u, v};
    void *ps[] = {&p, &n};
    check(cudaLaunchKernel((const void *)decay, dim3(N / BLOCK), dim3(BLOCK), ps, 0, 0),
          "decay");
    host_axpy(hy, hx, N);
    host_axpy(hx, hy, N);
    host_decay(hu, hv, N);
    check(cudaMemcpy(got, y, bytes, cudaMemcpyDeviceToHost), "copy y back");
    double sum = 0;
    for (int i = 0; i < N; i++) sum += got[i];
    printf("step %d: sum(y) %.6f\n", step, sum);
  }
  check(cudaDeviceSynchronize(), "sync");

  const float *dev[3] = {x, y, u};
  const float *want[3] = {hx, hy, hu};
  const char *names[3] = {"x", "y", "u"};
  for (int k = 0; k < 3; k++) {
    check(cudaMemcpy(got, dev[k], bytes, cudaMemcpyDeviceToHost), "copy back");
    for (int i = 0; i < N; i++)
      if (got[i] != want[k][i]) {
        printf("MISMATCH: %s[%d] = %.9g, the host computed %.9g\n", names[k], i, got[i],
               want[k][i]);
        return 1;
      }
  }
  printf("ok: x, y and u equal the host's arithmetic after %d steps\n", steps);
  cudaFree(x);
  cudaFree(y);
  cudaFree(u);
  cudaFree(v);
  free(hx);
  free(hy);
  free(hu);
  free(hv);
  free(got);
  return 0;
}
