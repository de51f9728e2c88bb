/* tidal/cudnn.h - cuDNN calls that `tidal rewrite` may run over pieces of
 * the batch.
 *
 * Note [batch split] (runtime/policy/split.c has the size rule)
 * Pooling, activation and softmax compute each sample of their outputs
 * from the same sample of their inputs alone.  One such call over a batch
 * of n samples is the same as calls over consecutive pieces [o, o + l) of
 * it, each tensor's descriptor narrowed to l samples (same strides) and its
 * pointer advanced by o samples.  So a call whose tensors together take
 * more than half the budget (the corpus LeNet's cudnnPoolingBackward reads
 * x, y, dy and writes dx: 50.2% of the program's bytes) still runs under
 * it.  The rewriter calls tidal_cudnnPoolingBackward(&site, n, acc, ...)
 * where the program called cudnnPoolingBackward(...); acc is what the pass
 * declares for the whole call, one access per tensor in argument order.
 *
 * The call runs whole, exactly as the plain rewrite runs it (acc declared,
 * each pointer through tidal_at), unless every check holds:
 *   - tidal_split_batch says pieces (runtime/policy/split.c);
 *   - every tensor is declared: acc[i].ptr is the call's i-th tensor
 *     pointer, so each is inside a tidal allocation and each piece's mode
 *     is the pass's (a write only where it proved beta == 0);
 *   - every descriptor is 4-d (cudnnGetTensor4dDescriptor), all with the
 *     same n, and packed along n: its size in bytes is n times the size of
 *     the same descriptor with n = 1, so sample k starts k sample-sizes in.
 * Then piece [o, o + l) declares, per tensor, its pointer + o samples for l
 * samples, with the pass's mode, and calls the routine with the narrowed
 * descriptors and tidal_at of the advanced pointers.  A failing piece
 * stops the loop and its status is returned, as the one call's would be.
 *
 * Assumed, not checked: cuDNN computes a sample the same way whatever the
 * batch size (these routines have no cross-sample reduction; the GPU check
 * compares the rewritten LeNet's classification error with the original's).  The
 * narrowed descriptors are made only for a call that splits: created,
 * sized and destroyed once per call, set once per piece.
 *
 * Compiled into the rewritten program (C or C++), which links cuDNN
 * already; the rewriter includes this header only when it calls one of
 * these wrappers.  Failures of tidal_op_begin/op_end exit as in
 * tidal/rewrite.h. */
#ifndef TIDAL_CUDNN_H
#define TIDAL_CUDNN_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudnn.h>
#include "tidal.h"
#include "tidal/rewrite.h"

/* The routines are deprecated in cuDNN 9 (the legacy API); the program's
 * own call already warned. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#define TIDAL_CUDNN_MAX_TENSORS 4

/* One call's pieces.  Internal to the wrappers below. */
typedef struct tidal_cudnn_batch_ {
  tidal_site *site;
  int n_acc;
  const tidal_access *acc;          /* the pass's accesses: the whole call */
  int nt;                           /* tensors */
  cudnnTensorDescriptor_t whole[TIDAL_CUDNN_MAX_TENSORS];
  cudnnTensorDescriptor_t piece[TIDAL_CUDNN_MAX_TENSORS]; /* split: narrowed to the piece */
  const void *ptr[TIDAL_CUDNN_MAX_TENSORS];
  size_t sample[TIDAL_CUDNN_MAX_TENSORS]; /* bytes of one sample */
  int dims[TIDAL_CUDNN_MAX_TENSORS][7];   /* c, h, w, nStride, cStride, hStride, wStride */
  cudnnDataType_t type[TIDAL_CUDNN_MAX_TENSORS];
  tidal_access pacc[TIDAL_CUDNN_MAX_TENSORS];
  size_t n, step, o, l;
  int split;                        /* 1: pieces; 0: the whole call */
} tidal_cudnn_batch_;

/* Why the call runs whole, or NULL when it splits: fills b's sizes.  The
 * common answer (it fits) costs one descriptor read per tensor: the
 * narrowed descriptors are made only for a call that would split. */
static inline const char *tidal_cudnn_batch_check_(tidal_cudnn_batch_ *b) {
  if (b->n_acc != b->nt || !b->acc) return "not every tensor is declared";
  size_t guess = 0;
  for (int i = 0; i < b->nt; i++) {
    int n, *d = b->dims[i];
    if (b->acc[i].ptr != b->ptr[i] || !b->ptr[i]) return "not every tensor is declared";
    if (cudnnGetTensor4dDescriptor(b->whole[i], &b->type[i], &n, &d[0], &d[1], &d[2], &d[3],
                                   &d[4], &d[5], &d[6]) != CUDNN_STATUS_SUCCESS)
      return "a descriptor is not 4-d";
    if (n <= 0 || (i > 0 && (size_t)n != b->n)) return "the tensors' batch sizes differ";
    b->n = (size_t)n;
    if (b->acc[i].bytes != TIDAL_EXTENT_UNKNOWN) guess += b->acc[i].bytes / b->n;
  }
  if (guess && tidal_split_batch(b->n, guess) >= b->n) return "it fits";
  /* extents the pass did not know: without a budget nothing is split, so
   * the descriptors are not asked (the largest sample splits under any) */
  if (!guess && tidal_split_batch(b->n, (size_t)-1 / b->n) >= b->n) return "no budget";
  size_t per_sample = 0;
  for (int i = 0; i < b->nt; i++) {
    const int *d = b->dims[i];
    size_t whole = 0, one = 0;
    if (cudnnGetTensorSizeInBytes(b->whole[i], &whole) != CUDNN_STATUS_SUCCESS ||
        cudnnCreateTensorDescriptor(&b->piece[i]) != CUDNN_STATUS_SUCCESS)
      return "cuDNN refused a query";
    if (cudnnSetTensor4dDescriptorEx(b->piece[i], b->type[i], 1, d[0], d[1], d[2], d[3], d[4],
                                     d[5], d[6]) != CUDNN_STATUS_SUCCESS ||
        cudnnGetTensorSizeInBytes(b->piece[i], &one) != CUDNN_STATUS_SUCCESS || one == 0)
      return "cuDNN refused a narrowed descriptor";
    if (whole != b->n * one) return "a tensor is not packed along the batch";
    b->sample[i] = one;
    per_sample += one;
  }
  b->step = tidal_split_batch(b->n, per_sample);
  return b->step < b->n ? NULL : "it fits";
}

static inline void tidal_cudnn_batch_init_(tidal_cudnn_batch_ *b, tidal_site *site, int n_acc,
                                           const tidal_access *acc, int nt,
                                           const cudnnTensorDescriptor_t *descs,
                                           const void *const *ptrs) {
  memset(b, 0, sizeof *b);
  b->site = site;
  b->n_acc = n_acc;
  b->acc = acc;
  b->nt = nt; /* at most TIDAL_CUDNN_MAX_TENSORS: the wrappers below */
  for (int i = 0; i < nt; i++) {
    b->whole[i] = descs[i];
    b->ptr[i] = ptrs[i];
  }
  b->split = tidal_cudnn_batch_check_(b) == NULL;
}

/* Opens the next piece (or the whole call): its descriptors and accesses. */
static inline void tidal_cudnn_batch_begin_(tidal_cudnn_batch_ *b) {
  if (!b->split) {
    TIDAL_OP_BEGIN(b->site, b->n_acc, b->acc);
    return;
  }
  b->l = b->n - b->o < b->step ? b->n - b->o : b->step;
  for (int i = 0; i < b->nt; i++) {
    const int *d = b->dims[i];
    if (cudnnSetTensor4dDescriptorEx(b->piece[i], b->type[i], (int)b->l, d[0], d[1], d[2], d[3],
                                     d[4], d[5], d[6]) != CUDNN_STATUS_SUCCESS) {
      fprintf(stderr, "%s:%d: tidal: %s: cuDNN refused the descriptor of a piece of %zu samples\n",
              b->site->file, b->site->line, b->site->label, b->l);
      exit(1);
    }
    b->pacc[i].ptr = (const char *)b->ptr[i] + b->o * b->sample[i];
    b->pacc[i].bytes = b->l * b->sample[i];
    b->pacc[i].mode = b->acc[i].mode;
  }
  TIDAL_OP_BEGIN(b->site, b->nt, b->pacc);
}

/* The descriptor and the address of tensor i in the open piece. */
static inline cudnnTensorDescriptor_t tidal_cudnn_desc_(const tidal_cudnn_batch_ *b, int i) {
  return b->split ? b->piece[i] : b->whole[i];
}
static inline void *tidal_cudnn_ptr_(const tidal_cudnn_batch_ *b, int i) {
  /* whole: as the plain rewrite passes it (home and foreign memory: itself) */
  return tidal_at(b->split ? b->pacc[i].ptr : b->ptr[i]);
}

/* Closes the open piece; 1 while another piece follows (st succeeded). */
static inline int tidal_cudnn_batch_end_(tidal_cudnn_batch_ *b, cudnnStatus_t st) {
  TIDAL_OP_END(b->site);
  if (!b->split) return 0;
  b->o += b->l;
  return st == CUDNN_STATUS_SUCCESS && b->o < b->n;
}

static inline void tidal_cudnn_batch_fini_(tidal_cudnn_batch_ *b) {
  for (int i = 0; i < b->nt; i++)
    if (b->piece[i]) cudnnDestroyTensorDescriptor(b->piece[i]);
}

/* The wrappers: the routine's own parameters after the site and the pass's
 * accesses.  D(i), P(i): tensor i's descriptor and address in the piece. */
#define TIDAL_CUDNN_D_(i) tidal_cudnn_desc_(&tidal_b_, (i))
#define TIDAL_CUDNN_P_(i) tidal_cudnn_ptr_(&tidal_b_, (i))
#define TIDAL_CUDNN_RUN_(nt, descs, ptrs, call)                                              \
  tidal_cudnn_batch_ tidal_b_;                                                               \
  const cudnnTensorDescriptor_t tidal_d_[nt] = descs;                                        \
  const void *const tidal_p_[nt] = ptrs;                                                     \
  cudnnStatus_t tidal_st_;                                                                   \
  tidal_cudnn_batch_init_(&tidal_b_, site, n_acc, acc, (nt), tidal_d_, tidal_p_);            \
  do {                                                                                       \
    tidal_cudnn_batch_begin_(&tidal_b_);                                                     \
    tidal_st_ = (call);                                                                      \
  } while (tidal_cudnn_batch_end_(&tidal_b_, tidal_st_));                                    \
  tidal_cudnn_batch_fini_(&tidal_b_);                                                        \
  return tidal_st_
#define TIDAL_CUDNN_LIST_(...) {__VA_ARGS__}

static inline cudnnStatus_t tidal_cudnnPoolingForward(
    tidal_site *site, int n_acc, const tidal_access *acc, cudnnHandle_t handle,
    const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t yDesc, void *y) {
  TIDAL_CUDNN_RUN_(2, TIDAL_CUDNN_LIST_(xDesc, yDesc), TIDAL_CUDNN_LIST_(x, y),
                   cudnnPoolingForward(handle, poolingDesc, alpha, TIDAL_CUDNN_D_(0),
                                       TIDAL_CUDNN_P_(0), beta, TIDAL_CUDNN_D_(1),
                                       TIDAL_CUDNN_P_(1)));
}

static inline cudnnStatus_t tidal_cudnnPoolingBackward(
    tidal_site *site, int n_acc, const tidal_access *acc, cudnnHandle_t handle,
    const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
    const cudnnTensorDescriptor_t yDesc, const void *y, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx) {
  TIDAL_CUDNN_RUN_(4, TIDAL_CUDNN_LIST_(yDesc, dyDesc, xDesc, dxDesc),
                   TIDAL_CUDNN_LIST_(y, dy, x, dx),
                   cudnnPoolingBackward(handle, poolingDesc, alpha, TIDAL_CUDNN_D_(0),
                                        TIDAL_CUDNN_P_(0), TIDAL_CUDNN_D_(1), TIDAL_CUDNN_P_(1),
                                        TIDAL_CUDNN_D_(2), TIDAL_CUDNN_P_(2), beta,
                                        TIDAL_CUDNN_D_(3), TIDAL_CUDNN_P_(3)));
}

static inline cudnnStatus_t tidal_cudnnActivationForward(
    tidal_site *site, int n_acc, const tidal_access *acc, cudnnHandle_t handle,
    cudnnActivationDescriptor_t activationDesc, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t yDesc, void *y) {
  TIDAL_CUDNN_RUN_(2, TIDAL_CUDNN_LIST_(xDesc, yDesc), TIDAL_CUDNN_LIST_(x, y),
                   cudnnActivationForward(handle, activationDesc, alpha, TIDAL_CUDNN_D_(0),
                                          TIDAL_CUDNN_P_(0), beta, TIDAL_CUDNN_D_(1),
                                          TIDAL_CUDNN_P_(1)));
}

static inline cudnnStatus_t tidal_cudnnActivationBackward(
    tidal_site *site, int n_acc, const tidal_access *acc, cudnnHandle_t handle,
    cudnnActivationDescriptor_t activationDesc, const void *alpha,
    const cudnnTensorDescriptor_t yDesc, const void *y, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx) {
  TIDAL_CUDNN_RUN_(4, TIDAL_CUDNN_LIST_(yDesc, dyDesc, xDesc, dxDesc),
                   TIDAL_CUDNN_LIST_(y, dy, x, dx),
                   cudnnActivationBackward(handle, activationDesc, alpha, TIDAL_CUDNN_D_(0),
                                           TIDAL_CUDNN_P_(0), TIDAL_CUDNN_D_(1), TIDAL_CUDNN_P_(1),
                                           TIDAL_CUDNN_D_(2), TIDAL_CUDNN_P_(2), beta,
                                           TIDAL_CUDNN_D_(3), TIDAL_CUDNN_P_(3)));
}

static inline cudnnStatus_t tidal_cudnnSoftmaxForward(
    tidal_site *site, int n_acc, const tidal_access *acc, cudnnHandle_t handle,
    cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t yDesc, void *y) {
  TIDAL_CUDNN_RUN_(2, TIDAL_CUDNN_LIST_(xDesc, yDesc), TIDAL_CUDNN_LIST_(x, y),
                   cudnnSoftmaxForward(handle, algo, mode, alpha, TIDAL_CUDNN_D_(0),
                                       TIDAL_CUDNN_P_(0), beta, TIDAL_CUDNN_D_(1),
                                       TIDAL_CUDNN_P_(1)));
}

static inline cudnnStatus_t tidal_cudnnSoftmaxBackward(
    tidal_site *site, int n_acc, const tidal_access *acc, cudnnHandle_t handle,
    cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const void *alpha,
    const cudnnTensorDescriptor_t yDesc, const void *y, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx) {
  TIDAL_CUDNN_RUN_(3, TIDAL_CUDNN_LIST_(yDesc, dyDesc, dxDesc), TIDAL_CUDNN_LIST_(y, dy, dx),
                   cudnnSoftmaxBackward(handle, algo, mode, alpha, TIDAL_CUDNN_D_(0),
                                        TIDAL_CUDNN_P_(0), TIDAL_CUDNN_D_(1), TIDAL_CUDNN_P_(1),
                                        beta, TIDAL_CUDNN_D_(2), TIDAL_CUDNN_P_(2)));
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif /* TIDAL_CUDNN_H */
