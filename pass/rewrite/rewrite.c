/* rewrite.c - `tidal rewrite`: instrumentation, plan calls and the header.
 *
 * Input: the parsed main file, its graph, and (unless --plan none or the
 * sizes are unbound) a plan made from the unrolled trace.  Output: the
 * original bytes with edits applied (rewrite_edits.c).  What goes where:
 *   offset 0              header comment (marker, plan summary, what the
 *                         analysis could not resolve), includes, #line 1
 *   main's '{'            TIDAL_INIT_OR_EXIT();
 *   each return of main   { TIDAL_SHUTDOWN_OR_EXIT(); return ...; }
 *   loop body '{' / '}'   tidal_iteration_begin / tidal_iteration_end, and
 *                         iteration_end before every continue/break/return
 *                         that leaves the iteration
 *   each op statement     { site; accesses; TIDAL_OP_BEGIN  stmt  TIDAL_OP_END }
 *   cudaMalloc/cudaFree   replaced by tidal_malloc/tidal_free
 *   plan actions          before/after the statement rw_plan_place chooses
 *                         (rewrite_place.c: the deepest call level on a
 *                         single call path where the range can be named),
 *                         else listed as not emitted in the header
 *   recompute closures    before the function that registers them
 * Priorities (rewrite.h) order insertions that share an offset so that
 * wrappers nest: iteration marker outside braces outside plan calls
 * outside the op wrapper. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/pack.h"
#include "base/diag.h"
#include "tidal.h" /* TIDAL_GROUP_ARENA */
#include "rewrite/rewrite.h"
#include "plan/candidates.h"

#ifndef TIDAL_VERSION
#define TIDAL_VERSION "unknown"
#endif

/* Priorities beyond rewrite.h's, for the loop markers and extra braces. */
enum {
  PRIO_BRACE_CLOSE = 25, /* after plan calls placed after a body statement */
  PRIO_LOOP_END = 30,
  PRIO_LOOP_BEGIN = 40,
  PRIO_BRACE_OPEN = 45
};

typedef struct rw {
  pass_tu *t;
  graph *g;
  const rw_request *req;
  const graph_file *file;  /* this file's edit points (graph.files) */
  const graph_site *sites; /* its op sites: sites[0..n_sites) */
  int n_sites;
  rw_split **split;  /* per site: how it runs in pieces (rewrite_split.c), or NULL */
  char **no_split;   /* per site: a split op it runs whole, and why, or NULL */
  rw_batch *batch;   /* per site: where its cuDNN call becomes its wrapper's (rewrite_batch.c) */
  char *is_batch;    /* per site: 1 if it does */
  int n_batch;
  int n_no_split;
  rw_placer placer;  /* where plan actions go (rewrite_place.c) */
  rw_lines lines;
  rw_edits edits;
  rw_buf notes;      /* "not resolved" lines for the header */
  rw_buf plan_lines; /* one line per action for the header */
  int emitted, skipped;
  int elsewhere;     /* actions emitted in another file of the program */
  int closures;
  const unsigned *pack; /* per graph allocation: packing group (plan/pack.h), or NULL */
  const tidal_trace *trace; /* the unrolled iteration pack was made from (sizes), or NULL */
  rw_buf guard_decls; /* declarations of the path flags (emit_guards) */
  unsigned *braced; /* statements given extra braces for plan calls */
  int n_braced;
  int sync_noted;    /* the note on cudaDeviceSynchronize left as written is in */
  int oom;
} rw;

int rw_is_tidal_output(const char *src, size_t n) {
  size_t lim = n < RW_MARKER_SCAN_BYTES ? n : RW_MARKER_SCAN_BYTES;
  size_t ml = strlen(RW_MARKER);
  for (size_t i = 0; i + ml <= lim; i++)
    if (!memcmp(src + i, RW_MARKER, ml)) return 1;
  return 0;
}

#define INEXACT_WRITE_NOTE "write not proven to cover every byte: declared readwrite"

static int inexact_write(const graph_site_access *a) {
  return a->mode == ACCESS_WRITE && !a->exact;
}

static void insert(rw *r, unsigned off, int prio, rw_buf *b) {
  if (b->oom) r->oom = 1;
  rw_edits_insert(&r->edits, off, prio, b->p ? b->p : "");
  rw_buf_free(b);
}

static void insert_s(rw *r, unsigned off, int prio, const char *s) {
  rw_edits_insert(&r->edits, off, prio, s);
}

/* ---- instrumentation ---- */

/* A split op (rewrite_split.c, Note [split launch]): the loop around the
 * launch, and the edits inside it. */
static void instrument_split_site(rw *r, int idx, const graph_site *s, const rw_split *sp) {
  rw_buf open = {0}, close = {0}, ind = {0};
  rw_line_indent(&r->lines, s->stmt_begin, &ind);
  rw_split_emit(&r->lines, s, sp, idx, ind.p ? ind.p : "", &open, &close);
  insert(r, s->stmt_begin, RW_PRIO_OPEN, &open);
  insert(r, s->stmt_end, RW_PRIO_CLOSE, &close);
  for (int i = 0; i < sp->n_edits; i++) {
    rw_buf b = {0};
    rw_split_edit_text(sp, idx, r->t->main_source, i, &b);
    if (b.oom) r->oom = 1;
    rw_edits_replace(&r->edits, sp->edits[i].begin, sp->edits[i].end, b.p ? b.p : "");
    rw_buf_free(&b);
  }
  rw_buf_free(&ind);
}

/* Note [relocatable allocations] (graph/relocatable.c): each pointer
 * argument the site declares an access through is passed as TIDAL_AT(arg),
 * the address the runtime resolved for it inside this op (the argument is
 * evaluated once; C keeps its type with __typeof__, C++ with a template). */
static void wrap_args(rw *r, const graph_site *s) {
  for (int i = 0; i < s->n_args; i++) {
    if (!graph_site_arg_wrapped(s, i)) continue;
    insert_s(r, s->args[i].wrap_begin, RW_PRIO_REPLACE - 1, "TIDAL_AT(");
    insert_s(r, s->args[i].wrap_end, RW_PRIO_CLOSE - 1, ")");
  }
}

/* Why access i of site s, which no wrapped argument passes, reaches the
 * op; NULL for a wrapped one or a repeated pointer text (one home each). */
static const char *home_reason(const graph_site *s, int i) {
  const graph_site_access *a = &s->acc[i];
  if (graph_site_acc_wrapped(s, i)) return NULL;
  for (int k = 0; k < i; k++)
    if (!graph_site_acc_wrapped(s, k) && !strcmp(s->acc[k].ptr, a->ptr)) return NULL;
  const graph_site_arg *ga = a->call == 0 && a->arg >= 0 && a->arg < s->n_args ? &s->args[a->arg]
                                                                               : NULL;
  return a->call != 0   ? "an op call after the first in the statement"
         : !ga          ? (s->args_array ? "the argument array of cudaLaunchKernel"
                                         : "a pointer a cuBLASLt descriptor carries")
         : !ga->pointer ? "a pointer field of a struct passed by value"
         : ga->holds_ptrs ? "an array of pointers"
                          : "an argument the rewriter cannot edit (a macro's text)";
}

/* Why value i of site s's homes (graph/sitehomes.c) reaches the op. */
static const char *extra_home_reason(const graph_site *s) {
  return s->args_array ? "the argument array of cudaLaunchKernel"
                       : "a pointer field of a struct passed by value";
}

/* How many pointers reach site s other than through TIDAL_AT, and *why
 * the first does (the command's warning, the header's note). */
static int homes_count(const graph_site *s, const char **why) {
  int n = 0;
  *why = NULL;
  for (int i = 0; i < s->n_acc; i++) {
    const char *w = home_reason(s, i);
    if (w && !n++) *why = w;
  }
  if (s->n_homes > 0 && !n) *why = extra_home_reason(s);
  return n + s->n_homes;
}

/* The accesses that reach the op another way than a wrapped argument (a
 * pointer field of a struct passed by value, an argument in a macro's
 * text, the argument array of cudaLaunchKernel, an op call after the first
 * in the statement), the pointers it is passed that no access declares
 * (graph/sitehomes.c, Note [pointer values at a site]), and what a
 * memcpy's `&p` source copies: their allocations go home before the op
 * begins, which the runtime makes exact whatever they point into at run
 * time. */
static void site_homes(rw *r, const graph_site *s, const char *in, rw_buf *b) {
  (void)r;
  for (int i = 0; i < s->n_acc; i++) {
    const char *why = home_reason(s, i);
    if (why)
      rw_buf_printf(b, "%s  TIDAL_CHECK(tidal_home((const void *)(%s))); /* tidal: stays at home: reaches the op "
                       "through %s, not TIDAL_AT */\n",
                    in, s->acc[i].ptr, why);
  }
  for (int i = 0; i < s->n_homes; i++)
    rw_buf_printf(b, "%s  TIDAL_CHECK(tidal_home((const void *)(%s))); /* tidal: stays at home: reaches the op "
                     "through %s, not TIDAL_AT */\n",
                  in, s->homes[i], extra_home_reason(s));
  for (int i = 0; i < s->n_args; i++) {
    const graph_site_arg *ga = &s->args[i];
    if (s->kind != GRAPH_OP_MEMCPY || i == 0 || !ga->home_text) continue;
    rw_buf_printf(b, "%s  TIDAL_CHECK(tidal_home((const void *)(%s))); /* tidal: stays at home: its address is "
                     "copied to the device */\n",
                  in, ga->home_text);
  }
}

/* The pointers a kernel is given that no access declares (s->homes: a
 * struct's fields, an array's elements in it, cudaLaunchKernel's struct
 * parameters) once more after TIDAL_OP_BEGIN: tidal_home inside the open op
 * keeps their allocations resident and pinned until TIDAL_OP_END (Note
 * [home residency], runtime/memory/homehold.c).  The calls before the op
 * (site_homes) send a relocatable allocation home before the op declares
 * any of it; the op's begin may evict what they restored, so the kernel's
 * residency comes from these. */
static void homes_in_op(const graph_site *s, const char *in, rw_buf *b) {
  for (int i = 0; i < s->n_homes; i++)
    rw_buf_printf(b, "\n%s  TIDAL_CHECK(tidal_home((const void *)(%s)));%s", in, s->homes[i],
                  i ? "" : " /* tidal: resident until the op ends: no access declares it */");
}

/* The header's note for a site that sends pointers home (site_homes). */
static void home_note(rw *r, const graph_site *s) {
  const char *why;
  int n = homes_count(s, &why);
  if (n == 0) return;
  rw_buf_printf(&r->notes, " *   %s:%u: %s: %d pointer%s reach%s the op through ", r->lines.path_c,
                s->line, s->label, n, n > 1 ? "s" : "", n > 1 ? "" : "es");
  rw_put_commented(&r->notes, why);
  rw_buf_puts(&r->notes, ", not TIDAL_AT: the allocations they point into stay at home "
                         "(tidal_home before the op)\n");
}

/* Note [escapes] (graph/escapes.c): before a call that may use or keep a
 * device address outside every op, the allocations it may reach go home. */
static void escape_homes(rw *r, const graph_escape *e) {
  if (!e->editable || e->why || e->n_homes == 0) return;
  rw_buf b = {0};
  if (e->braces) rw_buf_puts(&b, "{ ");
  for (int k = 0; k < e->n_homes; k++) {
    rw_buf_puts(&b, "TIDAL_CHECK(tidal_home((const void *)(");
    rw_buf_puts(&b, e->homes[k]);
    rw_buf_puts(&b, "))); ");
  }
  rw_buf_puts(&b, "/* tidal: stays at home: ");
  rw_put_commented(&b, e->callee);
  rw_buf_puts(&b, " may use or keep the address outside every op */");
  rw_line_restore(&r->lines, e->stmt_begin, &b);
  insert(r, e->stmt_begin, RW_PRIO_BEFORE + 1, &b);
  if (e->braces) insert_s(r, e->stmt_end, RW_PRIO_CLOSE + 5, " }");
}

/* The site's accesses (tidal_acc_IDX, the pass's declaration of the whole
 * op) and the tidal_home calls before it. */
static void site_accesses(rw *r, int idx, const graph_site *s, const char *in, rw_buf *open) {
  const rw_lines *L = &r->lines;
  if (s->n_acc > 0) {
    rw_buf_printf(open, "%s  const tidal_access tidal_acc_%d[%d] = {\n", in, idx, s->n_acc);
    for (int i = 0; i < s->n_acc; i++) {
      const graph_site_access *a = &s->acc[i];
      rw_buf_printf(open, "%s    {(const void *)(%s), %s, %s},", in, a->ptr,
                    a->bytes ? a->bytes : "TIDAL_EXTENT_UNKNOWN", rw_mode_name(a));
      if (!a->bytes) {
        rw_buf_puts(open, " /* extent unknown: ");
        rw_put_commented(open, a->why);
        rw_buf_puts(open, " */");
        rw_buf_printf(&r->notes, " *   %s:%u: %s: extent of '", L->path_c, s->line, s->label);
        rw_put_commented(&r->notes, a->ptr);
        rw_buf_puts(&r->notes, "' unknown (TIDAL_EXTENT_UNKNOWN, to the end of its allocation): ");
        rw_put_commented(&r->notes, a->why);
        rw_buf_puts(&r->notes, "\n");
      }
      if (inexact_write(a)) rw_buf_puts(open, " /* " INEXACT_WRITE_NOTE " */");
      rw_buf_puts(open, "\n");
    }
    rw_buf_printf(open, "%s  };\n", in);
  }
  site_homes(r, s, in, open);
  home_note(r, s);
}

/* A cuDNN call that becomes its tidal/cudnn.h wrapper's (rewrite_batch.c,
 * Note [batch split call]): the site and its accesses before the
 * statement, two insertions inside the call, no op_begin/op_end (the
 * wrapper's). */
static void instrument_batch_site(rw *r, int idx, const graph_site *s, const rw_batch *bt) {
  rw_buf open = {0}, ind = {0}, args = {0};
  rw_line_indent(&r->lines, s->stmt_begin, &ind);
  const char *in = ind.p ? ind.p : "";
  rw_buf_printf(&open, "%s/* tidal: op site %d: %s; runs over pieces of its batch when its tensors "
                       "take more than half the budget (tidal_%s, tidal/cudnn.h) */\n",
                s->braces ? "{ " : "", idx, s->label, s->callee);
  rw_buf_printf(&open, "%s  static tidal_site tidal_site_%d = {\"%s\", \"%s\", %u, 0.0};\n", in, idx,
                s->label, r->lines.path_c, s->line);
  site_accesses(r, idx, s, in, &open);
  rw_line_restore(&r->lines, s->stmt_begin, &open);
  insert(r, s->stmt_begin, RW_PRIO_OPEN, &open);
  insert_s(r, bt->name_begin, RW_PRIO_REPLACE - 2, "tidal_");
  if (s->n_acc > 0)
    rw_buf_printf(&args, "&tidal_site_%d, %d, tidal_acc_%d, ", idx, s->n_acc, idx);
  else
    rw_buf_printf(&args, "&tidal_site_%d, 0, NULL, ", idx);
  insert(r, bt->args_begin, RW_PRIO_REPLACE - 2, &args);
  if (s->braces) insert_s(r, s->stmt_end, RW_PRIO_CLOSE, " }");
  rw_buf_free(&ind);
}

/* Note [argument arrays] (graph/sitehomes.c): after TIDAL_OP_BEGIN, each
 * pointer parameter declared through cudaLaunchKernel's argument array gets
 * its TIDAL_AT address in a local, and the call is passed a copy of the
 * array pointing at those locals (the other elements as they were). */
static void array_copy(rw *r, int idx, const graph_site *s, const char *in, rw_buf *b) {
  const kernel_info *ki = s->kernel >= 0 && s->kernel < r->g->kernels.n
                              ? &r->g->kernels.items[s->kernel]
                              : NULL;
  if (!s->array_wrapped || !ki || ki->n_params <= 0 || !s->array_text) return;
  int *acc = malloc((size_t)ki->n_params * sizeof *acc);
  if (!acc) {
    r->oom = 1;
    return;
  }
  for (int p = 0; p < ki->n_params; p++) acc[p] = -1;
  for (int i = 0; i < s->n_acc; i++)
    if (graph_site_acc_wrapped(s, i) && s->acc[i].array_param < ki->n_params &&
        acc[s->acc[i].array_param] < 0)
      acc[s->acc[i].array_param] = i;
  rw_buf_printf(b, "\n%s  /* tidal: the kernel's pointers at their current addresses, in a copy "
                   "of its argument array */",
                in);
  for (int p = 0; p < ki->n_params; p++)
    if (acc[p] >= 0) {
      const char *et = ki->params[p].elem_type ? ki->params[p].elem_type : "void";
      rw_buf_printf(b, "\n%s  %s *tidal_k%d_%d = TIDAL_AT(%s);", in, et, idx, p, s->acc[acc[p]].ptr);
    }
  rw_buf_printf(b, "\n%s  void *tidal_args_%d[%d] = {", in, idx, ki->n_params);
  for (int p = 0; p < ki->n_params; p++) {
    if (acc[p] >= 0)
      rw_buf_printf(b, "%s(void *)&tidal_k%d_%d", p ? ", " : "", idx, p);
    else
      rw_buf_printf(b, "%s(%s)[%d]", p ? ", " : "", s->array_text, p);
  }
  rw_buf_puts(b, "};");
  free(acc);
  rw_buf name = {0};
  rw_buf_printf(&name, "tidal_args_%d", idx);
  if (name.oom) r->oom = 1;
  rw_edits_replace(&r->edits, s->args[3].wrap_begin, s->args[3].wrap_end, name.p ? name.p : "");
  rw_buf_free(&name);
}

static void instrument_site(rw *r, int idx) {
  const graph_site *s = &r->sites[idx];
  if (r->split[idx]) {
    instrument_split_site(r, idx, s, r->split[idx]);
    return;
  }
  if (r->is_batch[idx]) {
    instrument_batch_site(r, idx, s, &r->batch[idx]);
    return;
  }
  const rw_lines *L = &r->lines;
  rw_buf open = {0}, close = {0}, ind = {0};
  rw_line_indent(L, s->stmt_begin, &ind);
  const char *in = ind.p ? ind.p : "";
  rw_buf_printf(&open, "%s/* tidal: op site %d: %s", s->braces ? "{ " : "", idx, s->label);
  if (r->no_split[idx]) { /* a split op the rewriter could not split */
    rw_buf_puts(&open, "; ");
    rw_put_commented(&open, r->no_split[idx]);
  }
  rw_buf_puts(&open, " */\n");
  rw_buf_printf(&open, "%s  static tidal_site tidal_site_%d = {\"%s\", \"%s\", %u, 0.0};\n", in, idx,
                s->label, L->path_c, s->line);
  site_accesses(r, idx, s, in, &open);
  if (s->n_acc > 0) {
    rw_buf_printf(&open, "%s  TIDAL_OP_BEGIN(&tidal_site_%d, %d, tidal_acc_%d);", in, idx, s->n_acc,
                  idx);
    array_copy(r, idx, s, in, &open);
  } else
    rw_buf_printf(&open, "%s  TIDAL_OP_BEGIN(&tidal_site_%d, 0, NULL);", in, idx);
  homes_in_op(s, in, &open);
  rw_line_restore(L, s->stmt_begin, &open);
  wrap_args(r, s);
  if (s->is_return == 2) { /* Note [ops in return statements] (graph/sites.c) */
    rw_buf ret = {0}, var = {0};
    rw_buf_printf(&var, "auto &&tidal_ret_%d = ", idx);
    rw_buf_printf(&close, " TIDAL_OP_END(&tidal_site_%d);", idx);
    rw_buf_printf(&ret, " return tidal_ret_%d; }", idx);
    insert(r, s->stmt_begin, RW_PRIO_OPEN, &open);
    if (var.oom) r->oom = 1;
    rw_edits_replace(&r->edits, s->stmt_begin, s->ret_expr_begin, var.p ? var.p : "");
    rw_buf_free(&var);
    insert(r, s->stmt_end, RW_PRIO_CLOSE, &close);
    insert(r, s->stmt_end, RW_PRIO_RETURN, &ret);
    rw_buf_free(&ind);
    return;
  }
  rw_buf_printf(&close, " TIDAL_OP_END(&tidal_site_%d);%s", idx, s->braces ? " }" : "");
  insert(r, s->stmt_begin, RW_PRIO_OPEN, &open);
  insert(r, s->stmt_end, RW_PRIO_CLOSE, &close);
  rw_buf_free(&ind);
}

/* 1 if graph allocation a was made by the call m. */
static int made_by(const rw *r, int a, const graph_memcall *m) {
  const graph_alloc *ga = &r->g->allocs[a];
  return ga->line == m->line && ga->col == m->col && ga->file &&
         strcmp(ga->file, r->t->main_path) == 0;
}

/* The packing group of the allocations a cudaMalloc call makes: one group
 * for all of them (a call in a setup loop makes several), else 0. */
static unsigned pack_group_of(const rw *r, const graph_memcall *m) {
  unsigned group = 0;
  int seen = 0;
  for (int a = 0; r->pack && a < r->g->n_allocs; a++) {
    if (!made_by(r, a, m)) continue;
    if (seen && r->pack[a] != group) return 0;
    group = r->pack[a];
    seen = 1;
  }
  return group;
}

/* The group every allocation of graph allocation a's call site has, else
 * 0 (what that call is rewritten with: pack_group_of). */
static unsigned site_group(const rw *r, int a) {
  const graph_alloc *ga = &r->g->allocs[a];
  for (int e = 0; e < r->g->n_allocs; e++) {
    const graph_alloc *ge = &r->g->allocs[e];
    if (ge->line == ga->line && ge->col == ga->col && ge->file && ga->file &&
        strcmp(ge->file, ga->file) == 0 && r->pack[e] != r->pack[a])
      return 0;
  }
  return r->pack[a];
}

/* Why the call m's allocations join arena `group` (plan/pack_arena.c,
 * Note [arenas for medium tensors]): the other members by name (those
 * whose calls are rewritten with the group too), and the medium tensor
 * whose chunks they all fit in. */
static void arena_note(rw *r, const graph_memcall *m, unsigned group, rw_buf *b) {
  int medium = -1, n = 0;
  rw_buf_puts(b, " /* tidal: laid out with ");
  for (int a = 0; a < r->g->n_allocs; a++) {
    if (r->pack[a] != group || site_group(r, a) != group) continue;
    if (r->trace->allocs[a].bytes >= PACK_CHUNK_BYTES) medium = a;
    if (made_by(r, a, m)) continue;
    const graph_alloc *ga = &r->g->allocs[a];
    int dup = 0; /* a call in a setup loop makes several: name it once */
    for (int e = 0; e < a && !dup; e++)
      dup = r->pack[e] == group && r->g->allocs[e].line == ga->line &&
            r->g->allocs[e].col == ga->col;
    if (dup) continue;
    rw_buf_puts(b, n++ ? ", " : "");
    rw_put_commented(b, ga->name ? ga->name : "?");
  }
  if (n == 0) rw_buf_puts(b, "the other allocations this call makes");
  rw_buf_puts(b, " so they share chunks: the same ops use them");
  if (medium < 0) {
    rw_buf_puts(b, " */");
    return;
  }
  uint64_t chunks = (r->trace->allocs[medium].bytes + PACK_CHUNK_BYTES - 1) / PACK_CHUNK_BYTES;
  rw_buf_printf(b, ", and together they fit in the %" PRIu64 " chunks ", chunks);
  if (made_by(r, medium, m)) {
    rw_buf_puts(b, "this one takes alone */");
    return;
  }
  rw_put_commented(b, r->g->allocs[medium].name ? r->g->allocs[medium].name : "?");
  rw_buf_puts(b, " takes alone */");
}

/* Whether the call m's allocations are relocatable (Note [relocatable
 * allocations]): all of those the graph followed are; one it did not follow
 * is as long as no escape sends every allocation home (its uses are op
 * arguments, wrapped, or escapes sent home at run time).  *why: else why. */
static int relocatable_call(const rw *r, const graph_memcall *m, const char **why) {
  *why = r->g->home_all_why;
  if (*why) return 0;
  for (int a = 0; a < r->g->n_allocs; a++)
    if (made_by(r, a, m) && !r->g->allocs[a].relocatable) {
      *why = r->g->allocs[a].home_why ? r->g->allocs[a].home_why : "unknown";
      return 0;
    }
  return 1;
}

/* Note [the program's sync]: cudaDeviceSynchronize waits for every copy on
 * the device, tidal's swap-outs and prefetches included (non-blocking
 * streams of the same context).  A training loop that ends its step with
 * one (to time the step, as the gpt sample and llm.c do) then waits each
 * step for the swap-outs of the optimizer's moments and the updated
 * parameters, which the plan issues after the update, the step's last ops,
 * with the device otherwise idle: 4 ms of the gpt variant's 44 ms step at
 * 50% in the model calibrated on the H200 (bench/README.md), 2.3-2.7 ms in
 * the card's trace.  Those copies only read memory the program has
 * finished with into tidal's host store: the program cannot observe them.
 * So the call becomes TIDAL_CUDA_DEVICE_SYNCHRONIZE (tidal/rewrite.h):
 * tidal_device_synchronize waits for the legacy default stream (which
 * waits for every blocking stream) and the stream tidal's ops run on, not
 * for tidal's own copies; before tidal_init it is cudaDeviceSynchronize.
 * A program that creates streams that may not block on the legacy stream
 * (cudaStreamCreateWithFlags, ...) keeps its calls as written, with a note:
 * work on such a stream would not be waited for.  A call written inside a
 * macro's body stays too (the text to replace is not in the file). */
static void replace_sync(rw *r, const graph_memcall *m) {
  if (r->g->sync_keep_why) {
    if (!r->sync_noted) {
      rw_buf_puts(&r->notes, " *   cudaDeviceSynchronize left as written (it also waits for "
                             "tidal's copies to the host store): ");
      rw_put_commented(&r->notes, r->g->sync_keep_why);
      rw_buf_puts(&r->notes, "\n");
      r->sync_noted = 1;
    }
    return;
  }
  rw_edits_replace(&r->edits, m->begin, m->end,
                   "TIDAL_CUDA_DEVICE_SYNCHRONIZE() /* tidal: waits for the program's work, not "
                   "for tidal's copies to the host store */");
}

static void replace_mem(rw *r, const graph_memcall *m) {
  rw_buf b = {0};
  const char *c = m->callee;
  if (graph_device_sync_call(c) == 1) {
    replace_sync(r, m);
    return;
  }
  if (!strcmp(c, "cudaMalloc") || !strcmp(c, "cudaMallocAsync")) {
    unsigned group = pack_group_of(r, m);
    const char *home_why = NULL;
    /* the flag wins over the packing group, which stays for TIDAL_RELOCATE=0 */
    int reloc = relocatable_call(r, m, &home_why);
    const char *flag = reloc ? "TIDAL_GROUP_RELOCATABLE | " : "";
    if (group & TIDAL_GROUP_ARENA) {
      rw_buf_printf(&b,
                    "(cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc_grouped((void **)(%s), %s, "
                    "%sTIDAL_GROUP_ARENA | %uu))",
                    m->args[0], m->args[1], flag, group & ~TIDAL_GROUP_ARENA);
      arena_note(r, m, group, &b);
    } else if (group)
      rw_buf_printf(&b,
                    "(cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc_grouped((void **)(%s), %s, %s%uu)) "
                    "/* tidal: shares chunks with the small buffers the same ops use */",
                    m->args[0], m->args[1], flag, group);
    else if (reloc)
      rw_buf_printf(&b,
                    "(cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc_grouped((void **)(%s), %s, "
                    "TIDAL_GROUP_RELOCATABLE))",
                    m->args[0], m->args[1]);
    else
      rw_buf_printf(&b, "(cudaError_t)TIDAL_CUDA_STATUS(tidal_malloc((void **)(%s), %s))",
                    m->args[0], m->args[1]);
    if (reloc) {
      rw_buf_puts(&b, " /* tidal: relocatable: every use is an op argument through TIDAL_AT */");
    } else {
      rw_buf_puts(&b, " /* tidal: at home: ");
      rw_put_commented(&b, home_why ? home_why : "?");
      rw_buf_puts(&b, " */");
    }
    if (!strcmp(c, "cudaMallocAsync")) {
      rw_buf_puts(&b, " /* tidal: was cudaMallocAsync on stream ");
      rw_put_commented(&b, m->n_args > 2 ? m->args[2] : "?");
      rw_buf_puts(&b, "; tidal_malloc is synchronous, so the memory is ready at once, "
                      "before that stream's earlier work */");
    }
  } else if (!strcmp(c, "cudaFree") && m->dependent) {
    rw_buf_printf(&b, "TIDAL_CUDA_FREE(%s) /* tidal: in a template, the pointer may not be "
                      "tidal's: freed whichever it is */", m->args[0]);
  } else if (!strcmp(c, "cudaFree")) {
    rw_buf_printf(&b, "(cudaError_t)TIDAL_CUDA_STATUS(tidal_free((void *)(%s)))", m->args[0]);
  } else { /* cudaFreeAsync: keep its stream order by waiting for the stream first */
    rw_buf_printf(&b,
                  "((void)cudaStreamSynchronize(%s), (cudaError_t)TIDAL_CUDA_STATUS(tidal_free("
                  "(void *)(%s)))) /* tidal: was cudaFreeAsync; tidal_free is synchronous, so the "
                  "stream's pending work is waited for first */",
                  m->n_args > 1 ? m->args[1] : "0", m->args[0]);
  }
  if (b.oom) r->oom = 1;
  rw_edits_replace(&r->edits, m->begin, m->end, b.p ? b.p : "");
  rw_buf_free(&b);
}

static void instrument_main_and_loop(rw *r) {
  const graph_file *s = r->file;
  graph *g = r->g;
  if (s->have_main) {
    if (r->req->budget_text) { /* the plan's budget, as written: TIDAL_BUDGET overrides it */
      rw_buf b = {0};
      rw_buf_printf(&b,
                    " TIDAL_INIT_WITH_BUDGET_OR_EXIT(\"%s\"); /* tidal: the runtime starts "
                    "before the first allocation, with the plan's budget unless TIDAL_BUDGET "
                    "is set */",
                    r->req->budget_text); /* a valid size: digits, letters, '%', '.', spaces */
      if (b.oom) r->oom = 1;
      insert_s(r, s->main_body_begin + 1, RW_PRIO_DEFAULT, b.p ? b.p : "");
      rw_buf_free(&b);
    } else {
      insert_s(r, s->main_body_begin + 1, RW_PRIO_DEFAULT,
               " TIDAL_INIT_OR_EXIT(); /* tidal: the runtime starts before the first allocation */");
    }
    if (!s->main_ends_in_return) {
      rw_buf b = {0};
      rw_line_indent(&r->lines, s->main_body_begin, &b);
      rw_buf_puts(&b, "  TIDAL_SHUTDOWN_OR_EXIT(); /* tidal: main returns here */");
      rw_line_restore(&r->lines, s->main_body_end - 1, &b);
      insert(r, s->main_body_end - 1, RW_PRIO_CLOSE, &b);
    }
  } else if (!r->t->prog || r->t->prog->n_units < 2 || r->t->file_index == 0) {
    rw_buf_puts(&r->notes, " *   no main() in this file: tidal_init/tidal_shutdown were not inserted "
                           "(call them yourself)\n");
  }
  /* Returns of main, and jumps out of an iteration (a return inside the
   * loop body gets both, iteration_end first). */
  for (int i = 0; i < s->n_main_returns; i++) {
    const graph_span *sp = &s->main_returns[i];
    int in_loop = 0;
    for (int j = 0; j < s->n_loop_exits; j++)
      if (s->loop_exits[j].begin == sp->begin) in_loop = 1;
    rw_buf b = {0};
    rw_buf_printf(&b, "{ %sTIDAL_SHUTDOWN_OR_EXIT(); ",
                  in_loop ? "TIDAL_CHECK(tidal_iteration_end()); " : "");
    insert(r, sp->begin, RW_PRIO_BEFORE - 1, &b);
    insert_s(r, sp->end, PRIO_BRACE_CLOSE, " }");
  }
  for (int j = 0; j < s->n_loop_exits; j++) {
    const graph_span *sp = &s->loop_exits[j];
    int is_main_return = 0;
    for (int i = 0; i < s->n_main_returns; i++)
      if (s->main_returns[i].begin == sp->begin) is_main_return = 1;
    if (is_main_return) continue;
    insert_s(r, sp->begin, RW_PRIO_BEFORE - 1, "{ TIDAL_CHECK(tidal_iteration_end()); ");
    insert_s(r, sp->end, PRIO_BRACE_CLOSE, " }");
  }
  /* The loop body. */
  const char *src = r->t->main_source;
  unsigned b = g->loop_body.begin, e = g->loop_body.end;
  if (g->loop_body.file != r->t->file_index) return; /* another file of the program */
  if (!g->loop_body.editable || e <= b || e > r->t->main_size) {
    rw_buf_puts(&r->notes, " *   the training loop's body is not editable (inside a macro): no "
                           "iteration markers\n");
    return;
  }
  if (src[b] == '{' && src[e - 1] == '}') {
    insert_s(r, b + 1, PRIO_LOOP_BEGIN,
             " TIDAL_CHECK(tidal_iteration_begin()); /* tidal: one training iteration */");
    insert_s(r, e - 1, PRIO_LOOP_END, "TIDAL_CHECK(tidal_iteration_end()); ");
  } else {
    if (src[e - 1] != ';') {
      unsigned k = e;
      while (k < r->t->main_size && strchr(" \t\r\n", src[k])) k++;
      if (k < r->t->main_size && src[k] == ';') e = k + 1;
    }
    insert_s(r, b, PRIO_LOOP_BEGIN, "{ TIDAL_CHECK(tidal_iteration_begin()); ");
    insert_s(r, e, PRIO_LOOP_END, " TIDAL_CHECK(tidal_iteration_end()); }");
  }
}

/* ---- the plan ---- */

static const char *call_name(plan_kind k) {
  switch (k) {
  case PLAN_SWAP_OUT: return "tidal_swap_out";
  case PLAN_PREFETCH: return "tidal_prefetch";
  case PLAN_DROP: return "tidal_drop";
  case PLAN_KEEP: return "tidal_keep";
  default: return "tidal_recompute_register";
  }
}

static void plan_skip(rw *r, const plan_action *a, const char *why) {
  r->skipped++;
  rw_buf_printf(&r->notes, " *   not emitted: %s of ", plan_kind_name(a->kind));
  rw_put_commented(&r->notes, a->tensor);
  rw_buf_puts(&r->notes, ": ");
  rw_put_commented(&r->notes, why);
  rw_buf_puts(&r->notes, "\n");
}

/* The one-line comment naming the tensor, bytes (symbolic and value),
 * idle span and reason. */
static void action_comment(rw_buf *b, const plan_action *a, const char *sym_bytes) {
  rw_buf_printf(b, "/* tidal: %s ", plan_kind_name(a->kind));
  rw_put_commented(b, a->tensor);
  rw_buf_puts(b, ": ");
  if (sym_bytes) {
    rw_put_commented(b, sym_bytes);
    /* a candidate's size is known only at run time */
    rw_buf_puts(b, a->bytes ? " = " : " bytes");
  }
  if (a->bytes || !sym_bytes) rw_buf_printf(b, "%" PRIu64 " bytes", a->bytes);
  rw_buf_printf(b, ", idle %d ops", a->idle_ops);
  if (a->instances > 1) rw_buf_printf(b, ", %d instances per iteration", a->instances);
  rw_buf_puts(b, ": ");
  rw_put_commented(b, a->reason);
  rw_buf_puts(b, " */");
}

static void emit_recompute(rw *r, const plan_action *a, const rw_place *pl) {
  const graph_site *site = pl->site;
  rw_buf def = {0}, reg = {0}, cm = {0};
  rw_buf_printf(&cm, "re-launches %s for ", site->label);
  rw_put_commented(&cm, a->tensor);
  int id = ++r->closures;
  if (rw_closure_emit(r->g, site, a->at_op, id, cm.p ? cm.p : "", r->lines.path_c, &def, &reg) !=
      0) {
    /* rw_plan_place tried the same closure: only memory can fail here */
    rw_buf_free(&def);
    rw_buf_free(&reg);
    rw_buf_free(&cm);
    r->oom = 1;
    return;
  }
  rw_buf_free(&cm);
  rw_line_restore(&r->lines, site->fn_begin, &def);
  insert(r, site->fn_begin, RW_PRIO_DEFAULT, &def);
  rw_buf blk = {0}, ind = {0};
  rw_line_indent(&r->lines, site->stmt_begin, &ind);
  rw_buf_puts(&blk, "\n");
  rw_buf_puts(&blk, ind.p ? ind.p : "");
  action_comment(&blk, a, pl->sbytes);
  rw_buf_printf(&blk, "\n%s%s", ind.p ? ind.p : "", reg.p ? reg.p : "");
  rw_buf_printf(&blk,
                " TIDAL_HINT(tidal_recompute_register((const void *)(%s), %s, tidal_rc_fn_%d, "
                "&tidal_rc_c, sizeof tidal_rc_c)); }",
                pl->ptr, pl->bytes, id);
  rw_line_restore(&r->lines, site->stmt_end, &blk);
  if (reg.oom) r->oom = 1;
  rw_buf_free(&reg);
  rw_buf_free(&ind);
  /* Inside the op wrapper's braces would end its scope early; the
   * registration goes after the wrapper (after TIDAL_OP_END). */
  insert(r, site->stmt_end, RW_PRIO_AFTER, &blk);
  r->emitted++;
  rw_buf_puts(&r->plan_lines, " *   ");
  rw_buf_printf(&r->plan_lines, "%s:%u: recompute ", r->lines.path_c, site->line);
  rw_put_commented(&r->plan_lines, a->tensor);
  rw_buf_printf(&r->plan_lines, " (%" PRIu64 " bytes) via closure %d: ", a->bytes, id);
  rw_put_commented(&r->plan_lines, a->reason);
  rw_buf_puts(&r->plan_lines, "\n");
}

/* Emits one action where rw_plan_place (shared with `tidal replay`) puts
 * it, or lists it as not emitted. */
static void emit_action(rw *r, const plan_action *a) {
  rw_place pl;
  if (rw_plan_place(&r->placer, a, &pl) != 0) {
    r->oom = 1;
    goto out;
  }
  if (!pl.emit) {
    /* listed once, in the header of the file defining main(), and said on
     * stderr: the plan the program runs is not the plan replay proved */
    if (r->t->file_index == 0) {
      plan_skip(r, a, pl.why);
      const graph_op *op =
          a->at_op >= 0 && a->at_op < r->g->n_ops ? &r->g->ops[a->at_op] : NULL;
      diag_warning(op ? op->file : r->t->main_path, op ? op->line : 0, op ? op->col : 0,
                   "plan action not emitted: %s of '%s': %s", plan_kind_name(a->kind),
                   a->tensor ? a->tensor : "?", pl.why);
    }
    goto out;
  }
  if (pl.file != r->t->file_index) {
    r->elsewhere++; /* emitted in the rewrite of another file of the program */
    goto out;
  }
  if (a->kind == PLAN_RECOMPUTE) {
    emit_recompute(r, a, &pl);
    goto out;
  }
  unsigned begin = pl.begin, end = pl.end;
  /* An unbraced loop or if body: the calls must stay inside it (once per
   * statement, however many actions it gets). */
  int need_braces = rw_is_unbraced_body(r->t, begin);
  for (int i = 0; i < r->n_braced && need_braces; i++)
    if (r->braced[i] == begin) need_braces = 0;
  if (need_braces) {
    unsigned *nb = realloc(r->braced, (size_t)(r->n_braced + 1) * sizeof *nb);
    if (!nb) {
      r->oom = 1;
      goto out;
    }
    r->braced = nb;
    r->braced[r->n_braced++] = begin;
  }
  {
    rw_buf blk = {0}, ind = {0};
    rw_line_indent(&r->lines, begin, &ind);
    const char *in = ind.p ? ind.p : "";
    unsigned off = a->where == PLAN_BEFORE ? begin : end;
    if (a->where == PLAN_AFTER) rw_buf_printf(&blk, "\n%s", in);
    action_comment(&blk, a, pl.sbytes);
    if (pl.guard >= 0) /* Note [guarded placement]: only on the training loop's path */
      rw_buf_printf(&blk, "\n%sif (tidal_on_path_%d) TIDAL_HINT(%s((const void *)(%s), %s));", in,
                    r->placer.guards[pl.guard].id, call_name(a->kind), pl.ptr, pl.bytes);
    else
      rw_buf_printf(&blk, "\n%sTIDAL_HINT(%s((const void *)(%s), %s));", in, call_name(a->kind),
                    pl.ptr, pl.bytes);
    rw_line_restore(&r->lines, off, &blk);
    insert(r, off, a->where == PLAN_BEFORE ? RW_PRIO_BEFORE : RW_PRIO_AFTER, &blk);
    if (need_braces) {
      insert_s(r, begin, PRIO_BRACE_OPEN, "{ ");
      insert_s(r, end, PRIO_BRACE_CLOSE, " }");
    }
    rw_buf_free(&ind);
    r->emitted++;
    rw_buf_printf(&r->plan_lines, " *   %s:%u: %s %s ", r->lines.path_c,
                  rw_line_of(&r->lines, off), plan_kind_name(a->kind),
                  a->where == PLAN_BEFORE ? "before" : "after");
    rw_put_commented(&r->plan_lines, a->tensor);
    if (pl.guard >= 0)
      rw_buf_printf(&r->plan_lines, " (only when called from line %u)",
                    rw_line_of(&r->lines, r->placer.guards[pl.guard].call_begin));
    if (a->bytes)
      rw_buf_printf(&r->plan_lines, " (%" PRIu64 " bytes, idle %d ops): ", a->bytes, a->idle_ops);
    else
      rw_buf_printf(&r->plan_lines, " (size known at run time, idle %d ops): ", a->idle_ops);
    rw_put_commented(&r->plan_lines, a->reason);
    rw_buf_puts(&r->plan_lines, "\n");
  }
out:
  rw_place_free(&pl);
}

/* The path flags of guarded plan calls in this file (Note [guarded
 * placement], rewrite_place.c): set around the one call statement, read
 * and cleared at the callee's body; their declarations go in decl. */
static void emit_guards(rw *r, rw_buf *decl) {
  for (int i = 0; i < r->placer.n_guards; i++) {
    const rw_guard *gd = &r->placer.guards[i];
    if (gd->file != r->t->file_index) continue;
    rw_buf b = {0};
    rw_buf_printf(&b, "tidal_path_%d = 1; ", gd->id);
    insert(r, gd->call_begin, RW_PRIO_BEFORE + 5, &b);
    rw_buf_printf(&b, " tidal_path_%d = 0;", gd->id);
    insert(r, gd->call_end, RW_PRIO_CLOSE + 5, &b);
    rw_buf_printf(&b,
                  " const int tidal_on_path_%d = tidal_path_%d; tidal_path_%d = 0; /* tidal: "
                  "called from line %u (the training loop's path): the plan calls below fire "
                  "then only */",
                  gd->id, gd->id, gd->id, rw_line_of(&r->lines, gd->call_begin));
    insert(r, gd->body_open, RW_PRIO_OPEN, &b);
    rw_buf_printf(decl, "static int tidal_path_%d; /* tidal: path flag (guarded plan calls) */\n",
                  gd->id);
  }
}

/* ---- the header ---- */

static void fmt_bytes(rw_buf *b, uint64_t v) {
  rw_buf_printf(b, "%" PRIu64 " bytes", v);
  if (v >= 1024 * 1024) rw_buf_printf(b, " (%.1f MiB)", (double)v / (1024.0 * 1024.0));
}

static void header(rw *r, const plan_result *p, int planned, const char *why_unplanned,
                   const char *budget_desc, rw_buf *h) {
  graph *g = r->g;
  rw_buf_puts(h, "/* " RW_MARKER " " TIDAL_VERSION " from \"");
  rw_put_commented(h, r->lines.path_c);
  rw_buf_puts(h, "\": edit the original, not this file.\n *\n");
  rw_buf_printf(h, " * plan: %s", r->req->plan_name);
  if (budget_desc) {
    rw_buf_puts(h, ", aiming at ");
    rw_put_commented(h, budget_desc);
  }
  rw_buf_puts(h, "\n * training loop: ");
  rw_put_commented(h, g->loop_file ? g->loop_file : r->lines.path_c);
  rw_buf_printf(h, ":%u in %s; chosen by ", g->loop_line, g->loop_function ? g->loop_function : "?");
  rw_put_commented(h, g->loop_reason ? g->loop_reason : "?");
  rw_buf_puts(h, "\n");
  if (planned) {
    if (r->req->cost_note) { /* Note [one model of cost] (cli/plan_replay.c): the figures */
      rw_buf_puts(h, " * ");
      rw_put_commented(h, r->req->cost_note);
      rw_buf_puts(h, "\n");
    }
    /* the planner's own model: how it chose, not what it costs */
    rw_buf_puts(h, " * the planner's byte model (no chunks), peak per iteration: before ");
    fmt_bytes(h, p->peak_before);
    rw_buf_puts(h, ", after ");
    fmt_bytes(h, p->peak_after);
    rw_buf_printf(h, "%s\n", p->budget_bytes ? (p->budget_met ? " (aim reached)" : " (aim NOT reached)")
                                             : "");
    rw_buf_puts(h, " * evicted per iteration: ");
    fmt_bytes(h, p->evicted_bytes);
    rw_buf_printf(h, " (swapped %" PRIu64 ", dropped %" PRIu64 ", recomputed %" PRIu64 ")\n",
                  p->swapped_bytes, p->dropped_bytes, p->recomputed_bytes);
    rw_buf_printf(h, " * plan actions: %d emitted, %d not emitted (see below)", r->emitted,
                  r->skipped);
    if (r->elsewhere) rw_buf_printf(h, ", %d emitted in other files of the program", r->elsewhere);
    rw_buf_puts(h, "\n");
    if (r->plan_lines.n) rw_buf_putn(h, r->plan_lines.p, r->plan_lines.n);
  } else if (r->emitted || r->skipped) {
    rw_buf_puts(h, " * no plan: ");
    rw_put_commented(h, why_unplanned);
    rw_buf_printf(h, "\n * candidate hints (Note [candidates without sizes]): %d emitted, %d not "
                     "emitted (see below); the run-time planner decides which run\n",
                  r->emitted, r->skipped);
    if (r->plan_lines.n) rw_buf_putn(h, r->plan_lines.p, r->plan_lines.n);
  } else {
    rw_buf_puts(h, " * no plan: ");
    rw_put_commented(h, why_unplanned);
    rw_buf_puts(h, " (instrumentation only)\n");
  }
  int n_sites = 0, n_skipped = 0;
  for (int i = 0; i < r->n_sites; i++) {
    if (r->sites[i].skip)
      n_skipped++;
    else
      n_sites++;
  }
  rw_buf_printf(h, " * instrumented: %d op sites, %d cudaMalloc/cudaFree calls\n", n_sites,
                r->file->n_mems);
  rw_buf_printf(h, " * relocatable: %d of %d allocations (every use an op argument through "
                   "TIDAL_AT, or sent home by tidal_home before it escapes)",
                g->n_relocatable, g->n_allocs);
  if (g->home_all_why) {
    rw_buf_puts(h, "; none can be: ");
    rw_put_commented(h, g->home_all_why);
  }
  rw_buf_puts(h, "\n");
  for (int i = 0; i < r->n_sites; i++) {
    const graph_site *s = &r->sites[i];
    if (s->skip || !r->split[i]) continue;
    rw_buf_printf(h, " * split op: %s:%u: %s, %d bytes per element: runs in pieces when the whole "
                     "op would not fit half the budget\n",
                  r->lines.path_c, s->line, s->label, r->split[i]->elem_bytes);
  }
  int any = r->notes.n > 0 || n_skipped > 0 || g->n_notes > 0 || r->file->n_notes > 0 ||
            r->n_no_split > 0 || (planned && p->n_notes > 0);
  if (any) {
    rw_buf_puts(h, " * not resolved (handled conservatively):\n");
    for (int i = 0; i < r->n_sites; i++) {
      const graph_site *s = &r->sites[i];
      if (!s->skip) continue;
      rw_buf_printf(h, " *   %s:%u: %s: ", r->lines.path_c, s->line, s->label);
      rw_put_commented(h, s->skip);
      rw_buf_puts(h, "\n");
    }
    /* the file's notes, and each split op's note where its statement
     * ends among them (graph_site.notes_before) */
    int *ns = calloc((size_t)r->n_no_split + 1, sizeof *ns), n_ns = 0;
    for (int k = 0; ns && k < r->n_sites; k++)
      if (r->no_split[k]) ns[n_ns++] = k;
    if (!ns) r->oom = 1;
    for (int i = 0; i <= r->file->n_notes; i++) {
      for (int j = 0; j < n_ns; j++)
        if (r->sites[ns[j]].notes_before == i) {
          int k = ns[j];
          rw_buf_printf(h, " *   %s:%u: ", r->lines.path_c, r->sites[k].line);
          rw_put_commented(h, r->no_split[k]);
          rw_buf_puts(h, "\n");
        }
      if (i == r->file->n_notes) break;
      rw_buf_printf(h, " *   %s:%u: ", r->lines.path_c, r->file->notes[i].line);
      rw_put_commented(h, r->file->notes[i].message);
      rw_buf_puts(h, "\n");
    }
    free(ns);
    for (int i = 0; i < g->n_notes; i++) {
      rw_buf_puts(h, " *   ");
      rw_put_commented(h, g->notes[i].file);
      rw_buf_printf(h, ":%u: ", g->notes[i].line);
      rw_put_commented(h, g->notes[i].message);
      rw_buf_puts(h, "\n");
    }
    if (planned)
      for (int i = 0; i < p->n_notes; i++) {
        rw_buf_puts(h, " *   plan: ");
        rw_put_commented(h, p->notes[i]);
        rw_buf_puts(h, "\n");
      }
    if (r->notes.n) rw_buf_putn(h, r->notes.p, r->notes.n);
  }
  rw_buf_puts(h, " */\n#include <stdio.h>\n#include <stdlib.h>\n#include \"tidal.h\"\n"
                 "#include \"tidal/rewrite.h\"\n");
  if (r->n_batch) /* Note [batch split call] (rewrite_batch.c) */
    rw_buf_puts(h, "#include \"tidal/cudnn.h\"\n");
  if (r->guard_decls.n) rw_buf_putn(h, r->guard_decls.p, r->guard_decls.n);
  rw_buf_printf(h, "#line 1 \"%s\"\n", r->lines.path_c);
}

/* Why the graph cannot be unrolled: every unbound name. */
static char *unbound_reason(const graph *g) {
  /* every unbound name, sizes first (bind.c): a loop's trip count may be
   * one the unroller does without (a periodic branch's, micro-steps':
   * unroll.c), and naming it alone hid the size that did stop it (llm.c:
   * val_num_batches named, the config not) */
  char *name = graph_unbound_message(g);
  rw_buf b = {0};
  if (name)
    rw_buf_printf(&b, "%s", name);
  else {
    /* no name to bind: an allocation whose size tidal could not compute
     * (a total summed over a container it does not follow) says which */
    int u = -1;
    for (int i = 0; i < g->n_allocs && u < 0; i++)
      if (!g->allocs[i].bytes || sym_is_unknown(g->allocs[i].bytes)) u = i;
    if (u >= 0)
      rw_buf_printf(&b,
                    "the size of '%s' (%s:%u) is not an expression tidal could compute (no --bind "
                    "sets it; docs/limitations.md)",
                    g->allocs[u].name ? g->allocs[u].name : "?", g->allocs[u].file ? g->allocs[u].file : "?",
                    g->allocs[u].line);
    else
      rw_buf_puts(&b, "the sizes are not fully bound (use --bind NAME=VALUE)");
  }
  free(name);
  return rw_buf_take(&b);
}

void rw_report_free(rw_report *r) {
  if (!r) return;
  free(r->why_unplanned);
  for (int i = 0; i < r->n_skipped; i++) {
    free(r->skipped[i].label);
    free(r->skipped[i].why);
  }
  free(r->skipped);
  for (int i = 0; i < r->n_homed; i++) free(r->homed[i].label);
  free(r->homed);
  free(r->alloc_managed);
  free(r->home_all_why);
  memset(r, 0, sizeof *r);
}

/* Copies what the command reports out of the rewrite's state. */
static void fill_report(const rw *r, const plan_result *p, int planned, const char *why,
                        rw_report *rep) {
  rep->planned = planned;
  rep->why_unplanned = why ? strdup(why) : NULL;
  if (planned) {
    rep->budget_bytes = p->budget_bytes;
    rep->budget_met = p->budget_met;
    rep->peak_before = p->peak_before;
    rep->peak_after = p->peak_after;
    rep->compute_s = p->modelled_compute_s;
    rep->overhead_s = p->modelled_overhead_s;
  }
  /* -o DIR/: every file of the program is rewritten, its allocations too */
  rep->alloc_managed = graph_allocs_replaced(r->g, r->req->all_files ? -1 : r->t->file_index);
  for (int a = 0; rep->alloc_managed && a < r->g->n_allocs; a++)
    rep->n_relocatable += rep->alloc_managed[a] && r->g->allocs[a].relocatable;
  rep->home_all_why = r->g->home_all_why ? strdup(r->g->home_all_why) : NULL;
  rep->plan_emitted = r->emitted;
  rep->plan_not_emitted = r->skipped;
  rep->n_mems = r->file->n_mems;
  for (int i = 0; i < r->n_sites; i++) {
    const graph_site *s = &r->sites[i];
    const char *hw;
    int nh = s->skip || (r->split && r->split[i]) ? 0 : homes_count(s, &hw);
    rw_homed *h = nh ? realloc(rep->homed, (size_t)(rep->n_homed + 1) * sizeof *h) : NULL;
    if (h) {
      rep->homed = h;
      h[rep->n_homed] = (rw_homed){s->line, s->col, strdup(s->label ? s->label : "?"), hw, nh};
      rep->n_homed++;
    }
    if (!s->skip) {
      rep->n_sites++;
      continue;
    }
    rw_skipped *n = realloc(rep->skipped, (size_t)(rep->n_skipped + 1) * sizeof *n);
    if (!n) continue;
    rep->skipped = n;
    n[rep->n_skipped].line = s->line;
    n[rep->n_skipped].col = s->col;
    n[rep->n_skipped].label = strdup(s->label ? s->label : "?");
    n[rep->n_skipped].why = strdup(s->skip);
    rep->n_skipped++;
  }
}

/* The header's words for the plan's budget. */
static void budget_description(const rw_request *req, uint64_t budget, rw_buf *b) {
  if (req->budget_pct > 0)
    rw_buf_printf(b, "%g%% of its modelled peak = %" PRIu64 " bytes", req->budget_pct, budget);
  else if (budget)
    rw_buf_printf(b, "%" PRIu64 " bytes", budget);
  else
    rw_buf_puts(b, "none (only free actions: drops)");
}

/* How each split op of the file runs (rewrite_split.c): r->split and
 * r->no_split.  Returns 0, or -1 when memory ran out. */
static int plan_splits(rw *r) {
  r->split = calloc((size_t)r->n_sites + 1, sizeof *r->split);
  r->no_split = calloc((size_t)r->n_sites + 1, sizeof *r->no_split);
  if (!r->split || !r->no_split) return -1;
  r->batch = calloc((size_t)r->n_sites + 1, sizeof *r->batch);
  r->is_batch = calloc((size_t)r->n_sites + 1, 1);
  if (!r->batch || !r->is_batch) return -1;
  for (int i = 0; i < r->n_sites; i++) {
    if (rw_split_plan(r->g, &r->sites[i], &r->split[i], &r->no_split[i]) != 0) return -1;
    if (r->no_split[i]) r->n_no_split++;
    if (!r->split[i] &&
        rw_batch_plan(r->g, &r->sites[i], r->t->main_source, r->t->main_size, &r->batch[i])) {
      r->is_batch[i] = 1;
      r->n_batch++;
    }
  }
  return 0;
}

int rw_rewrite(pass_tu *t, graph *g, const rw_request *req, char **out, size_t *out_n,
               rw_report *rep) {
  if (rep) memset(rep, 0, sizeof *rep);
  rw r;
  memset(&r, 0, sizeof r);
  r.t = t;
  r.g = g;
  r.req = req;
  int rc = TIDAL_EXIT_INTERNAL;
  tidal_trace trace;
  memset(&trace, 0, sizeof trace);
  int have_trace = 0, planned = 0;
  plan_result plan;
  memset(&plan, 0, sizeof plan);
  const plan_result *P = &plan; /* the plan emitted: ours, or the caller's */
  char *why_unplanned = NULL;
  unsigned *pack = NULL;
  rw_buf budget_desc = {0}, hdr = {0}, result = {0};

  if (rw_lines_init(&r.lines, t->main_source, t->main_size, t->main_path) != 0) goto out;
  if (t->file_index < 0 || t->file_index >= g->n_files) goto out;
  r.file = &g->files[t->file_index];
  r.sites = g->sites + r.file->first_site;
  r.n_sites = r.file->n_sites;
  if (plan_splits(&r) != 0) {
    r.oom = 1;
    goto out;
  }
  if (rw_placer_init(&r.placer, t, g) != 0) goto out;

  /* The plan. */
  if (req->mode == PLAN_MODE_NONE) {
    why_unplanned = strdup("--plan none");
  } else if (g->unrolled_ops < 0) {
    why_unplanned = unbound_reason(g);
    /* sizes known only at run time: the candidates, as hints */
    if (plan_candidates(g, &plan) != 0) goto out;
  } else if (req->plan) { /* planned (and costed) by the caller */
    P = req->plan;
    planned = 1;
    r.pack = req->pack;
    r.trace = req->trace;
    budget_description(req, P->budget_bytes, &budget_desc);
  } else {
    if (graph_unroll(g, &trace) != 0) goto out;
    have_trace = 1;
    uint64_t budget = req->budget_bytes;
    uint64_t natural = plan_modelled_peak(&trace, NULL, 0);
    if (req->budget_pct > 0) budget = (uint64_t)((double)natural * req->budget_pct / 100.0);
    plan_options po;
    plan_options_default(&po);
    po.mode = req->mode;
    po.budget_bytes = budget;
    if (plan_make(&trace, &po, &plan) != 0) goto out;
    planned = 1;
    pack = calloc((size_t)trace.n_allocs + 1, sizeof *pack);
    if (!pack || plan_pack_groups(&trace, PACK_CHUNK_BYTES, pack) < 0 ||
        plan_pack_by_site(g, pack) < 0)
      goto out;
    r.pack = pack;
    r.trace = &trace;
    budget_description(req, budget, &budget_desc);
  }

  if (graph_relocatable(g, req->all_files ? -1 : t->file_index) != 0) {
    r.oom = 1;
    goto out;
  }
  for (int i = 0; i < r.n_sites; i++)
    if (!r.sites[i].skip) instrument_site(&r, i);
  for (int i = 0; i < r.file->n_escapes; i++) escape_homes(&r, &r.file->escapes[i]);
  for (int i = 0; i < r.file->n_mems; i++) replace_mem(&r, &r.file->mems[i]);
  instrument_main_and_loop(&r);
  /* Registrations first, so that a recomputable range is registered
   * before the swap_out after the same statement (the runtime then drops
   * it instead of copying). */
  /* (without a plan, plan holds only candidate hints: no registrations) */
  for (int i = 0; i < P->n_actions; i++)
    if (P->actions[i].kind == PLAN_RECOMPUTE) emit_action(&r, &P->actions[i]);
  for (int i = 0; i < P->n_actions; i++)
    if (P->actions[i].kind != PLAN_RECOMPUTE) emit_action(&r, &P->actions[i]);

  emit_guards(&r, &r.guard_decls);
  header(&r, P, planned, why_unplanned, budget_desc.p, &hdr);
  if (hdr.oom) goto out;
  insert(&r, 0, 0, &hdr);
  unsigned conflict = 0;
  if (r.oom || rw_edits_apply(&r.edits, t->main_source, t->main_size, &result, &conflict) != 0) {
    if (!r.oom && !result.oom)
      diag_error(t->main_path, rw_line_of(&r.lines, conflict), 0,
                 "internal error: two rewrites overlap here");
    goto out;
  }
  *out_n = result.n;
  *out = rw_buf_take(&result);
  if (rep) fill_report(&r, P, planned, why_unplanned, rep);
  rc = *out ? TIDAL_EXIT_OK : TIDAL_EXIT_INTERNAL;
out:
  if (rc == TIDAL_EXIT_INTERNAL && r.oom) diag_error(NULL, 0, 0, "out of memory while rewriting");
  rw_buf_free(&result);
  rw_buf_free(&hdr);
  rw_buf_free(&budget_desc);
  rw_buf_free(&r.notes);
  rw_buf_free(&r.plan_lines);
  rw_buf_free(&r.guard_decls);
  free(r.braced);
  for (int i = 0; i < r.n_sites; i++) {
    if (r.split) rw_split_free(r.split[i]);
    if (r.no_split) free(r.no_split[i]);
  }
  free(r.split);
  free(r.no_split);
  free(r.batch);
  free(r.is_batch);
  free(why_unplanned);
  free(pack);
  plan_free(&plan);
  if (have_trace) trace_free(&trace);
  rw_edits_free(&r.edits);
  rw_placer_free(&r.placer);
  rw_lines_free(&r.lines);
  return rc;
}
