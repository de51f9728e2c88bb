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

/* The expansion range of c in the main file; 0 if it is not one there. */
static int range_of(const pass_tu *t, CXCursor c, unsigned *b, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile fb = NULL, fe = NULL;
  clang_getExpansionLocation(clang_getRangeStart(r), &fb, NULL, NULL, b);
  clang_getExpansionLocation(clang_getRangeEnd(r), &fe, NULL, NULL, e);
  return fb && fe && t->main_file && clang_File_isEqual(fb, t->main_file) &&
         clang_File_isEqual(fe, t->main_file) && *b < *e && *e <= t->main_size;
}

/* The expression as written: implicit conversions (same extent) removed,
 * the implicit dim3 construction of a launch's integer grid among them
 * (its other arguments are defaults, with no extent). */
static CXCursor written(const pass_tu *t, CXCursor e) {
  unsigned b0, e0, b, en;
  if (!range_of(t, e, &b0, &e0)) return e;
  for (int depth = 0; depth < 16; depth++) {
    CXCursor next = clang_getNullCursor();
    if (clang_getCursorKind(e) == CXCursor_CallExpr && clang_Cursor_getNumArguments(e) >= 1) {
      next = clang_Cursor_getArgument(e, 0);
    } else {
      CXCursor ch[1];
      if (cursor_children(e, ch, 1) == 1) next = ch[0];
    }
    if (clang_Cursor_isNull(next) || !clang_isExpression(clang_getCursorKind(next)) ||
        !range_of(t, next, &b, &en) || b != b0 || en != e0)
      return e;
    e = next;
  }
  return e;
}

static int is_integer(CXType ty) {
  ty = clang_getCanonicalType(ty);
  return (ty.kind >= CXType_Bool && ty.kind <= CXType_Int128 && ty.kind != CXType_Char16 &&
          ty.kind != CXType_Char32) ||
         ty.kind == CXType_Enum;
}

/* Note [split launch]: 1 if evaluating e once per piece instead of once is
 * the same - no call (but a POD copy), no assignment, increment or other
 * side effect. */
static enum CXChildVisitResult pure_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  int *ok = d;
  switch (clang_getCursorKind(c)) {
  case CXCursor_DeclRefExpr:
  case CXCursor_MemberRefExpr:
  case CXCursor_IntegerLiteral:
  case CXCursor_FloatingLiteral:
  case CXCursor_ImaginaryLiteral:
  case CXCursor_CharacterLiteral:
  case CXCursor_StringLiteral:
  case CXCursor_CXXBoolLiteralExpr:
  case CXCursor_CXXNullPtrLiteralExpr:
  case CXCursor_GNUNullExpr:
  case CXCursor_CXXThisExpr:
  case CXCursor_ParenExpr:
  case CXCursor_UnexposedExpr: /* implicit conversions, default arguments */
  case CXCursor_CStyleCastExpr:
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_ConditionalOperator:
  case CXCursor_ArraySubscriptExpr:
  case CXCursor_UnaryExpr: /* sizeof, alignof */
  case CXCursor_TypeRef:
  case CXCursor_TemplateRef:
  case CXCursor_NamespaceRef:
  case CXCursor_MemberRef:
    return CXChildVisit_Recurse;
  case CXCursor_UnaryOperator: {
    enum CXUnaryOperatorKind k = clang_getCursorUnaryOperatorKind(c);
    if (k == CXUnaryOperator_PostInc || k == CXUnaryOperator_PostDec ||
        k == CXUnaryOperator_PreInc || k == CXUnaryOperator_PreDec || k == CXUnaryOperator_Coawait)
      break;
    return CXChildVisit_Recurse;
  }
  case CXCursor_BinaryOperator: {
    enum CXBinaryOperatorKind k = clang_getCursorBinaryOperatorKind(c);
    if (k >= CXBinaryOperator_Assign && k <= CXBinaryOperator_OrAssign) break;
    return CXChildVisit_Recurse;
  }
  case CXCursor_CallExpr: {
    /* a struct argument passed by value is copied by its constructor: a
     * plain copy of a POD is no call */
    CXCursor ref = clang_getCursorReferenced(c);
    if (clang_getCursorKind(ref) == CXCursor_Constructor &&
        (clang_CXXConstructor_isCopyConstructor(ref) ||
         clang_CXXConstructor_isMoveConstructor(ref)) &&
        clang_isPODType(clang_getCursorType(c)))
      return CXChildVisit_Recurse;
    break;
  }
  default:
    break;
  }
  *ok = 0;
  return CXChildVisit_Break;
}

static int pure_expr(CXCursor e) {
  int ok = 1;
  pure_visitor(e, clang_getNullCursor(), &ok);
  if (ok) clang_visitChildren(e, pure_visitor, &ok);
  return ok;
}

/* NULL, nullptr or 0 written as a pointer argument (an optional input left
 * out): not an access, never declared (tidal_op_begin would reject it).
 * Under implicit conversions, parentheses and explicit casts, however many
 * children the cast's type spells (`(P<1, ..., 8>)0`: a TemplateRef and
 * eight arguments before the operand).  An UnexposedExpr with several
 * children is an expression of its own: GNU `p ?: 0` ends in a 0 and is p. */
int rw_is_null_constant(CXCursor a) {
  a = cursor_strip_casts(a);
  enum CXCursorKind k = clang_getCursorKind(a);
  if (k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr) return 1;
  int64_t v;
  return k == CXCursor_IntegerLiteral && cursor_eval_int(a, &v) && v == 0;
}

/* The configuration call (__cudaPushCallConfiguration / cudaConfigureCall)
 * of a <<<...>>> launch, or a null cursor. */
static CXCursor config_call(CXCursor call) {
  CXCursor ch[3]; /* the configuration call comes before the arguments */
  int nch = cursor_children(call, ch, 3);
  for (int i = 0; i < nch && i < 3; i++) {
    CXCursor c = cursor_strip(ch[i]);
    if (clang_getCursorKind(c) != CXCursor_CallExpr) continue;
    char *n = string_and_dispose(clang_getCursorSpelling(c));
    int is_cfg = n && (strstr(n, "PushCallConfiguration") || !strcmp(n, "cudaConfigureCall"));
    free(n);
    if (is_cfg) return c;
  }
  return clang_getNullCursor();
}

/* Skips whitespace and comments from off in direction dir (+1 / -1);
 * returns the offset of the next significant byte (dir -1: one past it). */
static unsigned skip_space(const char *src, size_t n, unsigned off, int dir) {
  if (dir > 0) {
    while (off < n) {
      if (strchr(" \t\r\n", src[off]))
        off++;
      else if (off + 1 < n && src[off] == '/' && src[off + 1] == '*') {
        const char *e = strstr(src + off + 2, "*/");
        off = e ? (unsigned)(e - src) + 2 : (unsigned)n;
      } else
        break;
    }
    return off;
  }
  while (off > 0) {
    if (strchr(" \t\r\n", src[off - 1]))
      off--;
    else if (off >= 2 && src[off - 1] == '/' && src[off - 2] == '*') {
      off -= 2;
      while (off >= 2 && !(src[off - 2] == '/' && src[off - 1] == '*'))
        off--;
      off = off >= 2 ? off - 2 : 0;
    } else
      break;
  }
  return off;
}

/* 1 if [b, e) is one whole argument of a launch as written: an opening
 * bracket or comma before it, a comma or closing bracket after it (not a
 * piece of a macro that expands to several arguments). */
static int whole_arg(const pass_tu *t, unsigned b, unsigned e) {
  unsigned p = skip_space(t->main_source, t->main_size, b, -1);
  unsigned q = skip_space(t->main_source, t->main_size, e, +1);
  return p > 0 && q < t->main_size && strchr("(,<", t->main_source[p - 1]) &&
         strchr(",)>", t->main_source[q]);
}

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
static int elem_bytes_of(const graph *g, const int *ops, int n_ops, const kernel_info *ki,
                         int arg) {
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &g->ops[ops[k]];
    for (int i = 0; i < op->n_acc; i++)
      if (op->acc[i].arg == arg && op->acc[i].split_elem_bytes > 0)
        return op->acc[i].split_elem_bytes;
  }
  return ki && arg < ki->n_params ? ki->params[arg].elem_bytes : 0;
}

/* Why the launch at site cannot run in pieces ("" if it can), for
 * rw_split_plan; fills sp. */
static int check_launch(pass_tu *t, const graph *g, const rw_site *site, CXCursor stmt,
                        CXCursor call, int n_calls, const int *ops, int n_ops, rw_split *sp,
                        char *why, size_t why_n) {
  const graph_op *op0 = &g->ops[ops[0]];
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &g->ops[ops[k]];
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
  if (n_calls != 1) {
    snprintf(why, why_n, "the statement holds more than one op");
    return 0;
  }
  /* the statement is the launch itself, written in this file */
  unsigned sb, se, cb, ce;
  if (!site->braces || !clang_equalCursors(cursor_strip(stmt), call) || !range_of(t, stmt, &sb, &se) ||
      !range_of(t, call, &cb, &ce) || sb != site->stmt_begin) {
    snprintf(why, why_n, "the launch is not a statement of its own");
    return 0;
  }
  CXFile sf = NULL;
  unsigned so = 0;
  clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(call)), &sf, NULL, NULL, &so);
  if (!sf || !clang_File_isEqual(sf, t->main_file) || so != cb) {
    snprintf(why, why_n, "the launch is written inside a macro");
    return 0;
  }
  CXCursor cfg = config_call(call);
  if (clang_Cursor_isNull(cfg) || clang_Cursor_getNumArguments(cfg) < 2) {
    snprintf(why, why_n,
             "only <<<...>>> launches are split (cudaLaunchKernel passes an array "
             "of argument addresses)");
    return 0;
  }
  const kernel_info *ki = kernels_find(&g->kernels, call);
  int nargs = clang_Cursor_getNumArguments(call);
  int count = op0->split_count_arg;
  if (!ki || nargs != ki->n_params || count < 0 || count >= nargs) {
    snprintf(why, why_n, "the kernel's parameters do not match the launch");
    return 0;
  }
  sp->grid_stride = op0->split_grid_stride != 0;
  /* <<<GRID, BLOCK, SHM, STREAM>>>: grid and block are hoisted (evaluated
   * once, as before); the rest stays in the launch, evaluated per piece */
  for (int i = 0; i < 2; i++) {
    CXCursor w = written(t, clang_Cursor_getArgument(cfg, (unsigned)i));
    unsigned b, e;
    if (!range_of(t, w, &b, &e) || b < cb || e > ce || !whole_arg(t, b, e)) {
      snprintf(why, why_n, "its %s is not written as one expression in the launch",
               i ? "block size" : "grid size");
      return 0;
    }
    if (!is_integer(clang_getCursorType(w))) sp->dim3 = 1;
    if (add_edit(sp, b, e, i ? RW_SPLIT_BLOCK : RW_SPLIT_GRID) != 0) return -1;
  }
  for (int i = 2; i < clang_Cursor_getNumArguments(cfg); i++)
    if (!pure_expr(clang_Cursor_getArgument(cfg, (unsigned)i))) {
      snprintf(why, why_n,
               "its %s has a call or a side effect: it would be evaluated once per "
               "piece",
               i == 2 ? "shared memory size" : "stream");
      return 0;
    }
  for (int i = 0; i < nargs; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    /* a pointer the kernel never dereferences stays as it is (it may be
     * NULL, or compared with something) */
    int is_ptr =
        ki->params[i].is_pointer && ki->params[i].mode != ACCESS_NONE && !rw_is_null_constant(a);
    const char *fail = NULL;
    CXCursor w = written(t, a);
    unsigned b = 0, e = 0;
    if (!pure_expr(a))
      fail = "has a call or a side effect: it would be evaluated once per piece";
    else if ((i == count || is_ptr) &&
             (!range_of(t, w, &b, &e) || b < cb || e > ce || !whole_arg(t, b, e)))
      fail = "is not written as one expression in the launch";
    else if (i == count && !is_integer(clang_getCursorType(a)))
      fail = "is the count but not an integer";
    if (!fail && i != count && is_ptr) {
      /* pointer arithmetic is in elements of the argument's own pointee:
       * that must be the parameter's element */
      CXType wt = clang_getCanonicalType(clang_getCursorType(w));
      CXType pe =
          wt.kind == CXType_Pointer ? clang_getPointeeType(wt) : clang_getArrayElementType(wt);
      long long sz = pe.kind == CXType_Invalid ? -1 : clang_Type_getSizeOf(pe);
      if (sz <= 0 || sz != elem_bytes_of(g, ops, n_ops, ki, i))
        fail = "points to elements of another size than the parameter's";
    }
    if (fail) {
      char *text = frontend_cursor_text(t, a);
      snprintf(why, why_n, "argument %d ('%.80s') %s", i, text ? text : "?", fail);
      free(text);
      return 0;
    }
    if (i != count && !is_ptr) continue; /* a value every piece passes as it is */
    if (i == count) {
      sp->count_type =
          string_and_dispose(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(a))));
      if (!sp->count_type) return -1;
    }
    if (add_edit(sp, b, e, i == count ? RW_SPLIT_COUNT : RW_SPLIT_PTR) != 0) {
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
    unsigned b = 0, e = 0;
    if (arg >= 0 && arg < nargs &&
        range_of(t, written(t, clang_Cursor_getArgument(call, (unsigned)arg)), &b, &e))
      for (int k = 0; k < sp->n_edits; k++)
        moved |= sp->edits[k].role == RW_SPLIT_PTR && sp->edits[k].begin == b;
    int eb = moved ? elem_bytes_of(g, ops, n_ops, ki, arg) : 0;
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
static int never_cut(const graph *g, const int *ops, int n_ops) {
  for (int k = 0; k < n_ops; k++) {
    const graph_op *op = &g->ops[ops[k]];
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

int rw_split_plan(pass_tu *t, const graph *g, rw_site *site, CXCursor stmt, CXCursor call,
                  int n_calls, const int *ops, int n_ops) {
  int any = 0;
  for (int k = 0; k < n_ops; k++)
    any |= g->ops[ops[k]].split != 0;
  if (!any || never_cut(g, ops, n_ops)) return 0;
  rw_split *sp = calloc(1, sizeof *sp);
  if (!sp) return -1;
  sp->edits = calloc(MAX_SPLIT_EDITS, sizeof *sp->edits);
  sp->acc_elem_bytes = calloc((size_t)site->n_acc + 1, sizeof *sp->acc_elem_bytes);
  char why[384] = "";
  if (!sp->edits || !sp->acc_elem_bytes ||
      check_launch(t, g, site, stmt, call, n_calls, ops, n_ops, sp, why, sizeof why) != 0) {
    rw_split_free(sp);
    return -1;
  }
  if (!why[0]) {
    site->split = sp;
    return 0;
  }
  rw_split_free(sp);
  size_t n = strlen(site->callee) + strlen(why) + 64;
  site->no_split = malloc(n);
  if (!site->no_split) return -1;
  snprintf(site->no_split, n, "split op %s runs whole: %s", site->callee, why);
  return 0;
}

void rw_split_free(rw_split *sp) {
  if (!sp) return;
  free(sp->edits);
  free(sp->count_type);
  free(sp->acc_elem_bytes);
  free(sp);
}

void rw_split_edit_text(const rw_site *s, int idx, const char *src, int i, rw_buf *b) {
  const rw_split_edit *ed = &s->split->edits[i];
  switch (ed->role) {
  case RW_SPLIT_GRID:
    rw_buf_printf(b, "tidal_g_%d", idx);
    break;
  case RW_SPLIT_BLOCK:
    rw_buf_printf(b, "tidal_block_%d", idx);
    break;
  case RW_SPLIT_COUNT:
    rw_buf_printf(b, "(%s)tidal_l_%d", s->split->count_type, idx);
    break;
  default:
    rw_buf_puts(b, "(");
    rw_buf_putn(b, src + ed->begin, ed->end - ed->begin);
    rw_buf_printf(b, ") + tidal_o_%d", idx);
    break;
  }
}

/* The source text of the first edit with role r (the original bytes). */
static void edit_source(const rw_site *s, const char *src, int role, rw_buf *b) {
  for (int i = 0; i < s->split->n_edits; i++)
    if (s->split->edits[i].role == role) {
      rw_buf_putn(b, src + s->split->edits[i].begin,
                  s->split->edits[i].end - s->split->edits[i].begin);
      return;
    }
}

void rw_split_emit(const rw_lines *L, const rw_site *s, int idx, const char *in, rw_buf *open,
                   rw_buf *close) {
  const rw_split *sp = s->split;
  const char *src = L->src;
  const char *ty = sp->dim3 ? "dim3" : "unsigned int", *x = sp->dim3 ? ".x" : "";
  rw_buf count = {0};
  edit_source(s, src, RW_SPLIT_COUNT, &count);
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
  edit_source(s, src, RW_SPLIT_GRID, open);
  rw_buf_printf(open, "), tidal_block_%d = %s", idx, conv);
  edit_source(s, src, RW_SPLIT_BLOCK, open);
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
    const rw_acc *a = &s->acc[i];
    rw_buf_printf(open, "%s      {(const void *)((%s) + tidal_o_%d), tidal_l_%d * %d, %s},", in,
                  a->ptr, idx, idx, sp->acc_elem_bytes[i], rw_mode_name(a));
    if (a->mode == 2 && !a->exact)
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
