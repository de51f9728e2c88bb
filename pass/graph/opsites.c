/* opsites.c - op sites: kernel launches (`k<<<g, b, s, st>>>(...)` and
 * cudaLaunchKernel) and every call the library model (libcalls.h) marks as
 * an op, recorded as graph ops with their accesses while the interpreter
 * (interp.c and its interp_*.c) walks the training loop body.
 *
 * Decisions:
 *  - A launch's accesses come from the kernel analysis (kernels.h): each
 *    pointer parameter's extent, over the kernel's parameter names, has
 *    the launch's argument values substituted (loop context: values that
 *    went through the call chain; local context: the arguments as written)
 *    and is scaled by the element size.
 *  - A kernel write is exact - every byte of its extent overwritten, which
 *    lets the runtime map an evicted chunk fresh and the planner drop what
 *    it overwrites - only when proven: the parameter is dense (kernels.c
 *    Note [dense]) and this launch provides the threads or blocks the proof
 *    needs (kernels_launch_covers: grid.x*block.x >= threads_needed or
 *    grid.x >= blocks_needed after substituting the launch's arguments),
 *    shown symbolically for ceil-division grids or numerically from the
 *    graph's bindings, in the loop context or the local one.  Anything
 *    else is an inexact write, declared readwrite.  See
 *    docs/graph-format.md.
 *  - Library calls hand their argument values to libcall_accesses; the
 *    descriptors they take are resolved from the setter calls the
 *    interpreter saw (a GV_DESC value in the descriptor variable).
 *  - Soundness before precision (Note [conservative accesses]): a pointer
 *    whose allocation is known but whose offset is carried around a loop
 *    (interp_loop.c, Note [loop-carried values]) is an inexact readwrite of
 *    its whole allocation, listed under "unresolved"; another unknown
 *    offset (`p + (k % 2) * M`) stays out of the plan's model but is
 *    listed too (the runtime still gets the op site's pointer); a kernel parameter that is a struct holding
 *    device pointers declares each pointer field it holds as a readwrite
 *    of unknown extent; memory tidal does not manage (cudaMallocManaged,
 *    pinned host) is never declared (graph_access.unmanaged).
 *  - FLOPs: library calls from the model; kernels a rough one per element
 *    touched (documented as such; the planner only needs an order).
 *  - Launches that may run in pieces: Note [split launches].
 *  - Once an op's accesses are recorded, calltext.c adds their texts at
 *    every level of the call path (graph_access.ptr_text_at). */
#include <stdlib.h>
#include <string.h>

#include "graph/calltext.h"
#include "graph/opsites.h"
#include "graph/regions.h"
#include "analysis/libcalls.h"

#define OPSITE_MAX_ACC 32 /* accesses kept per op */

static int is_config_call(CXCursor c) {
  c = cursor_strip_casts(c);
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return 0;
  char *n = gb_callee_name(c);
  int r = n && (strstr(n, "PushCallConfiguration") || strcmp(n, "cudaConfigureCall") == 0);
  free(n);
  return r;
}

/* The launch configuration call of k<<<...>>>(...), or a null cursor. */
static CXCursor launch_config(CXCursor call) {
  /* the callee, then the configuration, then the arguments: only the
   * first three children can be the configuration */
  CXCursor ch[3];
  int n = cursor_children(call, ch, 3);
  for (int i = 0; i < n && i < 3; i++)
    if (is_config_call(ch[i])) return cursor_strip_casts(ch[i]);
  return clang_getNullCursor();
}

static int is_global_fn(CXCursor decl) {
  if (clang_Cursor_isNull(decl)) return 0;
  CXCursor *ch;
  int n = cursor_children_all(decl, &ch), global = 0;
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_CUDAGlobalAttr) global = 1;
  free(ch);
  return global;
}

CXCursor opsite_launched_kernel(CXCursor call) {
  if (clang_Cursor_getNumArguments(call) < 1) return clang_getNullCursor();
  CXCursor a = cursor_strip_casts(clang_Cursor_getArgument(call, 0));
  if (clang_getCursorKind(a) == CXCursor_UnaryOperator) {
    CXCursor ch[1];
    if (cursor_children(a, ch, 1) == 1) a = cursor_strip_casts(ch[0]);
  }
  if (clang_getCursorKind(a) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  return clang_getCursorReferenced(a);
}

int opsite_is_op(const kernel_table *kt, CXCursor call) {
  CXCursor decl = gb_callee_decl(call);
  if (is_global_fn(decl)) return 1;
  char *name = gb_callee_name(call);
  if (!name) return 0;
  int r = 0;
  if (strcmp(name, "cudaLaunchKernel") == 0) {
    r = 1;
  } else {
    const libcall_info *li = libcall_find(name);
    r = li && (li->flags & LIBCALL_OP);
  }
  free(name);
  return r;
}

static char *type_text(CXCursor e) {
  return string_and_dispose(clang_getTypeSpelling(clang_getCursorType(e)));
}

/* ---- library call environment ---- */

typedef struct libenv_ud {
  gb *b;
  gb_frame *f;
  CXCursor call;
  int local; /* sizes in the op's own names (interp_call.c, Note [descriptor extents at the op]) */
} libenv_ud;

/* The store key of the descriptor variable argument arg names (`l`,
 * `&l`, `this->l`), NULL if none. */
static const char *desc_key(gb *b, gb_frame *f, CXCursor call, int arg) {
  CXCursor a = cursor_strip_casts(clang_Cursor_getArgument(call, (unsigned)arg));
  if (clang_getCursorKind(a) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf) {
    gval v = gb_eval(b, f, a);
    return v.k == GV_ADDR ? gb_resolve_alias(b, v.path) : NULL;
  }
  enum CXCursorKind k0 = clang_getCursorKind(a);
  if (k0 != CXCursor_DeclRefExpr && k0 != CXCursor_MemberRefExpr) return NULL;
  const char *k = gb_lvalue(b, f, a, NULL, NULL);
  return k ? gb_resolve_alias(b, k) : NULL;
}

/* An integer kept beside a descriptor ("KEY.@slot"), NULL if not set;
 * *maybe set when it was set on some paths only (gval.maybe). */
static sym *desc_int_m(gb *b, const char *key, const char *slot, int *maybe) {
  gval *v = key ? gb_lookup(b, gb_fmt(b, "%s.@%s", key, slot)) : NULL;
  if (!v) return NULL;
  if (maybe && v->maybe) *maybe = 1;
  return v->k == GV_INT && v->s ? v->s : sym_unknown(b->a);
}

static sym *desc_int(gb *b, const char *key, const char *slot) {
  return desc_int_m(b, key, slot, NULL);
}

/* 1 if the descriptor at key was set in frame f's own activation: its
 * sizes in the setter's names are then the op's (interp_call.c, Note
 * [descriptor extents at the op]). */
static int desc_same_frame(gb *b, gb_frame *f, const char *key) {
  gval *fr = key ? gb_lookup(b, gb_fmt(b, "%s.@frame", key)) : NULL;
  int64_t id;
  return fr && fr->k == GV_INT && sym_get_const(fr->s, &id) && f && id == f->id;
}

/* A cublasLt layout's type, rows, cols, ld (kept by the setter as @d0..3;
 * local: @ld0..3, in the setter's names) and batch attributes; 0 when the
 * key holds no layout.  *maybe: the batch was set on some paths only. */
static int lt_layout(gb *b, const char *key, libcall_lt_layout *l, int *maybe, int local) {
  memset(l, 0, sizeof *l);
  gval *nd = key ? gb_lookup(b, gb_fmt(b, "%s.@nd", key)) : NULL;
  int64_t n;
  if (!nd || nd->k != GV_INT || !sym_get_const(nd->s, &n) || n != 4) return 0;
  l->type = desc_int(b, key, local ? "ld0" : "d0");
  l->rows = desc_int(b, key, local ? "ld1" : "d1");
  l->cols = desc_int(b, key, local ? "ld2" : "d2");
  l->ld = desc_int(b, key, local ? "ld3" : "d3");
  l->batch = desc_int_m(b, key, "batch", maybe);
  l->stride = desc_int_m(b, key, "stride", maybe);
  if (local) {
    if (l->batch) l->batch = desc_int(b, key, "l.batch");
    if (l->stride) l->stride = desc_int(b, key, "l.stride");
  }
  return 1;
}

/* Bytes and density of the descriptor argument arg: a batched cublasLt
 * layout's from its attributes (analysis/libcalls_cublaslt.c, Note
 * [cublasLt descriptors]), else what its setter computed.  NULL when
 * unknown.  A batch set on some paths only gives the batched extent, never
 * dense (the other paths touch the first matrix only). */
static sym *descriptor_extent(libenv_ud *u, int arg, int *dense) {
  const char *key = desc_key(u->b, u->f, u->call, arg);
  libcall_lt_layout l;
  sym *bytes;
  int maybe = 0;
  /* set in another frame: the loop-level size, as before (its names are
   * the object's: calltext.c, Note [object-named sizes]) */
  int local = u->local && desc_same_frame(u->b, u->f, key);
  if (key && lt_layout(u->b, key, &l, &maybe, local) && l.batch) {
    if (libcall_lt_layout_bytes(u->b->a, &l, &bytes, dense) != 0) return NULL;
    if (maybe) *dense = 0;
    return bytes;
  }
  if (local) {
    gval *lb = gb_lookup(u->b, gb_fmt(u->b, "%s.@lbytes", key));
    gval *d = gb_lookup(u->b, key);
    *dense = d && d->k == GV_DESC ? d->dense : 0;
    return lb && lb->k == GV_INT && lb->s && !sym_is_unknown(lb->s) ? lb->s : NULL;
  }
  gval v = gb_eval(u->b, u->f, clang_Cursor_getArgument(u->call, (unsigned)arg));
  if (v.k == GV_ADDR) {
    gval *p = gb_lookup(u->b, v.path);
    if (p) v = *p;
  }
  *dense = v.k == GV_DESC ? v.dense : 0;
  return v.k == GV_DESC ? v.s : NULL;
}

static sym *env_descriptor_bytes(void *ud, int arg) {
  int dense;
  return descriptor_extent(ud, arg, &dense);
}

static int env_descriptor_dense(void *ud, int arg) {
  libenv_ud *u = ud;
  const char *key = desc_key(u->b, u->f, u->call, arg);
  libcall_lt_layout l;
  int maybe = 0;
  if (key && lt_layout(u->b, key, &l, &maybe, 0) && l.batch) {
    int dense = 0;
    descriptor_extent(u, arg, &dense);
    return dense;
  }
  gval v = gb_eval(u->b, u->f, clang_Cursor_getArgument(u->call, (unsigned)arg));
  return v.k == GV_DESC ? v.dense : 0;
}

/* Note [zero beta]: `float alpha = 1.0f, beta = 0.0f;` then `&beta` as a
 * GEMM's or cuDNN op's beta makes the output written, not read-modify-
 * written.  The scalar is proven 0 when it is initialised to 0 and never
 * written after: const, or a local of its function whose every use there is
 * `&x` passed to a pointer-to-const parameter (no assignment, no ++, no
 * address escaping to a callee that may write, no lambda capture). */
typedef struct zero_uses {
  CXCursor var;
  int uses, safe;
} zero_uses;

/* The parameter type of argument i of call (the declaration's). */
static int param_is_const_pointer(CXCursor call, int i) {
  CXCursor fn = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(fn) || i >= clang_Cursor_getNumArguments(fn)) return 0;
  CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
  return t.kind == CXType_Pointer && clang_isConstQualifiedType(clang_getPointeeType(t));
}

static int is_ref_to(CXCursor e, CXCursor var) {
  return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
         clang_equalCursors(clang_getCursorReferenced(e), var);
}

static enum CXChildVisitResult zero_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  zero_uses *u = d;
  if (is_ref_to(c, u->var)) u->uses++;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    int n = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < n; i++) {
      CXCursor a = cursor_strip_casts(clang_Cursor_getArgument(c, (unsigned)i));
      if (clang_getCursorKind(a) != CXCursor_UnaryOperator ||
          clang_getCursorUnaryOperatorKind(a) != CXUnaryOperator_AddrOf)
        continue;
      CXCursor ch[1];
      if (cursor_children(a, ch, 1) == 1 && is_ref_to(cursor_strip_casts(ch[0]), u->var) &&
          param_is_const_pointer(c, i))
        u->safe++;
    }
  }
  return CXChildVisit_Recurse;
}

static int never_written_local(CXCursor d) {
  if (clang_getCursorKind(d) != CXCursor_VarDecl) return 0;
  if (clang_Cursor_getStorageClass(d) == CX_SC_Static) return 0;
  CXCursor fn = clang_getCursorSemanticParent(d);
  enum CXCursorKind fk = clang_getCursorKind(fn);
  if (fk != CXCursor_FunctionDecl && fk != CXCursor_CXXMethod && fk != CXCursor_Constructor)
    return 0; /* a global or a field: written anywhere */
  zero_uses u = {d, 0, 0};
  clang_visitChildren(fn, zero_visitor, &u);
  return u.uses > 0 && u.uses == u.safe;
}

/* 1 if argument `arg` is &x for a float/double x initialised to 0 and never
 * written after (Note [zero beta]). */
static int env_scalar_is_zero(void *ud, int arg) {
  libenv_ud *u = ud;
  CXCursor a = cursor_strip_casts(clang_Cursor_getArgument(u->call, (unsigned)arg));
  if (clang_getCursorKind(a) != CXCursor_UnaryOperator ||
      clang_getCursorUnaryOperatorKind(a) != CXUnaryOperator_AddrOf)
    return 0;
  CXCursor ch[1];
  if (cursor_children(a, ch, 1) != 1) return 0;
  CXCursor r = cursor_strip_casts(ch[0]);
  if (clang_getCursorKind(r) != CXCursor_DeclRefExpr) return 0;
  CXCursor d = clang_getCursorReferenced(r);
  if (!clang_isConstQualifiedType(clang_getCursorType(d)) && !never_written_local(d)) return 0;
  CXEvalResult ev = clang_Cursor_Evaluate(d);
  if (!ev) return 0;
  int zero = 0;
  if (clang_EvalResult_getKind(ev) == CXEval_Float) zero = clang_EvalResult_getAsDouble(ev) == 0.0;
  else if (clang_EvalResult_getKind(ev) == CXEval_Int) zero = clang_EvalResult_getAsLongLong(ev) == 0;
  clang_EvalResult_dispose(ev);
  return zero;
}

/* ---- recording ---- */

static char *join_label(gb *b, const char *callee) {
  size_t len = strlen(callee) + 1;
  for (int i = 0; i < b->n_path; i++) len += strlen(b->path[i].function) + 4;
  char *s = malloc(len);
  if (!s) return NULL;
  s[0] = '\0';
  for (int i = 0; i < b->n_path; i++) {
    strcat(s, b->path[i].function);
    strcat(s, " -> ");
  }
  strcat(s, callee);
  return s;
}

static graph_op *new_op(gb *b, gb_frame *f, CXCursor call, const char *callee, graph_op_kind kind) {
  graph *g = b->g;
  int id = graph_add_op(g);
  if (id < 0) return NULL;
  graph_op *op = &g->ops[id];
  op->id = id;
  op->kind = kind;
  op->callee = strdup(callee);
  op->label = join_label(b, callee);
  gb_location(b, call, &op->file, &op->line, &op->col);
  op->stmt = b->have_stmt ? gb_range(b, b->cur_stmt, 1) : gb_range(b, call, 0);
  op->n_calls = b->n_path;
  if (b->n_path) {
    op->calls = calloc((size_t)b->n_path, sizeof *op->calls);
    for (int i = 0; op->calls && i < b->n_path; i++) {
      op->calls[i] = b->path[i];
      op->calls[i].function = strdup(b->path[i].function);
      op->calls[i].file = strdup(b->path[i].file);
    }
  }
  op->loop = b->n_loops ? b->loops[b->n_loops - 1].id : -1;
  op->top_loop = -1;
  for (int i = b->n_loops - 1; i >= 0; i--)
    if (b->loops[i].frame == b->loop_frame) {
      op->top_loop = b->loops[i].id;
      break;
    }
  op->flops = sym_unknown(b->a);
  op->phase = TRACE_OTHER;
  op->branch = b->cur_branch;
  op->maybe = b->maybe > 0;
  int n = clang_Cursor_getNumArguments(call);
  if (n > 0) {
    op->n_args = n;
    op->arg_text = calloc((size_t)n, sizeof *op->arg_text);
    op->arg_type = calloc((size_t)n, sizeof *op->arg_type);
    for (int i = 0; i < n && op->arg_text && op->arg_type; i++) {
      CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
      op->arg_text[i] = strdup(gb_text(b, a));
      op->arg_type[i] = type_text(a);
    }
  }
  (void)f;
  return op;
}

static void add_access_one(gb *b, graph_op *op, CXCursor arg_c, gval v, int arg,
                           access_mode mode, sym *bytes, sym *bytes_local, int exact,
                           const char *param, const char *local_text);

/* One access of argument arg, or one per pointer it may be when chosen at
 * run time (interp_select.c, Note [either pointer]): each a readwrite
 * where the op writes, none exact, each written as the argument (the
 * expression that chooses), its tensor named after its own pointer. */
static void add_access(gb *b, graph_op *op, CXCursor arg_c, gval v, int arg, access_mode mode,
                       sym *bytes, sym *bytes_local, int exact, const char *param,
                       const char *local_text) {
  if (!v.alt) {
    add_access_one(b, op, arg_c, v, arg, mode, bytes, bytes_local, exact, param, local_text);
    return;
  }
  access_mode m = mode == ACCESS_WRITE ? ACCESS_READWRITE : mode;
  int added = 0;
  for (const gval *p = &v; p; p = p == &v ? v.alt : p->alt) {
    int64_t z;
    if (p->k == GV_INT && p->s && sym_get_const(p->s, &z) && z == 0) continue; /* NULL */
    gval one = *p;
    one.alt = NULL;
    add_access_one(b, op, arg_c, one, arg, m, bytes, bytes_local, 0, param, local_text);
    graph_access *a = &op->acc[op->n_acc - 1];
    free(a->ptr_text);
    a->ptr_text = v.text ? strdup(v.text) : NULL;
    a->loop_text_valid = v.text && v.text_ok;
    added++;
  }
  if (!added) { /* NULL whichever is chosen */
    gval z = gb_int(b, sym_const(b->a, 0), v.text, v.text_ok);
    add_access_one(b, op, arg_c, z, arg, mode, bytes, bytes_local, 0, param, local_text);
  }
}

static void add_access_one(gb *b, graph_op *op, CXCursor arg_c, gval v, int arg,
                           access_mode mode, sym *bytes, sym *bytes_local, int exact,
                           const char *param, const char *local_text) {
  graph_access *n = realloc(op->acc, (size_t)(op->n_acc + 1) * sizeof *n);
  if (!n) return;
  op->acc = n;
  graph_access *a = &op->acc[op->n_acc++];
  memset(a, 0, sizeof *a);
  a->mode = mode;
  a->bytes = bytes ? bytes : sym_unknown(b->a);
  a->bytes_local = bytes_local ? bytes_local : sym_unknown(b->a);
  a->exact = exact && !sym_is_unknown(a->bytes);
  a->arg = arg;
  a->param = param ? strdup(param) : NULL;
  a->ptr_local = strdup(local_text ? local_text : gb_text(b, arg_c));
  a->ptr_text = v.text ? strdup(v.text) : NULL;
  a->loop_text_valid = v.text && v.text_ok;
  int64_t zero;
  if (v.k == GV_INT && v.s && sym_get_const(v.s, &zero) && zero == 0) {
    /* NULL / nullptr / 0 for an optional pointer: nothing is accessed, so
     * nothing is declared, and it is not unresolved (which would turn every
     * drop off) */
    a->null_arg = 1;
    a->unmanaged = 1;
    a->offset = sym_unknown(b->a);
    a->tensor = -1;
    a->exact = 0;
  } else if (v.k == GV_DEVPTR && v.family && !v.carried && v.delta && !sym_is_unknown(v.delta)) {
    /* an element of an array of device pointers (elements.c, Note [element families]) */
    a->offset = v.delta;
    a->index = v.index;
    a->tensor = regions_tensor_family(b, &v, a->bytes, v.text);
  } else if (v.unmanaged) {
    /* not tidal memory: its site never declares it (siteacc.c) */
    a->unmanaged = 1;
    a->offset = sym_unknown(b->a);
    a->tensor = -1;
  } else if (v.k == GV_DEVPTR && v.alloc >= 0 && v.carried &&
             sym_is_unknown(sym_add(b->a, v.base ? v.base : sym_const(b->a, 0),
                                    v.delta ? v.delta : sym_const(b->a, 0)))) {
    /* Note [conservative accesses]: somewhere in the allocation - every byte
     * of it may be touched, none is proven overwritten */
    a->offset = sym_const(b->a, 0);
    a->bytes = sym_unknown(b->a);
    a->exact = 0;
    if (a->mode == ACCESS_WRITE) a->mode = ACCESS_READWRITE;
    a->tensor = regions_tensor_whole(b, v.alloc);
    char *t = frontend_cursor_text(b->t, arg_c);
    gb_note(b, arg_c, "pointer '%s' passed to %s: offset carried around a loop; the access "
            "covers all of '%s' (conservative)", t ? t : "?", op->callee,
            b->g->allocs[v.alloc].name);
    free(t);
  } else if (v.k == GV_DEVPTR && v.alloc >= 0 && sym_is_unknown(v.delta ? v.delta : sym_const(b->a, 0))) {
    /* an offset the interpreter cannot compute (`p + (k % 2) * M`): declared
     * to the runtime from the op site's text, but outside the plan's model */
    a->offset = sym_unknown(b->a);
    a->tensor = -1;
    char *t = frontend_cursor_text(b->t, arg_c);
    gb_note(b, arg_c, "pointer '%s' passed to %s: offset into '%s' unknown; declared at run "
            "time, not modelled by the plan", t ? t : "?", op->callee, b->g->allocs[v.alloc].name);
    free(t);
  } else if (v.k == GV_DEVPTR && v.alloc >= 0) {
    a->offset = sym_add(b->a, v.base ? v.base : sym_const(b->a, 0),
                        v.delta ? v.delta : sym_const(b->a, 0));
    a->tensor = regions_tensor_for(b, &v, a->bytes, v.text);
  } else {
    a->offset = sym_unknown(b->a);
    a->tensor = -1;
    char *t = frontend_cursor_text(b->t, arg_c);
    /* what happens instead: the rewriter still declares the access from
     * the argument's text, so the runtime restores it (or fails loudly
     * when it is not tidal memory); the plan cannot see it */
    gb_note(b, arg_c, "pointer '%s' passed to %s is not traced to a cudaMalloc; its accesses are "
            "declared at run time from its text, outside the plan's model (no drops are planned "
            "while one exists)", t ? t : "?", op->callee);
    free(t);
  }
}

typedef struct subst_ud {
  const kernel_info *k;
  sym **vals;
  sym_arena *a;
  sym *grid[3], *block[3]; /* the launch's dimensions, for extents that name them */
} subst_ud;

static sym *param_lookup(void *ud, const char *name) {
  subst_ud *u = ud;
  for (int i = 0; i < u->k->n_params; i++)
    if (u->k->params[i].name && strcmp(u->k->params[i].name, name) == 0) return u->vals[i];
  return kernels_launch_dim3(u->a, name, u->grid, u->block);
}

/* Note [launch dimensions]: a kernel's extent may name its launch's grid
 * and block in x, y and z (analysis/kernels.c, Note [launch bounds]; a 2D
 * matmul indexes rows by blockIdx.x and columns by blockIdx.y).  The
 * configuration arguments give them: an integer is (n, 1, 1); a dim3
 * built in place (`dim3(CEIL_DIV(N, 128), CEIL_DIV(OC, 128))`) its
 * arguments, 1 for those left out; a dim3 variable its fields as the
 * interpreter stored them (`dim3 grid(x, y);`, `dim3 block = {4, 8, 32};`,
 * interp_call.c), and in the op's own text `grid.y`.  What is not known is
 * unknown, and the extent with it, as before. */
static sym *dim_int(gb *b, gb_frame *f, CXCursor e, int local) {
  if (local) {
    sym *v = gb_eval_local(b, e);
    return v ? v : sym_unknown(b->a);
  }
  gval v = gb_eval(b, f, e);
  return v.k == GV_INT && v.s ? v.s : sym_unknown(b->a);
}

static void dims_of(gb *b, gb_frame *f, CXCursor e, int local, sym *out[3]) {
  out[0] = out[1] = out[2] = sym_unknown(b->a);
  for (int guard = 0; guard < 8 && !clang_Cursor_isNull(e); guard++) {
    CXCursor s = cursor_strip_casts(e);
    CXType t = clang_getCanonicalType(clang_getCursorType(s));
    if (t.kind != CXType_Record) {
      out[0] = dim_int(b, f, s, local);
      out[1] = out[2] = sym_const(b->a, 1);
      return;
    }
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_CallExpr || k == CXCursor_InitListExpr) {
      CXCursor *ch = NULL;
      int n = k == CXCursor_CallExpr ? clang_Cursor_getNumArguments(s) : cursor_children_all(s, &ch);
      CXCursor a0 = n >= 1 ? (ch ? ch[0] : clang_Cursor_getArgument(s, 0)) : clang_getNullCursor();
      if (n == 1 && clang_getCanonicalType(clang_getCursorType(cursor_strip_casts(a0))).kind == CXType_Record) {
        free(ch); /* a copy of another dim3 */
        e = a0;
        continue;
      }
      for (int i = 0; i < 3; i++) {
        if (i >= n) {
          out[i] = sym_const(b->a, 1);
          continue;
        }
        out[i] = dim_int(b, f, ch ? ch[i] : clang_Cursor_getArgument(s, (unsigned)i), local);
      }
      free(ch);
      return;
    }
    if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) {
      const char *text = NULL;
      int ok = 0;
      const char *key = gb_lvalue(b, f, s, &text, &ok);
      static const char *const comp[3] = {"x", "y", "z"};
      for (int i = 0; i < 3; i++) {
        if (local) {
          char *w = gb_text(b, s);
          out[i] = w && *w ? sym_var(b->a, gb_fmt(b, "%s.%s", w, comp[i])) : sym_unknown(b->a);
          continue;
        }
        gval *v = key ? gb_lookup(b, gb_fmt(b, "%s.%s", key, comp[i])) : NULL;
        out[i] = v && v->k == GV_INT && v->s ? v->s : sym_unknown(b->a);
      }
      return;
    }
    return;
  }
}

static void launch_dims(gb *b, gb_frame *f, CXCursor call, int local, sym *grid[3],
                        sym *block[3]) {
  CXCursor gc, bc;
  kernels_launch_config(call, &gc, &bc);
  dims_of(b, f, gc, local, grid);
  dims_of(b, f, bc, local, block);
}

/* Pointer fields of a struct argument (`adam<<<...>>>(args, n)` with
 * `struct AdamArgs { float *p, *g; }`), nested structs included: each
 * field's stored value (path.field) is declared a readwrite of unknown
 * extent - what the kernel does through it is not analysed.  Returns the
 * fields declared. */
static int struct_field_accesses(gb *b, graph_op *op, CXCursor arg_c, CXType rec, const char *path,
                                 const char *loop_text, int text_ok, const char *local_text,
                                 const char *param, int arg, int depth) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(rec));
  CXCursor *fl; /* every field, however many the struct has */
  int nf = cursor_children_all(decl, &fl), found = 0;
  for (int i = 0; i < nf && depth < 4; i++) {
    if (clang_getCursorKind(fl[i]) != CXCursor_FieldDecl) continue;
    CXType ft = clang_getCanonicalType(clang_getCursorType(fl[i]));
    char *fname = string_and_dispose(clang_getCursorSpelling(fl[i]));
    const char *fpath = path ? gb_fmt(b, "%s.%s", path, fname) : NULL;
    const char *ftext = loop_text ? gb_fmt(b, "%s.%s", loop_text, fname) : NULL;
    const char *flocal = gb_fmt(b, "%s.%s", local_text, fname);
    const char *fparam = gb_fmt(b, "%s.%s", param, fname);
    if (ft.kind == CXType_Record) {
      found += struct_field_accesses(b, op, arg_c, ft, fpath, ftext, text_ok, flocal, fparam, arg,
                                     depth + 1);
    } else if (ft.kind == CXType_Pointer) {
      gval *st = fpath ? gb_lookup(b, fpath) : NULL;
      gval v = st ? *st : gb_int(b, NULL, NULL, 0);
      if (!st) v.k = GV_NONE;
      v.text = ftext;
      v.text_ok = ftext && text_ok;
      v.prec = 0;
      add_access(b, op, arg_c, v, arg, ACCESS_READWRITE, NULL, NULL, 0, fparam, flocal);
      found++;
    }
    free(fname);
  }
  free(fl);
  return found;
}

/* Note [split launches]: a launch `k<<<g, b[, shm, st]>>>(...)` of a
 * kernel proven elementwise (split.c, Note [elementwise split]) may run in
 * pieces (graph_op.split) when every pointer it touches is a resolved
 * tensor (not NULL, not unmanaged, not unresolved: the pieces advance each
 * pointer, and the runtime must see every piece's bytes), each element has
 * a size, each access's extent is exactly count * elem_bytes, and, for a
 * kernel that is not grid-stride, the launch provably has grid.x * block.x
 * >= count: the rewritten program clamps the count to the launch's threads
 * (rewrite_split.c, Note [split launch]), so only then is the count it
 * splits the one the trace, the plan and replay split.  cudaLaunchKernel
 * is never split: its arguments live in an array the pieces would have to
 * rebuild. */
static void split_launch(gb *b, graph_op *op, const kernel_info *ki, CXCursor call,
                         sym **loopv, sym **localv, sym *grid_l, sym *block_l, sym *grid_c,
                         sym *block_c) {
  int c = ki->split_count_param;
  if (b->g->no_split || !ki->split || c < 0 || c >= ki->n_params || !op->grid || !op->block)
    return;
  if (c >= clang_Cursor_getNumArguments(call)) return;
  CXType ct = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(call, (unsigned)c)));
  if (!((ct.kind >= CXType_Bool && ct.kind <= CXType_Int128) || ct.kind == CXType_Enum)) return;
  if (!localv[c] || sym_is_unknown(localv[c])) return;
  if (!ki->split_grid_stride) {
    kernel_param need;
    memset(&need, 0, sizeof need);
    need.dense = 1;
    need.threads_needed = sym_var(b->a, ki->params[c].name);
    if (!kernels_launch_covers(b->a, ki, &need, loopv, grid_l, block_l, bind_value_fn,
                               &b->g->binds) &&
        !kernels_launch_covers(b->a, ki, &need, localv, grid_c, block_c, NULL, NULL))
      return;
  }
  int found = 0;
  for (int i = 0; i < ki->n_params; i++) {
    const kernel_param *p = &ki->params[i];
    if (!p->is_pointer || p->mode == ACCESS_NONE) continue;
    if (p->elem_bytes <= 0) return;
    const graph_access *a = NULL;
    for (int j = 0; j < op->n_acc && !a; j++)
      if (op->acc[j].arg == i) a = &op->acc[j];
    if (!a || a->tensor < 0 || a->null_arg || a->unmanaged) return;
    sym *eb = sym_const(b->a, p->elem_bytes);
    int64_t z;
    sym *dl = sym_sub(b->a, a->bytes_local, sym_mul(b->a, localv[c], eb));
    if (!sym_get_const(dl, &z) || z != 0) return;
    if (loopv[c] && !sym_is_unknown(loopv[c])) {
      sym *d = sym_sub(b->a, a->bytes, sym_mul(b->a, loopv[c], eb));
      if (!sym_get_const(d, &z) || z != 0) return;
    }
    found++;
  }
  if (!found) return;
  op->split = 1;
  op->split_count_arg = c;
  op->split_grid_stride = ki->split_grid_stride;
  op->split_count = loopv[c] ? loopv[c] : sym_unknown(b->a);
  for (int j = 0; j < op->n_acc; j++)
    if (op->acc[j].arg >= 0 && op->acc[j].arg < ki->n_params)
      op->acc[j].split_elem_bytes = ki->params[op->acc[j].arg].elem_bytes;
}

static void launch_accesses(gb *b, gb_frame *f, graph_op *op, const kernel_info *ki, CXCursor call,
                            int first_arg, const gval *argv_vals, int nargv, CXCursor kdecl) {
  int n = ki->n_params;
  sym **loopv = calloc((size_t)n + 1, sizeof *loopv);
  sym **localv = calloc((size_t)n + 1, sizeof *localv);
  gval *vals = calloc((size_t)n + 1, sizeof *vals);
  if (!loopv || !localv || !vals) goto out;
  for (int i = 0; i < n; i++) {
    if (argv_vals) {
      vals[i] = i < nargv ? argv_vals[i] : gb_int(b, NULL, NULL, 0);
      localv[i] = vals[i].k == GV_INT ? vals[i].s : sym_unknown(b->a);
    } else {
      int na = clang_Cursor_getNumArguments(call);
      if (first_arg + i >= na) {
        vals[i] = gb_int(b, NULL, NULL, 0);
        localv[i] = sym_unknown(b->a);
      } else {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)(first_arg + i));
        vals[i] = gb_eval(b, f, a);
        localv[i] = gb_eval_local(b, a);
      }
    }
    loopv[i] = vals[i].k == GV_INT ? vals[i].s : sym_unknown(b->a);
  }
  sym *flops = sym_const(b->a, 0);
  sym *g3l[3], *b3l[3], *g3c[3], *b3c[3]; /* Note [launch dimensions] */
  launch_dims(b, f, call, 0, g3l, b3l);
  launch_dims(b, f, call, 1, g3c, b3c);
  sym *grid_l = g3l[0], *block_l = b3l[0];
  sym *grid_c = g3c[0], *block_c = b3c[0];
  for (int i = 0; i < n; i++) {
    const kernel_param *p = &ki->params[i];
    CXType pt = {CXType_Invalid, {0, 0}};
    if (!clang_Cursor_isNull(kdecl) && i < clang_Cursor_getNumArguments(kdecl))
      pt = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(kdecl, (unsigned)i)));
    if (!p->is_pointer && pt.kind == CXType_Record) {
      CXCursor ac = argv_vals ? clang_Cursor_getArgument(call, 3)
                              : clang_Cursor_getArgument(call, (unsigned)(first_arg + i));
      char *at = argv_vals ? NULL : frontend_cursor_text(b->t, ac);
      char *ty = argv_vals ? type_text(clang_Cursor_getArgument(kdecl, (unsigned)i)) : NULL;
      /* cudaLaunchKernel: the struct is *(T *)args[i] at the op site */
      const char *local = argv_vals ? gb_fmt(b, "(*(%s *)(%s)[%d])", ty ? ty : "?", gb_text(b, ac), i)
                                    : gb_fmt(b, "%s", at ? at : "?");
      free(ty);
      free(at);
      const char *path = vals[i].k == GV_ADDR ? vals[i].path : NULL;
      int k = struct_field_accesses(b, op, ac, pt, path, vals[i].text, vals[i].text_ok, local,
                                    p->name ? p->name : "?", argv_vals ? -1 : first_arg + i, 0);
      if (k)
        gb_note(b, ac, "kernel '%s' takes struct '%s' holding device pointers: each is declared "
                "readwrite from the pointer to the end of its allocation (conservative)",
                ki->name, p->name ? p->name : "?");
      continue;
    }
    if (!p->is_pointer || p->mode == ACCESS_NONE) continue;
    /* bindings name loop-context values: the local context is proven
     * symbolically only (a wrapper's `n` is not the loop's) */
    int exact = p->mode == ACCESS_WRITE &&
                (kernels_launch_covers(b->a, ki, p, loopv, grid_l, block_l, bind_value_fn,
                                       &b->g->binds) ||
                 kernels_launch_covers(b->a, ki, p, localv, grid_c, block_c, NULL, NULL));
    subst_ud ul = {ki, loopv, b->a, {g3l[0], g3l[1], g3l[2]}, {b3l[0], b3l[1], b3l[2]}};
    subst_ud uc = {ki, localv, b->a, {g3c[0], g3c[1], g3c[2]}, {b3c[0], b3c[1], b3c[2]}};
    sym *ext = p->extent ? p->extent : sym_unknown(b->a);
    sym *eb = sym_const(b->a, p->elem_bytes > 0 ? p->elem_bytes : 0);
    sym *bytes = p->elem_bytes > 0 ? sym_mul(b->a, sym_subst(b->a, ext, param_lookup, &ul), eb)
                                   : sym_unknown(b->a);
    sym *bytes_l = p->elem_bytes > 0 ? sym_mul(b->a, sym_subst(b->a, ext, param_lookup, &uc), eb)
                                     : sym_unknown(b->a);
    CXCursor ac = argv_vals ? clang_Cursor_getArgument(call, 3)
                            : clang_Cursor_getArgument(call, (unsigned)(first_arg + i));
    /* cudaLaunchKernel: the pointer is *(T **)args[i] at the op site */
    const char *lt = NULL;
    if (argv_vals) {
      char *at = frontend_cursor_text(b->t, ac);
      lt = gb_fmt(b, "*(%s **)(%s)[%d]", p->elem_type ? p->elem_type : "void", at ? at : "args", i);
      free(at);
    }
    add_access(b, op, ac, vals[i], argv_vals ? -1 : first_arg + i, p->mode, bytes, bytes_l, exact,
               p->name, lt);
    flops = sym_add(b->a, flops, p->elem_bytes > 0 ? sym_div(b->a, bytes, eb) : sym_unknown(b->a));
  }
  op->flops = flops;
  op->flags = ki->flags;
  if (!argv_vals) split_launch(b, op, ki, call, loopv, localv, grid_l, block_l, grid_c, block_c);
out:
  free(loopv);
  free(localv);
  free(vals);
}

/* Note [pointer-array batches]: cublas<t>gemmBatched takes device arrays
 * of batchCount pointers (Aarray, Barray, Carray).  A program builds each
 * on the host (`float *h_A[B]; h_A[i] = d_A + i * m * k;`) and copies it
 * to the device (`cudaMemcpy(d_Aarray, h_A, B * sizeof(float *),
 * cudaMemcpyHostToDevice)`).  The interpreter remembers, per device
 * allocation, the host array copied into it before the training loop
 * ("@ptrs:ALLOC"), so at the call the matrices behind the arrays are the
 * host array's elements: each is declared with cublas<t>gemm's formula
 * for that operand (the same argument positions), its run-time text the
 * host array's element (`h_A[2]`).  Only when that host array is a
 * variable of the function making the call, or a global, is it declared:
 * elsewhere its name means nothing at the call, and the matrices stay
 * undeclared as before (a warning; docs/libcalls.md).  Batches of more
 * than 64 matrices are not expanded. */
#define PTR_ARRAY_MAX_BATCH 64

static int const_value(gb *b, sym *s, int64_t *out) {
  return s && sym_eval(s, bind_value_fn, &b->g->binds, out) == 0;
}

/* cudaMemcpy(dst, src, bytes, kind) before the loop, src a host array of
 * device pointers: remembered for dst's allocation.  Only plain lvalues
 * are evaluated (a call in an argument must not run twice). */
static void note_pointer_array_copy(gb *b, gb_frame *f, CXCursor call, const char *name) {
  if (strcmp(name, "cudaMemcpy") != 0 && strcmp(name, "cudaMemcpyAsync") != 0) return;
  if (clang_Cursor_getNumArguments(call) < 4) return;
  CXCursor dst = clang_Cursor_getArgument(call, 0), src = clang_Cursor_getArgument(call, 1);
  CXCursor ds = cursor_strip_casts(dst), ss = cursor_strip_casts(src);
  if (clang_getCursorKind(ss) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(ss) == CXUnaryOperator_AddrOf) {
    CXCursor in[1];
    if (cursor_children(ss, in, 1) == 1) ss = cursor_strip_casts(in[0]);
  }
  if (!gb_plain_lvalue(ds) || !gb_plain_lvalue(ss)) return;
  /* the source's elements are device pointers: `float *h_A[B]`, `float **` */
  CXType st = clang_getCanonicalType(clang_getCursorType(ss));
  CXType et = st.kind == CXType_ConstantArray || st.kind == CXType_IncompleteArray
                  ? clang_getArrayElementType(st)
                  : st.kind == CXType_Pointer ? clang_getPointeeType(st) : st;
  if (clang_getCanonicalType(et).kind != CXType_Pointer) return;
  gval dv = gb_eval(b, f, dst), sv = gb_eval(b, f, src);
  int64_t off;
  if (dv.k != GV_DEVPTR || dv.alloc < 0 || sv.k != GV_ADDR || !sv.path) return;
  sym *at = sym_add(b->a, dv.base ? dv.base : sym_const(b->a, 0),
                    dv.delta ? dv.delta : sym_const(b->a, 0));
  if (!const_value(b, at, &off) || off != 0) return;
  gb_store(b, gb_fmt(b, "@ptrs:%d", dv.alloc), sv);
}

/* The matrices behind a pointer-array batched GEMM's arrays (Note
 * [pointer-array batches]), added to op. */
static void pointer_array_matrices(gb *b, gb_frame *f, graph_op *op, CXCursor call,
                                   const char *name, const libcall_arg *args,
                                   const libcall_arg *largs, const gval *vals, int n,
                                   const libcall_env *env) {
  static const char *const batched[][2] = {
      {"cublasSgemmBatched", "cublasSgemm"}, {"cublasDgemmBatched", "cublasDgemm"},
      {"cublasHgemmBatched", "cublasHgemm"}, {"cublasCgemmBatched", "cublasCgemm"},
      {"cublasZgemmBatched", "cublasZgemm"}};
  const char *single = NULL;
  for (size_t i = 0; i < sizeof batched / sizeof batched[0]; i++)
    if (!strcmp(name, batched[i][0])) single = batched[i][1];
  if (!single || n < 15) return;
  int64_t nb;
  if (vals[14].k != GV_INT || !const_value(b, vals[14].s, &nb) || nb < 1 ||
      nb > PTR_ARRAY_MAX_BATCH) {
    gb_note(b, call, "%s: the batch count is not a known constant of at most %d: the matrices "
            "behind its pointer arrays are not declared", name, PTR_ARRAY_MAX_BATCH);
    return;
  }
  libcall_access macc[8], lmacc[8];
  int nm = libcall_accesses(single, args, 14, env, macc, 8);
  int nl = libcall_accesses(single, largs, 14, env, lmacc, 8);
  for (int m = 0; m < nm; m++) {
    int ai = macc[m].arg;
    if (ai < 0 || ai >= n) continue;
    const gval *av = &vals[ai];
    gval *src = av->k == GV_DEVPTR && av->alloc >= 0 ? gb_lookup(b, gb_fmt(b, "@ptrs:%d", av->alloc))
                                                     : NULL;
    /* "f3:h_A[0]" or "g:h_A[0]": a variable of this function, or a global */
    const char *path = src && src->k == GV_ADDR ? src->path : NULL;
    const char *colon = path ? strchr(path, ':') : NULL;
    const char *lb = colon ? strchr(colon, '[') : NULL;
    char own[32];
    snprintf(own, sizeof own, "f%d:", f ? f->id : -1);
    int in_scope = path && colon && lb && !strcmp(lb, "[0]") &&
                   (!strncmp(path, "g:", 2) || !strncmp(path, own, strlen(own)));
    char *t = frontend_cursor_text(b->t, clang_Cursor_getArgument(call, (unsigned)ai));
    if (!in_scope) {
      gb_note(b, call, "%s: the matrices behind '%s' are not declared: %s", name, t ? t : "?",
              path ? "the host array copied into it is not a variable of this function"
                   : "no copy of a host pointer array into it was seen before the loop");
      free(t);
      continue;
    }
    const char *var = gb_fmt(b, "%.*s", (int)(lb - colon - 1), colon + 1);
    sym *lbytes = m < nl && lmacc[m].arg == ai ? lmacc[m].bytes : NULL;
    for (int64_t i = 0; i < nb; i++) {
      gval *ev = gb_lookup(b, gb_fmt(b, "%.*s[%lld]", (int)(lb - path), path, (long long)i));
      if (!ev || ev->k != GV_DEVPTR) {
        gb_note(b, call, "%s: element %lld of the host array copied into '%s' is not a known "
                "device pointer: it is not declared", name, (long long)i, t ? t : "?");
        continue;
      }
      const char *et = gb_fmt(b, "%s[%lld]", var, (long long)i);
      add_access(b, op, clang_Cursor_getArgument(call, (unsigned)ai), *ev, ai, macc[m].mode,
                 macc[m].bytes, lbytes, macc[m].exact, macc[m].role, et);
    }
    free(t);
  }
}

/* A cublasLtMatmul's epilogue pointers, set on its matmul descriptor
 * (argument 1): the bias and the auxiliary buffer, sized by D's layout
 * (argument 11) (analysis/libcalls_cublaslt.c, Note [cublasLt
 * descriptors]).  Each is written, in the op's text, as the pointer was
 * where it was set (`bias`), which names it at the op when both are in one
 * function.  A pointer or epilogue set on some paths only is declared as
 * if set, never exact. */
static void lt_epilogue_accesses(gb *b, gb_frame *f, graph_op *op, CXCursor call) {
  const char *dk = desc_key(b, f, call, 1);
  if (!dk) return;
  gval *bias = gb_lookup(b, gb_fmt(b, "%s.@bias", dk));
  gval *aux = gb_lookup(b, gb_fmt(b, "%s.@aux", dk));
  int64_t z;
  int has_bias = bias && !(bias->k == GV_INT && bias->s && sym_get_const(bias->s, &z) && z == 0);
  int has_aux = aux && !(aux->k == GV_INT && aux->s && sym_get_const(aux->s, &z) && z == 0);
  if (!has_bias && !has_aux) return;
  libcall_lt_layout d, dl;
  int maybe = 0, lm = 0;
  const char *lk = desc_key(b, f, call, 11);
  if (!lk || !lt_layout(b, lk, &d, &maybe, 0)) memset(&d, 0, sizeof d);
  /* in the op's own names when the matmul's descriptors were set here
   * (interp_call.c, Note [descriptor extents at the op]); else unknown there */
  int here = desc_same_frame(b, f, lk) && desc_same_frame(b, f, dk);
  if (!here || !lt_layout(b, lk, &dl, &lm, 1)) memset(&dl, 0, sizeof dl);
  libcall_lt_epi e = {desc_int_m(b, dk, "epilogue", &maybe), desc_int(b, dk, "bias_type"),
                      desc_int(b, dk, "aux_type"), desc_int(b, dk, "aux_ld"),
                      desc_int(b, dk, "bias_stride"), desc_int(b, dk, "aux_stride"),
                      d.rows, d.cols, d.type, d.batch, has_bias, has_aux};
  libcall_lt_epi el = e;
  el.aux_ld = desc_int(b, dk, "l.aux_ld");
  el.bias_stride = desc_int(b, dk, "l.bias_stride");
  el.aux_stride = desc_int(b, dk, "l.aux_stride");
  el.m = dl.rows;
  el.n = dl.cols;
  el.batch = dl.batch;
  libcall_access acc[2], lacc[2];
  int n = libcall_lt_epilogue(b->a, &e, acc);
  int nl = libcall_lt_epilogue(b->a, &el, lacc);
  for (int i = 0; i < n && i < 2; i++) {
    const gval *p = !strcmp(acc[i].role, "bias") ? bias : aux;
    int ex = acc[i].exact && !maybe && !p->maybe;
    sym *bl = here && i < nl && !strcmp(lacc[i].role, acc[i].role) ? lacc[i].bytes : NULL;
    add_access(b, op, call, *p, -1, acc[i].mode, acc[i].bytes, bl, ex, acc[i].role,
               p->text ? p->text : acc[i].role);
  }
}

/* Text of a launch configuration argument, NULL for an omitted default. */
/* Note [batch split ops]: a call of a per-sample cuDNN routine
 * (LIBCALL_BATCH_SPLIT; include/tidal/cudnn.h, Note [batch split]) may run
 * over pieces of its batch when every pointer argument is a resolved
 * tensor with an exact extent (a dense descriptor) and the first tensor's
 * descriptor was set by a 4-d setter (its value's batch, which a copy of
 * the descriptor keeps) whose n is known here.  unroll.c
 * then takes each access's sample as its bytes / n, and leaves the op
 * whole where that does not divide. */
static void batch_split(gb *b, gb_frame *f, graph_op *op, CXCursor call, int na) {
  if (b->g->no_split || na <= 0 || op->n_acc != na) return;
  for (int i = 0; i < op->n_acc; i++) {
    const graph_access *a = &op->acc[i];
    if (a->unmanaged || a->tensor < 0 || !a->exact || !a->bytes || sym_is_unknown(a->bytes) ||
        a->arg < 1)
      return;
  }
  /* the descriptor's value, copied with it (a parameter, a member) */
  gval d = gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)(op->acc[0].arg - 1)));
  if (d.k == GV_ADDR) {
    gval *p = gb_lookup(b, d.path);
    if (p) d = *p;
  }
  sym *n = d.k == GV_DESC ? d.batch : NULL;
  if (!n || sym_is_unknown(n)) return;
  op->split_batch = 1;
  op->split_count = n;
}

static char *config_text(gb *b, CXCursor cfg, int i) {
  if (clang_Cursor_isNull(cfg) || i >= clang_Cursor_getNumArguments(cfg)) return NULL;
  CXCursor a = clang_Cursor_getArgument(cfg, (unsigned)i);
  graph_range r = gb_range(b, a, 0);
  CXSourceRange ext = clang_getCursorExtent(a);
  if (clang_Range_isNull(ext)) return NULL;
  unsigned o1, o2;
  clang_getExpansionLocation(clang_getRangeStart(ext), NULL, NULL, NULL, &o1);
  clang_getExpansionLocation(clang_getRangeEnd(ext), NULL, NULL, NULL, &o2);
  if (o1 == o2 && !r.editable) return NULL; /* CXXDefaultArgExpr: nothing written */
  char *t = frontend_cursor_text(b->t, a);
  if (t && !*t) {
    free(t);
    return NULL;
  }
  return t;
}

int opsite_handle(gb *b, gb_frame *f, CXCursor call) {
  CXCursor decl = gb_callee_decl(call);
  char *name = gb_callee_name(call);
  if (!name) return 0;
  int handled = 0;
  if (is_global_fn(decl)) {
    handled = 1;
    if (b->mode != GB_GRAPH) goto out;
    const kernel_info *ki = kernels_find(&b->g->kernels, decl);
    graph_op *op = new_op(b, f, call, name, GRAPH_OP_LAUNCH);
    if (!op) goto out;
    CXCursor cfg = launch_config(call);
    op->grid = config_text(b, cfg, 0);
    op->block = config_text(b, cfg, 1);
    op->shmem = config_text(b, cfg, 2);
    op->stream = config_text(b, cfg, 3);
    if (ki) launch_accesses(b, f, op, ki, call, 0, NULL, 0, decl);
    else gb_note(b, call, "kernel '%s' has no definition in this file; its accesses are unknown", name);
    calltext_op(b, op);
    goto out;
  }
  if (strcmp(name, "cudaLaunchKernel") == 0) {
    handled = 1;
    if (b->mode != GB_GRAPH) goto out;
    CXCursor kd = opsite_launched_kernel(call);
    char *kname = clang_Cursor_isNull(kd) ? NULL : string_and_dispose(clang_getCursorSpelling(kd));
    graph_op *op = new_op(b, f, call, kname ? kname : name, GRAPH_OP_LAUNCH);
    const kernel_info *ki = clang_Cursor_isNull(kd) ? NULL : kernels_find(&b->g->kernels, kd);
    if (op && clang_Cursor_getNumArguments(call) >= 6) {
      op->grid = frontend_cursor_text(b->t, clang_Cursor_getArgument(call, 1));
      op->block = frontend_cursor_text(b->t, clang_Cursor_getArgument(call, 2));
      op->shmem = frontend_cursor_text(b->t, clang_Cursor_getArgument(call, 4));
      op->stream = frontend_cursor_text(b->t, clang_Cursor_getArgument(call, 5));
    }
    /* args is `void *args[] = {&a, &b, ...}`: follow each address */
    gval av = clang_Cursor_getNumArguments(call) >= 4
                  ? gb_eval(b, f, clang_Cursor_getArgument(call, 3))
                  : gb_int(b, NULL, NULL, 0);
    if (op && ki && av.k == GV_ADDR) {
      const char *lb = strrchr(av.path, '[');
      int n = ki->n_params;
      gval *vals = calloc((size_t)n + 1, sizeof *vals);
      for (int i = 0; vals && i < n; i++) {
        gval *slot = lb ? gb_lookup(b, gb_fmt(b, "%.*s[%d]", (int)(lb - av.path), av.path, i)) : NULL;
        gval *target = slot && slot->k == GV_ADDR ? gb_lookup(b, slot->path) : NULL;
        vals[i] = target ? *target : gb_int(b, NULL, NULL, 0);
        if (!target && slot && slot->k == GV_ADDR) { /* a struct: its path */
          vals[i] = *slot;
          vals[i].text = slot->text && slot->text[0] == '&' ? slot->text + 1 : NULL;
          vals[i].prec = 0;
        }
        if (target && slot->text && slot->text[0] == '&') {
          /* &y in the array: y, in scope wherever the array is */
          vals[i].text = slot->text + 1;
          vals[i].text_ok = slot->text_ok;
          vals[i].prec = 0;
        }
      }
      if (vals) launch_accesses(b, f, op, ki, call, 0, vals, n, kd);
      free(vals);
    } else if (op) {
      gb_note(b, call, "cudaLaunchKernel arguments could not be traced: the graph knows none of "
                       "its accesses (the rewrite declares each pointer parameter through the "
                       "array, to the end of its allocation)");
    }
    if (op) calltext_op(b, op);
    free(kname);
    goto out;
  }
  const libcall_info *li = libcall_find(name);
  if (!li || !(li->flags & LIBCALL_OP)) goto out;
  handled = 1;
  if (b->mode == GB_SETUP) note_pointer_array_copy(b, f, call, name);
  if (b->mode != GB_GRAPH) goto out;
  graph_op_kind kind = GRAPH_OP_LIBRARY;
  if (li->family == LIBCALL_NCCL) kind = GRAPH_OP_COLLECTIVE;
  else if (li->family == LIBCALL_CUDART)
    kind = strstr(name, "Memset") ? GRAPH_OP_MEMSET : GRAPH_OP_MEMCPY;
  graph_op *op = new_op(b, f, call, name, kind);
  if (!op) goto out;
  int n = clang_Cursor_getNumArguments(call);
  if (n > 64) n = 64;
  libcall_arg args[64], largs[64];
  gval vals[64];
  for (int i = 0; i < n; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    vals[i] = gb_eval(b, f, a);
    args[i].value = vals[i].k == GV_INT ? vals[i].s : sym_unknown(b->a);
    args[i].text = op->arg_text ? op->arg_text[i] : NULL;
    largs[i].value = gb_eval_local(b, a);
    largs[i].text = args[i].text;
  }
  libenv_ud ud = {b, f, call, 0}, lud = {b, f, call, 1};
  libcall_env env = {b->a, env_descriptor_bytes, &ud, env_descriptor_dense, env_scalar_is_zero};
  libcall_env lenv = {b->a, env_descriptor_bytes, &lud, env_descriptor_dense, env_scalar_is_zero};
  libcall_access acc[OPSITE_MAX_ACC], lacc[OPSITE_MAX_ACC];
  int na = libcall_accesses(name, args, n, &env, acc, OPSITE_MAX_ACC);
  int nl = libcall_accesses(name, largs, n, &lenv, lacc, OPSITE_MAX_ACC);
  if (na > OPSITE_MAX_ACC) na = OPSITE_MAX_ACC;
  for (int i = 0; i < na; i++) {
    int ai = acc[i].arg;
    if (ai < 0 || ai >= n) continue;
    sym *bl = (i < nl && lacc[i].arg == ai) ? lacc[i].bytes : NULL;
    add_access(b, op, clang_Cursor_getArgument(call, (unsigned)ai), vals[ai], ai, acc[i].mode,
               acc[i].bytes, bl, acc[i].exact, acc[i].role, NULL);
  }
  if (na < 0) gb_note(b, call, "call to '%s' has too few arguments for its model", name);
  pointer_array_matrices(b, f, op, call, name, args, largs, vals, n, &env);
  if (!strcmp(name, "cublasLtMatmul") && n >= 12) lt_epilogue_accesses(b, f, op, call);
  sym *fl = libcall_flops(name, args, n, b->a);
  op->flops = fl ? fl : sym_const(b->a, 0);
  if (li->flags & LIBCALL_NONDETERMINISTIC) op->flags |= KERNEL_NONDETERMINISTIC;
  if (li->flags & LIBCALL_BATCH_SPLIT) batch_split(b, f, op, call, na);
  calltext_op(b, op);
out:
  free(name);
  return handled;
}
