/* rewrite_split.c - split ops: an elementwise launch run in pieces.
 *
 * The analysis marks a launch split (graph_op.split; analysis/split.c, Note [elementwise split],
 * and opsites.c, Note [split launches]) when thread i touches only element i of each pointer
 * argument, i < the count argument.  Such a launch over [0, n) is the same as launches over
 * consecutive pieces [o, o + l) with every pointer advanced by o and the count replaced by l, so an
 * op bigger than the budget (an optimizer step over every parameter) can still run.  The rewritten
 * program asks the runtime for the piece length (tidal_split_elements, runtime/policy/split.c Note [split
 * size]); `tidal replay` asks the same, so the plan it checks is the one the program runs.
 *
 * Note [split launch]
 * The launch statement stays where it is, byte for byte apart from a few
 * edits inside it, and a loop is opened before it and closed after it:
 *
 *   { static tidal_site S = ...;
 *     const unsigned int G = (unsigned int)(GRID), B = (unsigned int)(BLOCK);
 *     const size_t N = tidal_split_count((TYPE)(COUNT), G, B, STRIDE);
 *     const size_t STEP = tidal_split_elements(N, BYTES_PER_ELEMENT);
 *     size_t O = 0;
 *     do { const size_t L = min(N - O, STEP);
 *          unsigned int g = G; if (STEP < N) g = tidal_split_grid_x(G, B, L, STRIDE);
 *          accesses: each pointer + O, L * its element bytes;  TIDAL_OP_BEGIN
 *          kernel<<<g, B, SHM, STREAM>>>((P) + O, ..., (TYPE)L, ...);  TIDAL_OP_END
 *          O += L; } while (O < N); }
 *
 * When STEP == N (no budget, or the op fits half of it) the one launch is
 * the original: the same grid, pointers + 0 and the count's own value (a
 * negative count is passed as 0: below either, the kernel does nothing).  A
 * do-while, so that a zero count still launches once, as the original did.
 * GRID and BLOCK are evaluated once, before the loop (where the launch
 * evaluated them, before its arguments); every argument, the shared memory
 * size and the stream are evaluated once per piece, so each must be free of
 * calls and side effects (pure_expr), or the op is instrumented whole with a
 * note.  Integer GRID and BLOCK give integer code, valid C as well (the sim
 * twins compile the rewritten program as C, samples/simcuda); a dim3 one
 * gives dim3 variables.
 *
 * Pieces of a kernel that needs one thread per element
 * (split_grid_stride 0) get ceil(L / block.x) blocks; a grid-stride kernel
 * keeps its own grid when that is smaller.  tidal_split_count clamps the
 * count to grid.x * block.x for the former: a launch with too few threads
 * leaves the elements past them alone, and so do its pieces.  Every
 * pointer the kernel dereferences is a resolved tensor, never NULL (the
 * analysis's condition); a pointer it never dereferences (NULL, perhaps)
 * is left as written.  An op whose count is known at build time to be at
 * most TIDAL_SPLIT_GRAIN is never cut by the runtime, so it keeps the
 * plain wrapper (never_cut). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "rewrite/rewrite.h"
#include "tidal.h" /* TIDAL_SPLIT_GRAIN */

#define MAX_SPLIT_EDITS 64 /* configuration + arguments of one launch; more: not split */

static int add_edit(rw_split *sp, unsigned b, unsigned e, int role) {
  if (sp->n_edits == MAX_SPLIT_EDITS) return -1;
  int i = sp->n_edits++;
  for (; i > 0 && sp->edits[i - 1].begin > b; i--)
    sp->edits[i] = sp->edits[i - 1];
  sp->edits[i] = (rw_split_edit){b, e, role};
  return 0;
}

/* The bytes of one element of argument arg, from the graph ops (every path
 * agrees: the same kernel parameter), else the kernel table. */
static int elem_bytes_of(const graph *g, const graph_site *site, const kernel_info *ki, int arg) {
  for (int k = 0; k < site->n_ops; k++) {
    const graph_op *op = &g->ops[site->ops[k]];
    for (int i = 0; i < op->n_acc; i++)
      if (op->acc[i].arg == arg && op->acc[i].split_elem_bytes > 0)
        return op->acc[i].split_elem_bytes;
  }
  return ki && arg < ki->n_params ? ki->params[arg].elem_bytes : 0;
}

/* 1 if the argument as written is one whole argument inside the launch
 * [cb, ce) of the file (an edit can replace it). */
static int editable_arg(const graph_site_arg *a, unsigned cb, unsigned ce) {
  return a->in_file && a->whole && a->begin >= cb && a->end <= ce;
}

/* Why the launch at site cannot run in pieces ("" if it can), for
 * rw_split_plan; fills sp.  Everything it reads is the graph's: the site's
 * arguments as written (graph_site_arg) and its graph ops. */
static int check_launch(const graph *g, const graph_site *site, rw_split *sp, char *why,
                        size_t why_n) {
  const graph_op *op0 = &g->ops[site->ops[0]];
  for (int k = 0; k < site->n_ops; k++) {
    const graph_op *op = &g->ops[site->ops[k]];
    if (!op->split) {
      snprintf(why, why_n, "it is elementwise on some of the call paths reaching it only");
      return 0;
    }
    if (op->split_count_arg != op0->split_count_arg ||
        op->split_grid_stride != op0->split_grid_stride) {
      snprintf(why, why_n, "its call paths disagree on the count argument");
      return 0;
    }
  }
  if (site->n_calls != 1) {
    snprintf(why, why_n, "the statement holds more than one op");
    return 0;
  }
  /* the statement is the launch itself, written in this file */
  if (!site->braces || !site->call_is_stmt) {
    snprintf(why, why_n, "the launch is not a statement of its own");
    return 0;
  }
  if (!site->call_spelled) {
    snprintf(why, why_n, "the launch is written inside a macro");
    return 0;
  }
  unsigned cb = site->call_begin, ce = site->call_end;
  if (site->n_config < 2) {
    snprintf(why, why_n,
             "only <<<...>>> launches are split (cudaLaunchKernel passes an array "
             "of argument addresses)");
    return 0;
  }
  const kernel_info *ki =
      site->kernel >= 0 && site->kernel < g->kernels.n ? &g->kernels.items[site->kernel] : NULL;
  int nargs = site->n_args;
  int count = op0->split_count_arg;
  if (!ki || nargs != ki->n_params || count < 0 || count >= nargs) {
    snprintf(why, why_n, "the kernel's parameters do not match the launch");
    return 0;
  }
  sp->grid_stride = op0->split_grid_stride != 0;
  /* <<<GRID, BLOCK, SHM, STREAM>>>: grid and block are hoisted (evaluated
   * once, as before); the rest stays in the launch, evaluated per piece */
  for (int i = 0; i < 2; i++) {
    const graph_site_arg *c = &site->config[i];
    if (!editable_arg(c, cb, ce)) {
      snprintf(why, why_n, "its %s is not written as one expression in the launch",
               i ? "block size" : "grid size");
      return 0;
    }
    if (!c->integer) sp->dim3 = 1;
    if (add_edit(sp, c->begin, c->end, i ? RW_SPLIT_BLOCK : RW_SPLIT_GRID) != 0) return -1;
  }
  for (int i = 2; i < site->n_config; i++)
    if (!site->config[i].pure) {
      snprintf(why, why_n,
               "its %s has a call or a side effect: it would be evaluated once per "
               "piece",
               i == 2 ? "shared memory size" : "stream");
      return 0;
    }
  for (int i = 0; i < nargs; i++) {
    const graph_site_arg *a = &site->args[i];
    /* a pointer the kernel never dereferences stays as it is (it may be
     * NULL, or compared with something) */
    int is_ptr = ki->params[i].is_pointer && ki->params[i].mode != ACCESS_NONE && !a->null_const;
    const char *fail = NULL;
    if (!a->pure)
      fail = "has a call or a side effect: it would be evaluated once per piece";
    else if ((i == count || is_ptr) && !editable_arg(a, cb, ce))
      fail = "is not written as one expression in the launch";
    else if (i == count && !a->integer)
      fail = "is the count but not an integer";
    /* pointer arithmetic is in elements of the argument's own pointee:
     * that must be the parameter's element */
    if (!fail && i != count && is_ptr &&
        (a->pointee_bytes <= 0 || a->pointee_bytes != elem_bytes_of(g, site, ki, i)))
      fail = "points to elements of another size than the parameter's";
    if (fail) {
      snprintf(why, why_n, "argument %d ('%.80s') %s", i, a->text ? a->text : "?", fail);
      return 0;
    }
    if (i != count && !is_ptr) continue; /* a value every piece passes as it is */
    if (i == count) {
      sp->count_type = strdup(a->type);
      if (!sp->count_type) return -1;
    }
    if (add_edit(sp, a->begin, a->end, i == count ? RW_SPLIT_COUNT : RW_SPLIT_PTR) != 0) {
      snprintf(why, why_n, "the launch has more than %d arguments", MAX_SPLIT_EDITS - 2);
      return 0;
    }
  }
  for (int i = 1; i < sp->n_edits; i++)
    if (sp->edits[i].begin < sp->edits[i - 1].end) {
      snprintf(why, why_n, "two of its arguments come from one macro");
      return 0;
    }
  /* every declared access is through a pointer argument that moves with
   * the piece, with a known element size */
  for (int i = 0; i < site->n_acc; i++) {
    int arg = site->acc[i].arg, moved = 0;
    if (arg >= 0 && arg < nargs && site->args[arg].in_file)
      for (int k = 0; k < sp->n_edits; k++)
        moved |= sp->edits[k].role == RW_SPLIT_PTR && sp->edits[k].begin == site->args[arg].begin;
    int eb = moved ? elem_bytes_of(g, site, ki, arg) : 0;
    if (eb <= 0) {
      snprintf(why, why_n, "its access through '%.80s' is not one of its pointer arguments",
               site->acc[i].ptr ? site->acc[i].ptr : "?");
      return 0;
    }
    sp->acc_elem_bytes[i] = eb;
    sp->elem_bytes += eb;
  }
  if (site->n_acc == 0) snprintf(why, why_n, "it declares no access");
  return 0;
}

/* 1 if every call path's element count is known at build time and at most
 * TIDAL_SPLIT_GRAIN: tidal_split_elements never cuts such an op, so the
 * loop would only cost (the count from each access's extent over its
 * element size, the sizes bound as the plan binds them). */
static int never_cut(const graph *g, const graph_site *site) {
  for (int k = 0; k < site->n_ops; k++) {
    const graph_op *op = &g->ops[site->ops[k]];
    int seen = 0;
    for (int i = 0; i < op->n_acc; i++) {
      const graph_access *a = &op->acc[i];
      int64_t bytes;
      if (a->mode == ACCESS_NONE || a->unmanaged || a->split_elem_bytes <= 0) continue;
      if (sym_eval(a->bytes, bind_value_fn, (void *)&g->binds, &bytes) != 0 ||
          bytes / a->split_elem_bytes > (int64_t)TIDAL_SPLIT_GRAIN)
        return 0;
      seen = 1;
    }
    if (!seen) return 0;
  }
  return 1;
}

int rw_split_plan(const graph *g, const graph_site *site, rw_split **out, char **no_split) {
  *out = NULL;
  *no_split = NULL;
  if (site->skip || site->kind != GRAPH_OP_LAUNCH || site->n_ops == 0) return 0;
  int any = 0;
  for (int k = 0; k < site->n_ops; k++)
    any |= g->ops[site->ops[k]].split != 0;
  if (!any || never_cut(g, site)) return 0;
  rw_split *sp = calloc(1, sizeof *sp);
  if (!sp) return -1;
  sp->edits = calloc(MAX_SPLIT_EDITS, sizeof *sp->edits);
  sp->acc_elem_bytes = calloc((size_t)site->n_acc + 1, sizeof *sp->acc_elem_bytes);
  char why[384] = "";
  if (!sp->edits || !sp->acc_elem_bytes || check_launch(g, site, sp, why, sizeof why) != 0) {
    rw_split_free(sp);
    return -1;
  }
  if (!why[0]) {
    *out = sp;
    return 0;
  }
  rw_split_free(sp);
  size_t n = strlen(site->callee) + strlen(why) + 64;
  *no_split = malloc(n);
  if (!*no_split) return -1;
  snprintf(*no_split, n, "split op %s runs whole: %s", site->callee, why);
  return 0;
}

void rw_split_free(rw_split *sp) {
  if (!sp) return;
  free(sp->edits);
  free(sp->count_type);
  free(sp->acc_elem_bytes);
  free(sp);
}

void rw_split_edit_text(const rw_split *sp, int idx, const char *src, int i, rw_buf *b) {
  const rw_split_edit *ed = &sp->edits[i];
  switch (ed->role) {
  case RW_SPLIT_GRID:
    rw_buf_printf(b, "tidal_g_%d", idx);
    break;
  case RW_SPLIT_BLOCK:
    rw_buf_printf(b, "tidal_block_%d", idx);
    break;
  case RW_SPLIT_COUNT:
    rw_buf_printf(b, "(%s)tidal_l_%d", sp->count_type, idx);
    break;
  default: /* the piece's current address (Note [relocatable allocations], graph/relocatable.c) */
    rw_buf_puts(b, "TIDAL_AT((");
    rw_buf_putn(b, src + ed->begin, ed->end - ed->begin);
    rw_buf_printf(b, ") + tidal_o_%d)", idx);
    break;
  }
}

/* The source text of the first edit with role r (the original bytes). */
static void edit_source(const rw_split *sp, const char *src, int role, rw_buf *b) {
  for (int i = 0; i < sp->n_edits; i++)
    if (sp->edits[i].role == role) {
      rw_buf_putn(b, src + sp->edits[i].begin, sp->edits[i].end - sp->edits[i].begin);
      return;
    }
}

void rw_split_emit(const rw_lines *L, const graph_site *s, const rw_split *sp, int idx,
                   const char *in, rw_buf *open, rw_buf *close) {
  const char *src = L->src;
  const char *ty = sp->dim3 ? "dim3" : "unsigned int", *x = sp->dim3 ? ".x" : "";
  rw_buf count = {0};
  edit_source(sp, src, RW_SPLIT_COUNT, &count);
  rw_buf_printf(open, "{ /* tidal: op site %d: %s */\n", idx, s->label);
  rw_buf_printf(open, "%s  /* tidal: split op %s over ", in, s->callee);
  rw_put_commented(open, count.p);
  rw_buf_printf(open,
                " elements (%d bytes each over %d array%s): when the whole op would not fit "
                "half the budget it runs in pieces (tidal_split_elements), each pointer "
                "advanced to its piece */\n",
                sp->elem_bytes, s->n_acc, s->n_acc == 1 ? "" : "s");
  rw_buf_printf(open, "%s  static tidal_site tidal_site_%d = {\"%s\", \"%s\", %u, 0.0};\n", in, idx,
                s->label, L->path_c, s->line);
  /* grid and block once, where the launch evaluated them */
  const char *conv = sp->dim3 ? "(" : "(unsigned int)(";
  rw_buf_printf(open, "%s  const %s tidal_grid_%d = %s", in, ty, idx, conv);
  edit_source(sp, src, RW_SPLIT_GRID, open);
  rw_buf_printf(open, "), tidal_block_%d = %s", idx, conv);
  edit_source(sp, src, RW_SPLIT_BLOCK, open);
  rw_buf_puts(open, ");\n");
  rw_buf_printf(open,
                "%s  const size_t tidal_n_%d = tidal_split_count((%s)(%s), tidal_grid_%d%s, "
                "tidal_block_%d%s, %d);\n",
                in, idx, sp->count_type, count.p ? count.p : "0", idx, x, idx, x, sp->grid_stride);
  rw_buf_printf(open, "%s  const size_t tidal_step_%d = tidal_split_elements(tidal_n_%d, %d);\n",
                in, idx, idx, sp->elem_bytes);
  rw_buf_printf(open, "%s  size_t tidal_o_%d = 0;\n", in, idx);
  rw_buf_printf(open, "%s  do { /* one piece: elements [tidal_o_%d, tidal_o_%d + tidal_l_%d) */\n",
                in, idx, idx, idx);
  rw_buf_printf(open,
                "%s    const size_t tidal_l_%d = tidal_n_%d - tidal_o_%d < tidal_step_%d ? "
                "tidal_n_%d - tidal_o_%d : tidal_step_%d;\n",
                in, idx, idx, idx, idx, idx, idx, idx);
  rw_buf_printf(open, "%s    %s tidal_g_%d = tidal_grid_%d;\n", in, ty, idx, idx);
  rw_buf_printf(open, "%s    if (tidal_step_%d < tidal_n_%d) /* split: %s */\n", in, idx, idx,
                sp->grid_stride ? "fewer blocks when the piece needs fewer (grid-stride kernel)"
                                : "one thread per element of the piece");
  rw_buf_printf(open,
                "%s      tidal_g_%d%s = tidal_split_grid_x(tidal_grid_%d%s, tidal_block_%d%s, "
                "tidal_l_%d, %d);\n",
                in, idx, x, idx, x, idx, x, idx, sp->grid_stride);
  rw_buf_printf(open, "%s    const tidal_access tidal_acc_%d[%d] = {\n", in, idx, s->n_acc);
  for (int i = 0; i < s->n_acc; i++) {
    const graph_site_access *a = &s->acc[i];
    rw_buf_printf(open, "%s      {(const void *)((%s) + tidal_o_%d), tidal_l_%d * %d, %s},", in,
                  a->ptr, idx, idx, sp->acc_elem_bytes[i], rw_mode_name(a));
    if (a->mode == ACCESS_WRITE && !a->exact)
      rw_buf_puts(open, " /* write not proven to cover every byte: declared readwrite */");
    rw_buf_puts(open, "\n");
  }
  rw_buf_printf(open, "%s    };\n", in);
  rw_buf_printf(open, "%s    TIDAL_OP_BEGIN(&tidal_site_%d, %d, tidal_acc_%d);", in, idx, s->n_acc,
                idx);
  rw_line_restore(L, s->stmt_begin, open);
  rw_buf_printf(close, " TIDAL_OP_END(&tidal_site_%d);\n", idx);
  rw_buf_printf(close, "%s    tidal_o_%d += tidal_l_%d;\n", in, idx, idx);
  rw_buf_printf(close, "%s  } while (tidal_o_%d < tidal_n_%d);\n%s}", in, idx, idx, in);
  rw_line_restore(L, s->stmt_end, close);
  if (count.oom) open->oom = 1;
  rw_buf_free(&count);
}
