// A guard on a sum of several values bounds an index that contains the sum
// (Note [guarded sums]): llm.c's softmax reads its row's tail as
// x[4*pos + lane] under `if (4*pos + lane <= own)`.  Bounded term by term
// the read ran up to 31 elements past the last row.  A tile's
// thread_rank() evaluated twice is one value.
// RUN: %tidal kernels %s | FileCheck %s
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tail_lane(float *out, const float *inp, int N, int T) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  int own = idx % T;
  int pos = own / 4, lane = threadIdx.x % 32;
  if (4 * pos + lane <= own) out[idx] = inp[idx * T + 4 * pos + lane];
}
// CHECK-LABEL: kernel tail_lane
// CHECK: param inp: mode=read extent=(min(4*N*T - 4,

__global__ void tail_tile(float *out, const float *inp, int N, int T) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  int own = idx % T;
  int pos = own / 4;
  if (4 * pos + warp.thread_rank() <= own) out[idx] = inp[idx * T + 4 * pos + warp.thread_rank()];
}
// CHECK-LABEL: kernel tail_tile
// CHECK: param inp: mode=read extent=(min(4*N*T - 4,

// Outside the guard's scope the sum is not bounded by it.
__global__ void after_guard(float *out, const float *inp, int N, int T) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  int a = threadIdx.x % 8, b = threadIdx.x % 16;
  if (a + b < T) out[idx] = 1.0f;
  out[idx] = inp[a + b];
}
// CHECK-LABEL: kernel after_guard
// CHECK: param inp: mode=read extent=23 elem=float
