/* tidal/rewrite.h - small helpers that `tidal rewrite` output calls.
 *
 * The rewritten program checks every libtidal call it was given.  A failure
 * in an op's declared accesses, the iteration markers or tidal_init is a bug
 * the program cannot recover from, so these macros print the site, the
 * status string and tidal_last_error() and exit(1): the rewritten program
 * may exit; the library never does.
 *
 * This header is macros and small pure inline functions, so that it
 * needs nothing beyond tidal.h itself (and it compiles as C too: the sim
 * twins of the samples build the rewritten program as C): fprintf, stderr and exit are looked
 * up where a macro is expanded.  The rewriter includes <stdio.h> and
 * <stdlib.h> before this header; a hand-written user must do the same.
 * Nothing here is thread-safe beyond what the wrapped call promises. */
#ifndef TIDAL_REWRITE_H
#define TIDAL_REWRITE_H

#include <stddef.h>
#include <stdint.h>
#include "tidal.h"

/* Prints "FILE:LINE: tidal: WHAT: STATUS: LAST_ERROR" and exits 1. */
#define TIDAL_REWRITE_FAIL_(file, line, what, st)                                           \
  (fprintf(stderr, "%s:%d: tidal: %s: %s: %s\n", (file), (int)(line), (what),               \
           tidal_status_string(st), tidal_last_error()),                                    \
   exit(1))

/* Any tidal call whose failure is fatal, reported at the expansion point. */
#define TIDAL_CHECK(call)                                                                   \
  do {                                                                                      \
    tidal_status tidal_check_st_ = (call);                                                  \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      TIDAL_REWRITE_FAIL_(__FILE__, __LINE__, #call, tidal_check_st_);                      \
  } while (0)

/* tidal_op_begin/op_end for an op site: a failure names the site (its
 * label, original file and line) rather than the expansion point. */
#define TIDAL_OP_BEGIN(site, n, acc)                                                        \
  do {                                                                                      \
    tidal_status tidal_check_st_ = tidal_op_begin((site), (n), (acc));                      \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      TIDAL_REWRITE_FAIL_((site)->file, (site)->line, (site)->label, tidal_check_st_);      \
  } while (0)
#define TIDAL_OP_END(site)                                                                  \
  do {                                                                                      \
    tidal_status tidal_check_st_ = tidal_op_end(site);                                      \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      TIDAL_REWRITE_FAIL_((site)->file, (site)->line, (site)->label, tidal_check_st_);      \
  } while (0)

/* tidal_init(NULL) (defaults, then TIDAL_* from the environment) or exit. */
#define TIDAL_INIT_OR_EXIT()                                                                \
  do {                                                                                      \
    tidal_status tidal_check_st_ = tidal_init(NULL);                                        \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      TIDAL_REWRITE_FAIL_(__FILE__, __LINE__, "tidal_init", tidal_check_st_);               \
  } while (0)

/* tidal_shutdown where main returns: a failure - a trace or profile the
 * runtime could not write (docs/runtime-api.md), data it could not
 * release - is reported and exits 1, so a run whose requested output was
 * lost does not end in success. */
#define TIDAL_SHUTDOWN_OR_EXIT()                                                            \
  do {                                                                                      \
    tidal_status tidal_check_st_ = tidal_shutdown();                                        \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      TIDAL_REWRITE_FAIL_(__FILE__, __LINE__, "tidal_shutdown", tidal_check_st_);           \
  } while (0)

/* tidal_init with a compiled-in default budget ("512M", "50%": the plan's
 * budget) that TIDAL_BUDGET overrides: defaults, the budget, then the
 * TIDAL_* environment; exits on failure. */
#define TIDAL_INIT_WITH_BUDGET_OR_EXIT(budget_text)                                          \
  do {                                                                                      \
    tidal_config tidal_init_cfg_;                                                           \
    tidal_config_default(&tidal_init_cfg_);                                                 \
    tidal_status tidal_check_st_ = tidal_config_set_budget(&tidal_init_cfg_, (budget_text));\
    if (tidal_check_st_ == TIDAL_OK)                                                        \
      tidal_check_st_ = tidal_config_from_env(&tidal_init_cfg_);                            \
    if (tidal_check_st_ == TIDAL_OK)                                                        \
      tidal_check_st_ = tidal_init(&tidal_init_cfg_);                                       \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      TIDAL_REWRITE_FAIL_(__FILE__, __LINE__, "tidal_init", tidal_check_st_);               \
  } while (0)

/* Plan calls are hints: a failure is reported but never fatal, because
 * tidal_op_begin restores whatever a failed hint left missing. */
#define TIDAL_HINT(call)                                                                    \
  do {                                                                                      \
    tidal_status tidal_check_st_ = (call);                                                  \
    if (tidal_check_st_ != TIDAL_OK)                                                        \
      fprintf(stderr, "%s:%d: tidal: warning: %s: %s: %s\n", __FILE__, __LINE__, #call,     \
              tidal_status_string(tidal_check_st_), tidal_last_error());                    \
  } while (0)

/* The cudaError_t value (as an int) a replaced cudaMalloc/cudaFree returns,
 * so the program's own error checks keep working: 0 (cudaSuccess), 2
 * (cudaErrorMemoryAllocation) when memory ran out, else 1
 * (cudaErrorInvalidValue).  The values are the CUDA runtime's. */
static inline int tidal_rewrite_cuda_code(tidal_status st) {
  if (st == TIDAL_OK) return 0;
  if (st == TIDAL_ERR_DEVICE_MEMORY || st == TIDAL_ERR_HOST_MEMORY || st == TIDAL_ERR_BUDGET)
    return 2;
  return 1;
}

/* Slot for the status of the last replaced allocation call (one training
 * thread, see tidal.h), so the macro below can both report and convert. */
static inline tidal_status *tidal_rewrite_status_slot(void) {
  static tidal_status st;
  return &st;
}

/* Wraps tidal_malloc/tidal_free where cudaMalloc/cudaFree stood: prints
 * tidal's message on failure and yields the matching cudaError_t code. */
#define TIDAL_CUDA_STATUS(call)                                                             \
  ((*tidal_rewrite_status_slot() = (call)) == TIDAL_OK                                      \
       ? 0                                                                                  \
       : (fprintf(stderr, "%s:%d: tidal: %s: %s: %s\n", __FILE__, __LINE__, #call,           \
                  tidal_status_string(*tidal_rewrite_status_slot()), tidal_last_error()),   \
          tidal_rewrite_cuda_code(*tidal_rewrite_status_slot())))

/* A cudaFree whose pointer may not be tidal's (written in a template, where
 * the pass cannot tell): tidal_free for a tidal allocation, cudaFree for
 * anything else (memory tidal does not manage). */
#define TIDAL_CUDA_FREE(p)                                                                  \
  (tidal_owns((const void *)(p)) ? (cudaError_t)TIDAL_CUDA_STATUS(tidal_free((void *)(p)))  \
                                 : cudaFree((void *)(p)))

/* The program's cudaDeviceSynchronize (Note [the program's sync],
 * pass/rewrite/rewrite.c): waits for the program's work, not for tidal's
 * copies to and from the host store; cudaDeviceSynchronize itself before
 * tidal_init. */
#define TIDAL_CUDA_DEVICE_SYNCHRONIZE()                                                     \
  (tidal_is_initialized() ? (cudaError_t)TIDAL_CUDA_STATUS(tidal_device_synchronize())      \
                          : cudaDeviceSynchronize())

/* Split ops (docs/rewrite.md, "Split ops"): the elements a split launch
 * covers.  count is the value of the kernel's count argument (none when
 * negative); a kernel that needs one thread per element (grid_stride 0)
 * never reaches past grid_x * block_x threads, so its pieces stop there
 * too, as the launch did. */
static inline size_t tidal_split_count(long long count, unsigned int grid_x, unsigned int block_x,
                                       int grid_stride) {
  if (count <= 0) return 0;
  size_t n = (size_t)count, threads = (size_t)grid_x * block_x;
  return !grid_stride && threads < n ? threads : n;
}

/* grid.x of the launch of one piece of elems elements (elems > 0): one
 * thread per element, or for a grid-stride kernel its own grid.x when that
 * is smaller (every grid covers the piece).  A zero block is left to fail
 * the launch as it did. */
static inline unsigned int tidal_split_grid_x(unsigned int grid_x, unsigned int block_x,
                                              size_t elems, int grid_stride) {
  if (block_x == 0) return grid_x;
  size_t need = elems / block_x + (elems % block_x != 0);
  if (need == 0) need = 1;
  if (grid_stride && grid_x < need) return grid_x;
  return (unsigned int)need;
}

#endif /* TIDAL_REWRITE_H */
