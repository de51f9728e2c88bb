// Note [member calls] (kernels_call.c): the object of `o.m()` / `p->m()` is an
// access of its own.  A const method reads it, another method may write it
// (readwrite) unless its body is here, which is then analysed inline with
// `this` bound to the object (a field through the implicit `this` is the
// whole element).  The callee of a member call has clang's placeholder
// "bound member function" type; the conversion `(float)src[i]` is one too.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

struct Acc {
  float v;
  __device__ float get() const { return v; }
  __device__ void set(float x) { v = x; }
  __device__ void bump(float x) { v += x; }
  __device__ operator float() const { return v; }
};
struct Opaque { /* methods without a body in this file */
  float v;
  __device__ float peek() const;
  __device__ void poke(float x);
};

__global__ void member_calls(float *out, Acc *acc, const Acc *src, Acc *dst, Opaque *o,
                             const Opaque *q, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  acc[i].bump(src[i].get());
  out[i] = (float)src[N + i] + q[i].peek();
  (dst + i)->set(1.0f);
  o[i].poke(1.0f);
}
// CHECK-LABEL: kernel member_calls
// CHECK-NEXT: param out: mode=write extent=N elem=float
// CHECK-NEXT: param acc: mode=readwrite extent=N elem=Acc bytes=4
// CHECK-NEXT: param src: mode=read extent=2*N elem=Acc bytes=4
// CHECK-NEXT: param dst: mode=write extent=N elem=Acc bytes=4
// CHECK-NEXT: param o: mode=readwrite extent=N elem=Opaque bytes=4
// CHECK-NEXT: param q: mode=read extent=N elem=Opaque bytes=4
