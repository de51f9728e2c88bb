/* interp_select.c - the conditional operator `c ? x : y` whose condition
 * is not known: an integer or pointer value selected by the condition (an
 * element family when the condition compares a loop index, elements.c),
 * and a struct selected field by field. */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

/* The condition `v == k` (either side the constant): 1 and *var, *k. */
static int equality_test(gb *b, gb_frame *f, CXCursor cond, sym **var, sym **k) {
  CXCursor cc = cursor_strip_casts(cond);
  CXCursor cs[2];
  if (clang_getCursorKind(cc) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(cc) != CXBinaryOperator_EQ || cursor_children(cc, cs, 2) != 2)
    return 0;
  gval l = gb_eval(b, f, cs[0]), r = gb_eval(b, f, cs[1]);
  if (l.k != GV_INT || r.k != GV_INT || sym_is_unknown(l.s) || sym_is_unknown(r.s)) return 0;
  *var = l.s;
  *k = r.s;
  return 1;
}

/* `c ? x : y` with c not constant, for values of one scalar or pointer
 * (x, y already evaluated; text: the expression's). */
static gval select_scalar(gb *b, gb_frame *f, CXCursor cond, const gval *c, const gval *xp,
                          const gval *yp, const char *text) {
  gval x = *xp, y = *yp;
  if (x.k == GV_INT && y.k == GV_INT)
    return gb_int(b, sym_max(b->a, x.s, y.s), text, 0);
  if (x.k == GV_DEVPTR && y.k == GV_DEVPTR && x.alloc == y.alloc && x.region == y.region &&
      !x.family && !y.family && x.delta && y.delta && sym_equal(x.delta, y.delta))
    return x;
  sym *var, *k;
  int eq = x.k == GV_DEVPTR && y.k == GV_DEVPTR && equality_test(b, f, cond, &var, &k);
  /* `v == k ? A : B` over one allocation (the first layer reads the
   * embedding, later ones the previous residual): offset A + sel*(B - A)
   * with sel = min(|v - k|, 1), exact for every integer v. */
  if (eq && x.alloc >= 0 && x.alloc == y.alloc && !x.family && !y.family && x.delta && y.delta &&
      !sym_is_unknown(x.delta) && !sym_is_unknown(y.delta)) {
    sym *d = sym_sub(b->a, var, k);
    sym *sel = sym_min(b->a, sym_max(b->a, d, sym_sub(b->a, sym_const(b->a, 0), d)),
                       sym_const(b->a, 1));
    sym *xo = sym_add(b->a, x.base, x.delta), *yo = sym_add(b->a, y.base, y.delta);
    gval r = x;
    r.region = -1;
    r.base = sym_const(b->a, 0);
    r.delta = sym_add(b->a, xo, sym_mul(b->a, sel, sym_sub(b->a, yo, xo)));
    r.text = text;
    r.text_ok = x.text_ok && y.text_ok && c->text_ok;
    r.prec = 3;
    return r;
  }
  /* the same over elements of arrays (`l == 0 ? in : blocks[l - 1].out`): a
   * family indexed by v (elements.c) */
  gval r;
  if (eq && gb_element_select(b, var, k, &x, &y, &r)) {
    r.text = text;
    r.text_ok = x.text_ok && y.text_ok && c->text_ok;
    r.prec = 3;
    return r;
  }
  /* Note [either pointer]: a pointer chosen at run time by a condition the
   * analysis cannot decide (`model->recompute < 2 ? acts.ln1 + l*B*T*C :
   * acts.lnf`, a command-line option) is one of the two: the op is taken
   * to touch both, each access of a write a readwrite (neither is proven
   * overwritten) and none exact.  The plan keeps both alive where the op
   * uses them, whatever the run chooses; the rewritten op declares the one
   * the expression gives at run time.  A NULL side adds no access. */
  gval e;
  if (gb_either_pointer(b, &x, &y, &e)) {
    e.text = text;
    e.text_ok = x.text_ok && y.text_ok && c->text_ok;
    e.prec = 3;
    return e;
  }
  /* a pointer chosen at run time otherwise: not one tensor */
  gval u = gb_none_val();
  u.k = GV_DEVPTR;
  u.alloc = -1;
  u.base = sym_const(b->a, 0);
  u.delta = sym_unknown(b->a);
  u.text = text;
  u.text_ok = x.text_ok && y.text_ok;
  return u;
}

#define EITHER_MAX 8 /* pointers one value may be (Note [either pointer]) */

static int is_null_const(const gval *v) {
  int64_t z;
  return v->k == GV_INT && v->s && sym_get_const(v->s, &z) && z == 0;
}

/* Appends v and its alternatives to list (n entries so far); 0 when one
 * is neither a device pointer nor NULL, or there are too many. */
static int flatten(const gval *v, gval *list, int *n) {
  for (const gval *p = v; p; p = p == v ? v->alt : p->alt) {
    if (p->k != GV_DEVPTR && !is_null_const(p)) return 0;
    if (*n == EITHER_MAX) return 0;
    list[*n] = *p;
    list[*n].alt = NULL;
    (*n)++;
  }
  return 1;
}

int gb_either_pointer(gb *b, const gval *x, const gval *y, gval *out) {
  gval list[EITHER_MAX];
  int n = 0;
  if (!flatten(x, list, &n) || !flatten(y, list, &n)) return 0;
  int first = -1;
  for (int i = 0; i < n && first < 0; i++)
    if (list[i].k == GV_DEVPTR) first = i;
  if (first < 0) return 0; /* NULL either way: the integer select does */
  *out = list[first];
  const gval *chain = NULL;
  for (int i = n - 1; i >= 0; i--) {
    if (i == first) continue;
    gval *c = gb_own(b, malloc(sizeof *c));
    if (!c) return 0;
    *c = list[i];
    c->alt = chain;
    chain = c;
  }
  out->alt = chain;
  return 1;
}

GB_NOINLINE gval gb_select_value(gb *b, gb_frame *f, CXCursor e, CXCursor cond, const gval *c,
                                 const gval *x, const gval *y) {
  return select_scalar(b, f, cond, c, x, y, gb_text(b, e));
}

/* The value stored at path (which may hold one "[?]" standing for index). */
static int read_path(gb *b, const char *path, sym *index, int is_ptr, gval *out) {
  const char *key = gb_canon(b, path);
  gval *st = gb_lookup(b, key);
  if (st) {
    *out = *st;
    return 1;
  }
  return strstr(key, "[?]") && index && gb_element_read(b, key, index, is_ptr, out);
}

#define SELECT_FIELDS_MAX 4096 /* leaves of a struct selected field by field */

typedef struct select_ud {
  gb *b;
  gb_frame *f;
  CXCursor cond;
  const gval *c, *x, *y;
  const char *root; /* the new struct's path */
  const char *to;   /* the struct being filled (root or a nested member) */
  const char *text; /* the conditional's text */
  int leaves;
} select_ud;

static void select_leaf(select_ud *u, const char *full, CXType t);

static enum CXVisitorResult select_field_visitor(CXCursor fc, CXClientData d) {
  select_ud *u = d;
  char *name = string_and_dispose(clang_getCursorSpelling(fc));
  select_leaf(u, gb_fmt(u->b, "%s.%s", u->to, name), clang_getCursorType(fc));
  free(name);
  return CXVisit_Continue;
}

/* The field at path `full` (the new struct's path, then a suffix): its
 * value selected from x's and y's at the same suffix; nested structs and
 * constant arrays field by field. */
static void select_leaf(select_ud *u, const char *full, CXType t) {
  gb *b = u->b;
  if (u->leaves >= SELECT_FIELDS_MAX) return;
  CXType ct = clang_getCanonicalType(t);
  if (ct.kind == CXType_Record) {
    const char *to = u->to;
    u->to = full;
    clang_Type_visitFields(ct, select_field_visitor, u);
    u->to = to;
    return;
  }
  if (ct.kind == CXType_ConstantArray) {
    long long n = clang_getNumElements(ct);
    CXType et = clang_getArrayElementType(ct);
    for (long long i = 0; i < n && i < 256; i++) select_leaf(u, gb_fmt(b, "%s[%lld]", full, i), et);
    return;
  }
  int is_ptr = ct.kind == CXType_Pointer;
  int is_int = (ct.kind >= CXType_Bool && ct.kind <= CXType_Int128) || ct.kind == CXType_Enum;
  if (!is_ptr && !is_int) return;
  u->leaves++;
  const char *suffix = full + strlen(u->root);
  gval xv, yv;
  int hx = read_path(b, gb_fmt(b, "%s%s", u->x->path, suffix), u->x->index, is_ptr, &xv);
  int hy = read_path(b, gb_fmt(b, "%s%s", u->y->path, suffix), u->y->index, is_ptr, &yv);
  if (!hx && !hy) return; /* set on neither side: read as never assigned */
  gval v = gb_none_val();
  if (hx && hy && (xv.k == yv.k || is_ptr)) {
    v = select_scalar(b, u->f, u->cond, u->c, &xv, &yv,
                      u->text ? gb_fmt(b, "%s%s", u->text, suffix) : NULL);
  } else if (is_ptr) { /* set on one side only: a pointer of unknown origin */
    v.k = GV_DEVPTR;
    v.base = sym_const(b->a, 0);
    v.delta = sym_unknown(b->a);
  }
  gb_store(b, full, v);
}

/* `c ? A : B` of struct type (`tensor_t res = l == 0 ? bufs.in :
 * bufs.blocks[l - 1].out;`): a new struct whose every field is selected
 * from A's and B's as a scalar would be, so `res.data` resolves like
 * `l == 0 ? bufs.in.data : bufs.blocks[l - 1].out.data`. */
GB_NOINLINE gval gb_select_struct(gb *b, gb_frame *f, CXCursor e, CXCursor cond, const gval *c,
                                  const gval *x, const gval *y) {
  gval v = gb_none_val();
  v.k = GV_ADDR;
  v.path = gb_fmt(b, "c%d", b->next_frame++);
  v.text = gb_fmt(b, "(%s)", gb_text(b, e)); /* a copy's fields append `.data` to it */
  v.text_ok = x->text_ok && y->text_ok && c->text_ok;
  select_ud u = {b, f, cond, c, x, y, v.path, v.path, v.text, 0};
  clang_Type_visitFields(clang_getCanonicalType(clang_getCursorType(e)), select_field_visitor, &u);
  return v;
}
