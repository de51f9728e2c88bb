// Kernels that are not elementwise over their count are never split, and
// `tidal kernels` says why (split.c, Note [elementwise split]): a neighbour
// element, a pointer handed to a helper, shared memory and a barrier, curand
// state, the index in arithmetic, a second launch dimension, a count the
// body changes or reads, a bound that is not a parameter.
// RUN: %tidal kernels %s -- %stubflags -include curand_kernel.h | FileCheck %s
// RUN: %tidal kernels %s --format json -- %stubflags -include curand_kernel.h | FileCheck %s --check-prefix=JSON

__global__ void shift_left(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1];
}
// CHECK-LABEL: kernel shift_left
// CHECK: split: no why="'in' indexed by other than 'i'"
// JSON: "name": "shift_left", {{.*}}"split": null, "split_why": "'in' indexed by other than 'i'",

__device__ float load(const float *p, int i) { return p[i]; }
__global__ void via_helper(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = load(in, i);
}
// CHECK-LABEL: kernel via_helper
// CHECK: split: no why="passes a pointer to 'load'"

__global__ void staged(float *out, const float *in, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[255 - threadIdx.x];
}
// CHECK-LABEL: kernel staged
// CHECK: split: no why="__shared__ memory ('tile')"

__global__ void synced(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __syncthreads();
  out[i] = 0.0f;
}
// CHECK-LABEL: kernel synced
// CHECK: split: no why="calls '__syncthreads'"

__global__ void dropout(float *out, const float *in, curandState *states, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = curand_uniform(&states[i]) < 0.9f ? in[i] : 0.0f;
}
// CHECK-LABEL: kernel dropout
// CHECK: split: no why="uses curand state"

__global__ void bias_add(float *out, const float *bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += bias[i % 64];
}
// CHECK-LABEL: kernel bias_add
// CHECK: split: no why="'bias' indexed by other than 'i'"

__global__ void parity(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (i % 2) ? 1.0f : -1.0f;
}
// CHECK-LABEL: kernel parity
// CHECK: split: no why="index 'i' used other than as a subscript"

__global__ void rows(float *out, int n, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  if (i < n) out[row * C + i] = 0.0f;
}
// CHECK-LABEL: kernel rows
// CHECK: split: no why="uses blockIdx beyond the global index"

__global__ void halve_count(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  n = n / 2;
  out[i] = 1.0f;
}
// CHECK-LABEL: kernel halve_count
// CHECK: split: no why="count 'n' assigned in the body"

__global__ void mean_fill(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] / n;
}
// CHECK-LABEL: kernel mean_fill
// CHECK: split: no why="count 'n' used other than in the bound"

__global__ void product_bound(float *out, const float *in, int B, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int total = B * C;
  if (i >= total) return;
  out[i] = in[i];
}
// CHECK-LABEL: kernel product_bound
// CHECK: split: no why="bound 'total' of 'i' is not an integer parameter"

__global__ void grid_stride_exit(float *out, const float *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (in[i] < 0.0f) break;
    out[i] = in[i];
  }
}
// CHECK-LABEL: kernel grid_stride_exit
// CHECK: split: no why="break out of the grid-stride loop"

__global__ void block_sum(float *out, const float *in, int n) {
  float s = 0.0f;
  for (int k = threadIdx.x; k < n; k += blockDim.x) s += in[k];
  out[blockIdx.x] = s;
}
// CHECK-LABEL: kernel block_sum
// CHECK: split: no why="no global index 'blockIdx.x * blockDim.x + threadIdx.x' with a bound or a grid-stride loop"
