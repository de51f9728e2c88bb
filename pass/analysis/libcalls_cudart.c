/* libcalls_cudart.c - the CUDA runtime rows: copies, sets, allocations.
 *
 * Copies depend on their cudaMemcpyKind: only a device side is a device
 * access (LIBCALLS_DST_DEVICE / SRC_DEVICE name the side, .aux the kind
 * argument).  cudaMemcpyDefault, or a kind we cannot read, keeps both sides
 * as possible device accesses with exact = 0; the walker ignores a side
 * that resolves to no device region.  Pinned host allocations carry
 * LIBCALL_HOST_ALLOC so they are never mistaken for device tensors.
 * Signatures: CUDA 13 cuda_runtime_api.h. */
#include "analysis/libcalls_table.h"

#define KIND_DST(role, arg, bytes, kind) \
  LC_ACC(role, arg, WRITE, libcalls_size_arg, LC_E(1), LIBCALLS_DST_DEVICE, kind, bytes, -1, -1, -1, -1, -1)
#define KIND_SRC(role, arg, bytes, kind) \
  LC_ACC(role, arg, READ, libcalls_size_arg, LC_E(1), LIBCALLS_SRC_DEVICE, kind, bytes, -1, -1, -1, -1, -1)
/* pitched 2-D: p0 pitch, p1 width (bytes), p2 height */
#define KIND_DST2D(role, arg, pitch, width, height, kind) \
  LC_ACC(role, arg, WRITE, libcalls_size_pitched, LC_E(1), LIBCALLS_DST_DEVICE, kind, pitch, width, height, -1, -1, -1)
#define KIND_SRC2D(role, arg, pitch, width, height, kind) \
  LC_ACC(role, arg, READ, libcalls_size_pitched, LC_E(1), LIBCALLS_SRC_DEVICE, kind, pitch, width, height, -1, -1, -1)
#define BYTES(role, arg, mode, bytes) \
  LC_ACC(role, arg, mode, libcalls_size_arg, LC_E(1), 0, -1, bytes, -1, -1, -1, -1, -1)
#define PITCHED(role, arg, mode, pitch, width, height) \
  LC_ACC(role, arg, mode, libcalls_size_pitched, LC_E(1), 0, -1, pitch, width, height, -1, -1, -1)

const libcalls_row libcalls_cudart_rows[] = {
    /* cudaMemcpy(dst, src, count, kind) */
    LC_OP_ROW("cudaMemcpy", CUDART, 4, LIBCALL_HOST_SYNC, libcalls_flops_zero, LC_NOP,
              KIND_DST("dst", 0, 2, 3), KIND_SRC("src", 1, 2, 3)),
    LC_OP_ROW("cudaMemcpyAsync", CUDART, 5, 0, libcalls_flops_zero, LC_NOP,
              KIND_DST("dst", 0, 2, 3), KIND_SRC("src", 1, 2, 3)),
    /* cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind) */
    LC_OP_ROW("cudaMemcpy2D", CUDART, 7, LIBCALL_HOST_SYNC, libcalls_flops_zero, LC_NOP,
              KIND_DST2D("dst", 0, 1, 4, 5, 6), KIND_SRC2D("src", 2, 3, 4, 5, 6)),
    LC_OP_ROW("cudaMemcpy2DAsync", CUDART, 8, 0, libcalls_flops_zero, LC_NOP,
              KIND_DST2D("dst", 0, 1, 4, 5, 6), KIND_SRC2D("src", 2, 3, 4, 5, 6)),
    /* cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count): both device */
    LC_OP_ROW("cudaMemcpyPeer", CUDART, 5, 0, libcalls_flops_zero, LC_NOP,
              BYTES("dst", 0, WRITE, 4), BYTES("src", 2, READ, 4)),
    LC_OP_ROW("cudaMemcpyPeerAsync", CUDART, 6, 0, libcalls_flops_zero, LC_NOP,
              BYTES("dst", 0, WRITE, 4), BYTES("src", 2, READ, 4)),
    /* cudaMemset(devPtr, value, count) */
    LC_OP_ROW("cudaMemset", CUDART, 3, 0, libcalls_flops_zero, LC_NOP, BYTES("dst", 0, WRITE, 2)),
    LC_OP_ROW("cudaMemsetAsync", CUDART, 4, 0, libcalls_flops_zero, LC_NOP, BYTES("dst", 0, WRITE, 2)),
    /* cudaMemset2D(devPtr, pitch, value, width, height) */
    LC_OP_ROW("cudaMemset2D", CUDART, 5, 0, libcalls_flops_zero, LC_NOP, PITCHED("dst", 0, WRITE, 1, 3, 4)),
    LC_OP_ROW("cudaMemset2DAsync", CUDART, 6, 0, libcalls_flops_zero, LC_NOP, PITCHED("dst", 0, WRITE, 1, 3, 4)),

    /* Allocations: (pointer-receiving argument, size argument). */
    LC_ALLOC_ROW("cudaMalloc", CUDART, 2, LIBCALL_ALLOC, 0, 1),
    LC_ALLOC_ROW("cudaMallocAsync", CUDART, 3, LIBCALL_ALLOC, 0, 1),
    LC_ALLOC_ROW("cudaMallocFromPoolAsync", CUDART, 4, LIBCALL_ALLOC, 0, 1),
    LC_ALLOC_ROW("cudaMallocManaged", CUDART, 3, LIBCALL_ALLOC | LIBCALL_MANAGED, 0, 1),
    LC_ALLOC_ROW("cudaFree", CUDART, 1, LIBCALL_FREE, 0, -1),
    LC_ALLOC_ROW("cudaFreeAsync", CUDART, 2, LIBCALL_FREE, 0, -1),
    LC_ALLOC_ROW("cudaMallocHost", CUDART, 2, LIBCALL_ALLOC | LIBCALL_HOST_ALLOC, 0, 1),
    LC_ALLOC_ROW("cudaHostAlloc", CUDART, 3, LIBCALL_ALLOC | LIBCALL_HOST_ALLOC, 0, 1),
    LC_ALLOC_ROW("cudaFreeHost", CUDART, 1, LIBCALL_FREE | LIBCALL_HOST_ALLOC, 0, -1),
    LC_TABLE_END,
};
