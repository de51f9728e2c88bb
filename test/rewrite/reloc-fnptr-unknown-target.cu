// A call through a function pointer whose target the pass cannot tell is
// an escape (graph/callees.c, Note [library functions through pointers];
// graph/escapes.c, Note [escapes]): a pointer from dlsym, one that holds a
// library op or a user wrapper depending on a run-time flag, and one whose
// address a registration function receives (it may store anything there)
// each get tidal_home for every device pointer argument just before the
// call, and the header says why; so do a kernel launched through a
// pointer (not instrumented as an op) and a call through a std::function
// (what it holds is not followed).  A layer struct whose `forward`
// field the program only ever sets to its own wrapper stays a plain call
// (the wrapper's op is instrumented where it is written).  Before, the
// calls through dyn, pick, hook and kp were left as written while x, y and
// z were marked relocatable.  In the graph, my_add's op under pick and
// hook may not run (something else may run instead; register_hook may
// store another function: its value is forgotten there), so it is marked
// maybe, with a warning.
// RUN: sed -e 's@// *\(CHECK\|SUM\|GRAPH\)[-A-Z]*:.*@//@' %s > %t.cu
// RUN: %tidal graph %t.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=GRAPH
// GRAPH: warning: call through function pointer 'dyn': no function the program assigns to it was found
// GRAPH: warning: call through function pointer 'pick': it may run a function the program does not define instead of the one walked
// GRAPH: warning: call through function pointer 'hook': it may run a function the program does not define
// RUN: %tidal rewrite %t.cu --plan none -o %t.out.cu -- %stubflags 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s < %t.out.cu
// SUM: 3 of 3 allocations relocatable
#include <cudnn.h>
#include <dlfcn.h>
#include <functional>
#define N 1024
typedef cudnnStatus_t (*add_fn)(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t,
                                const void *, const void *, const cudnnTensorDescriptor_t, void *);
__global__ void add_kernel(float *c, const float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] += a[i];
}
static cudnnStatus_t my_add(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t,
                            const void *a, const void *, const cudnnTensorDescriptor_t, void *c) {
  add_kernel<<<N / 256, 256>>>((float *)c, (const float *)a, N);
  return CUDNN_STATUS_SUCCESS;
}
void register_hook(add_fn *slot); /* defined elsewhere: may store any function */
typedef void (*kernel_fn)(float *, const float *, int);
struct layer {
  add_fn forward;
};
// CHECK: * not resolved (handled conservatively):
// CHECK: call through function pointer 'dyn': which function it runs is not known {{.*}} stay at home (tidal_home before the call)
// CHECK: call through function pointer 'pick': which function it runs is not known
// CHECK: call through function pointer 'hook': which function it runs is not known
// CHECK: kernel 'add_kernel' launched through function pointer 'kp' (not instrumented as an op): its device pointers stay at home
// CHECK: call through std::function 'boxed': which function it runs is not followed
// CHECK-LABEL: int main(
int main(int argc, char **argv) {
  float *x, *y, *z;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&z, N * sizeof(float));
  cudnnHandle_t h;
  cudnnCreate(&h);
  cudnnTensorDescriptor_t xd;
  cudnnCreateTensorDescriptor(&xd);
  cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 32, 32);
  const float one = 1.0f;
  add_fn dyn = (add_fn)dlsym(dlopen("libcudnn.so", RTLD_NOW), "cudnnAddTensor");
  add_fn pick = argc > 1 ? cudnnAddTensor : my_add;
  add_fn hook = my_add;
  register_hook(&hook);
  layer mine = {my_add};
  kernel_fn kp = add_kernel;
  std::function<cudnnStatus_t(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t,
                              const void *, const void *, const cudnnTensorDescriptor_t, void *)>
      boxed = cudnnAddTensor;
  for (int step = 0; step < 4; step++) {
// CHECK: { TIDAL_CHECK(tidal_home((const void *)(x))); TIDAL_CHECK(tidal_home((const void *)(z))); /* tidal: stays at home: the call through function pointer 'dyn', whose target tidal cannot tell, may use or keep the address outside every op */
// CHECK-NEXT: #line
// CHECK-NEXT: dyn(h, &one, xd, x, &one, xd, z); }
    dyn(h, &one, xd, x, &one, xd, z);
// CHECK: { TIDAL_CHECK(tidal_home((const void *)(y))); TIDAL_CHECK(tidal_home((const void *)(z))); /* tidal: stays at home: the call through function pointer 'pick'
// CHECK-NEXT: #line
// CHECK-NEXT: pick(h, &one, xd, y, &one, xd, z); }
    pick(h, &one, xd, y, &one, xd, z);
// CHECK: { TIDAL_CHECK(tidal_home((const void *)(x))); TIDAL_CHECK(tidal_home((const void *)(y))); /* tidal: stays at home: the call through function pointer 'hook'
// CHECK-NEXT: #line
// CHECK-NEXT: hook(h, &one, xd, x, &one, xd, y); }
    hook(h, &one, xd, x, &one, xd, y);
// CHECK: { TIDAL_CHECK(tidal_home((const void *)(z))); TIDAL_CHECK(tidal_home((const void *)(x))); /* tidal: stays at home: kernel 'add_kernel' launched through function pointer 'kp'
// CHECK-NEXT: #line
// CHECK-NEXT: kp<<<N / 256, 256>>>(z, x, N); }
    kp<<<N / 256, 256>>>(z, x, N);
// CHECK: { TIDAL_CHECK(tidal_home((const void *)(y))); TIDAL_CHECK(tidal_home((const void *)(x))); /* tidal: stays at home: the call through std::function 'boxed'
// CHECK-NEXT: #line
// CHECK-NEXT: boxed(h, &one, xd, y, &one, xd, x); }
    boxed(h, &one, xd, y, &one, xd, x);
// CHECK-NOT: tidal_home
// CHECK: mine.forward(h, &one, xd, y, &one, xd, x);
    mine.forward(h, &one, xd, y, &one, xd, x);
  }
  return 0;
}
