/* libcalls_nccl.c - the NCCL rows: collectives and point-to-point.
 *
 * Element size comes from the ncclDataType_t argument.  Buffers whose size
 * is a count times the number of ranks (AllGather's receive, ReduceScatter's
 * send, AlltoAll, Gather/Scatter on the root) are unknown: the communicator
 * size is a run-time value the call does not carry.  Receives that only the
 * root writes are upper bounds (LIBCALLS_INEXACT).  Reductions are flagged
 * nondeterministic: the summation order depends on the topology.
 * Signatures: nccl.h (2.2x). */
#include "analysis/libcalls_table.h"

#define NONDET LIBCALL_NONDETERMINISTIC
#define CNT(role, arg, mode, count, dt, opts) LC_CNT(role, arg, mode, LC_DT(dt, NCCL), count, opts)

const libcalls_row libcalls_nccl_rows[] = {
    /* (send, recv, count, dt, op, comm, stream) */
    LC_OP_ROW("ncclAllReduce", NCCL, 7, NONDET, libcalls_flops_zero, LC_NOP,
              CNT("send", 0, READ, 2, 3, 0), CNT("recv", 1, WRITE, 2, 3, 0)),
    /* (send, recv, count, dt, root, comm, stream): send is read on the root only */
    LC_OP_ROW("ncclBroadcast", NCCL, 7, 0, libcalls_flops_zero, LC_NOP,
              CNT("send", 0, READ, 2, 3, LIBCALLS_INEXACT), CNT("recv", 1, WRITE, 2, 3, 0)),
    /* (buff, count, dt, root, comm, stream): in place */
    LC_OP_ROW("ncclBcast", NCCL, 6, 0, libcalls_flops_zero, LC_NOP, CNT("buff", 0, READWRITE, 1, 2, 0)),
    /* (send, recv, count, dt, op, root, comm, stream): recv written on the root only */
    LC_OP_ROW("ncclReduce", NCCL, 8, NONDET, libcalls_flops_zero, LC_NOP,
              CNT("send", 0, READ, 2, 3, 0),
              CNT("recv", 1, WRITE, 2, 3, LIBCALLS_INEXACT | LIBCALLS_OPTIONAL)),
    /* (send, recv, sendcount, dt, comm, stream): recv holds sendcount*nranks */
    LC_OP_ROW("ncclAllGather", NCCL, 6, 0, libcalls_flops_zero, LC_NOP,
              CNT("send", 0, READ, 2, 3, 0), LC_UNK("recv", 1, WRITE)),
    /* (send, recv, recvcount, dt, op, comm, stream): send holds recvcount*nranks */
    LC_OP_ROW("ncclReduceScatter", NCCL, 7, NONDET, libcalls_flops_zero, LC_NOP,
              LC_UNK("send", 0, READ), CNT("recv", 1, WRITE, 2, 3, 0)),
    /* (send, recv, count, dt, comm, stream): count per peer */
    LC_OP_ROW("ncclAlltoAll", NCCL, 6, 0, libcalls_flops_zero, LC_NOP,
              LC_UNK("send", 0, READ), LC_UNK("recv", 1, WRITE)),
    /* (send, recv, count, dt, root, comm, stream) */
    LC_OP_ROW("ncclGather", NCCL, 7, 0, libcalls_flops_zero, LC_NOP,
              CNT("send", 0, READ, 2, 3, 0), LC_UNK("recv", 1, WRITE)),
    LC_OP_ROW("ncclScatter", NCCL, 7, 0, libcalls_flops_zero, LC_NOP,
              LC_UNK("send", 0, READ), CNT("recv", 1, WRITE, 2, 3, 0)),
    /* (send, count, dt, peer, comm, stream) / (recv, count, dt, peer, comm, stream) */
    LC_OP_ROW("ncclSend", NCCL, 6, 0, libcalls_flops_zero, LC_NOP, CNT("send", 0, READ, 1, 2, 0)),
    LC_OP_ROW("ncclRecv", NCCL, 6, 0, libcalls_flops_zero, LC_NOP, CNT("recv", 0, WRITE, 1, 2, 0)),
    LC_TABLE_END,
};
