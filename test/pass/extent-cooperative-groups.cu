// Issue 8, idiom 14: cooperative-groups indexing.  A thread_block_tile<N>'s
// thread_rank() is in [0, N) and its size() is N; other group queries
// (meta_group_rank(), meta_group_size(), a block's thread_rank()) return
// unsigned values, so they are >= 0 and a guard bounds them.  Real toolkit
// headers (cooperative_groups.h).
// RUN: %tidal kernels %s | FileCheck %s
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// One warp per row, lanes striding over the row.
__global__ void row_sum(float *out, const float *inp, int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float *x = inp + idx * C;
  float s = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) s += x[i];
  if (warp.thread_rank() == 0) out[idx] = s;
}
// CHECK-LABEL: kernel row_sum
// CHECK-NEXT: param out: mode=write extent=N elem=float
// CHECK-NEXT: param inp: mode=read extent=N*C elem=float

// The lane alone bounds the column: no guard needed for it.
__global__ void lanes(float *out, int N) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row < N) out[row * warp.size() + warp.thread_rank()] = 1.0f;
}
// CHECK-LABEL: kernel lanes
// CHECK-NEXT: param out: mode=write extent=32*N elem=float

__global__ void block_rank(float *out, int N) {
  cg::thread_block block = cg::this_thread_block();
  int i = block.group_index().x * block.size() + block.thread_rank();
  if (i < N) out[i] = 0.0f;
}
// CHECK-LABEL: kernel block_rank
// CHECK-NEXT: param out: mode=write extent=N elem=float
