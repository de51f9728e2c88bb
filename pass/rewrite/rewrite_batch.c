/* rewrite_batch.c - cuDNN calls that may run over pieces of their batch.
 *
 * Note [batch split call]
 * A call of a per-sample cuDNN routine (LIBCALL_BATCH_SPLIT: pooling,
 * activation, softmax) becomes a call of its wrapper in tidal/cudnn.h
 * (Note [batch split] there), with the site and the accesses the pass
 * declares for the whole call in front of the routine's own arguments:
 *
 *   { static tidal_site S = ...;  const tidal_access A[k] = {...};
 *     checkCUDNN(tidal_cudnnPoolingBackward(&S, k, A, handle, pool, ...)); }
 *
 * The statement keeps its place, its macros and its result; two insertions
 * inside it ("tidal_" before the callee's name, the three arguments after
 * its parenthesis) at the places they are written, so a call inside a
 * macro's argument (`checkCUDNN(cudnnPoolingBackward(...))`, the corpus
 * LeNet) is rewritten too.  The wrapper opens and closes the op itself
 * (once, or once per piece) and passes each tensor through tidal_at, so
 * the arguments are not wrapped in TIDAL_AT here.  The wrapper decides at
 * run time, from the descriptors and the budget; the graph's split_batch
 * (graph/opsites.c, Note [batch split ops]) is what `tidal replay` and the
 * plan model, and they make the same tidal_split_batch call.
 *
 * The call stays a plain op (TIDAL_OP_BEGIN around it) when: --no-split;
 * the statement holds another op call; the callee's name is not written
 * in this file as the name followed by '(' (a macro builds the call, a
 * function pointer, a qualified name).  The wrapper needs nothing from
 * the analysis beyond the accesses the plain op declares. */
#include <ctype.h>
#include <string.h>

#include "analysis/libcalls.h"
#include "rewrite/rewrite.h"

int rw_batch_plan(const graph *g, const graph_site *site, const char *src, size_t src_n,
                  rw_batch *out) {
  memset(out, 0, sizeof *out);
  const libcall_info *li = site->callee ? libcall_find(site->callee) : NULL;
  if (!li || !(li->flags & LIBCALL_BATCH_SPLIT) || g->no_split || site->n_calls != 1 ||
      !site->call_spell_in_file || site->skip)
    return 0;
  size_t n = strlen(site->callee), at = site->call_spell;
  if (at + n > src_n || strncmp(src + at, site->callee, n) != 0) return 0;
  if (at > 0 && (isalnum((unsigned char)src[at - 1]) || src[at - 1] == '_' || src[at - 1] == ':'))
    return 0;
  size_t p = at + n;
  while (p < src_n && isspace((unsigned char)src[p]))
    p++;
  if (p >= src_n || src[p] != '(') return 0;
  out->name_begin = (unsigned)at;
  out->args_begin = (unsigned)(p + 1);
  return 1;
}
