/* symexpr.c - symbolic integer expressions (see symexpr.h).
 *
 * Nodes are immutable and allocated from the arena in large blocks; the
 * arena frees everything at once.  Note [canonical sums]: ADD, SUB and MUL
 * trees are kept as a normalised polynomial - a sum of terms, each an
 * integer coefficient times a product of atoms (names, DIV, MIN, MAX,
 * UNKNOWN never appears) - so that "(N-1)*C + (C-1) + 1" becomes "N*C",
 * which is what the kernel analysis' upper bounds need to be readable.
 * Terms keep the order in which they first appeared and atoms the order
 * of their product, so "B*T*C" prints as written; equality compares a
 * sorted form, so "C*B*T" equals it.  Polynomials bigger than POLY_MAX_*
 * are left as plain trees (still correct, just not simplified). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/symexpr.h"

#define ARENA_BLOCK_BYTES 16384
#define POLY_MAX_TERMS 32
#define POLY_MAX_ATOMS 12

struct sym {
  sym_kind kind;
  int64_t value;    /* SYM_CONST */
  const char *name; /* SYM_VAR, arena-owned */
  sym *l, *r;       /* binary nodes */
};

typedef struct arena_block {
  struct arena_block *next;
  size_t used, size;
  max_align_t data[]; /* aligned payload */
} arena_block;

struct sym_arena {
  arena_block *head;
  sym *unknown; /* one shared unknown node */
};

static void *arena_alloc(sym_arena *a, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!a->head || a->head->size - a->head->used < n) {
    size_t size = n > ARENA_BLOCK_BYTES ? n : ARENA_BLOCK_BYTES;
    arena_block *b = malloc(sizeof *b + size);
    if (!b) return NULL;
    b->next = a->head;
    b->used = 0;
    b->size = size;
    a->head = b;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += n;
  return p;
}

sym_arena *sym_arena_create(void) {
  sym_arena *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->unknown = arena_alloc(a, sizeof(sym));
  if (!a->unknown) {
    free(a);
    return NULL;
  }
  memset(a->unknown, 0, sizeof(sym));
  a->unknown->kind = SYM_UNKNOWN;
  return a;
}

void sym_arena_destroy(sym_arena *a) {
  if (!a) return;
  arena_block *b = a->head;
  while (b) {
    arena_block *n = b->next;
    free(b);
    b = n;
  }
  free(a);
}

/* Allocation failure yields the shared unknown node: an out-of-memory
 * expression is "could not be determined", never a crash. */
static sym *node(sym_arena *a, sym_kind k, sym *l, sym *r) {
  sym *s = arena_alloc(a, sizeof *s);
  if (!s) return a->unknown;
  memset(s, 0, sizeof *s);
  s->kind = k;
  s->l = l;
  s->r = r;
  return s;
}

sym *sym_const(sym_arena *a, int64_t v) {
  sym *s = node(a, SYM_CONST, NULL, NULL);
  if (s != a->unknown) s->value = v;
  return s;
}

sym *sym_var(sym_arena *a, const char *name) {
  size_t n = strlen(name);
  char *copy = arena_alloc(a, n + 1);
  if (!copy) return a->unknown;
  memcpy(copy, name, n + 1);
  sym *s = node(a, SYM_VAR, NULL, NULL);
  if (s != a->unknown) s->name = copy;
  return s;
}

sym *sym_unknown(sym_arena *a) { return a->unknown; }

sym_kind sym_get_kind(const sym *s) { return s->kind; }
int sym_is_unknown(const sym *s) { return !s || s->kind == SYM_UNKNOWN; }
int sym_get_const(const sym *s, int64_t *out) {
  if (!s || s->kind != SYM_CONST) return 0;
  if (out) *out = s->value;
  return 1;
}
const char *sym_var_name(const sym *s) { return s && s->kind == SYM_VAR ? s->name : NULL; }
const sym *sym_lhs(const sym *s) { return s ? s->l : NULL; }
const sym *sym_rhs(const sym *s) { return s ? s->r : NULL; }

/* ---- polynomials (Note [canonical sums]) ------------------------------------ */

typedef struct term {
  int64_t coef;
  int n;
  const sym *atoms[POLY_MAX_ATOMS];
} term;

typedef struct poly {
  int n;
  term t[POLY_MAX_TERMS];
} poly;

static int sym_cmp(const sym *a, const sym *b);

static int atom_cmp_qsort(const void *x, const void *y) {
  return sym_cmp(*(const sym *const *)x, *(const sym *const *)y);
}

/* Same product of atoms, as multisets. */
static int same_atoms(const term *x, const term *y) {
  if (x->n != y->n) return 0;
  const sym *a[POLY_MAX_ATOMS], *b[POLY_MAX_ATOMS];
  memcpy(a, x->atoms, sizeof(a[0]) * (size_t)x->n);
  memcpy(b, y->atoms, sizeof(b[0]) * (size_t)y->n);
  qsort(a, (size_t)x->n, sizeof a[0], atom_cmp_qsort);
  qsort(b, (size_t)y->n, sizeof b[0], atom_cmp_qsort);
  for (int i = 0; i < x->n; i++)
    if (sym_cmp(a[i], b[i]) != 0) return 0;
  return 1;
}

/* Adds a term; returns -1 on overflow of the size limits or coefficients. */
static int poly_add_term(poly *p, const term *t) {
  if (t->coef == 0) return 0;
  for (int i = 0; i < p->n; i++)
    if (same_atoms(&p->t[i], t)) {
      if (__builtin_add_overflow(p->t[i].coef, t->coef, &p->t[i].coef)) return -1;
      if (p->t[i].coef == 0) {
        memmove(&p->t[i], &p->t[i + 1], sizeof(term) * (size_t)(p->n - i - 1));
        p->n--;
      }
      return 0;
    }
  if (p->n == POLY_MAX_TERMS) return -1;
  p->t[p->n++] = *t;
  return 0;
}

/* Reads s as a polynomial; -1 if it does not fit the limits. */
static int to_poly(const sym *s, poly *p) {
  p->n = 0;
  term t;
  switch (s->kind) {
  case SYM_CONST:
    t.coef = s->value;
    t.n = 0;
    return poly_add_term(p, &t);
  case SYM_ADD:
  case SYM_SUB: {
    poly *q = malloc(sizeof *q);
    if (!q || to_poly(s->l, p) < 0 || to_poly(s->r, q) < 0) {
      free(q);
      return -1;
    }
    for (int i = 0; i < q->n; i++) {
      if (s->kind == SYM_SUB) {
        if (q->t[i].coef == INT64_MIN) {
          free(q);
          return -1;
        }
        q->t[i].coef = -q->t[i].coef;
      }
      if (poly_add_term(p, &q->t[i]) < 0) {
        free(q);
        return -1;
      }
    }
    free(q);
    return 0;
  }
  case SYM_MUL: {
    poly *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    int rc = -1;
    if (!x || !y || to_poly(s->l, x) < 0 || to_poly(s->r, y) < 0) goto mul_out;
    for (int i = 0; i < x->n; i++)
      for (int j = 0; j < y->n; j++) {
        term m;
        if (__builtin_mul_overflow(x->t[i].coef, y->t[j].coef, &m.coef)) goto mul_out;
        if (x->t[i].n + y->t[j].n > POLY_MAX_ATOMS) goto mul_out;
        m.n = x->t[i].n + y->t[j].n;
        memcpy(m.atoms, x->t[i].atoms, sizeof(m.atoms[0]) * (size_t)x->t[i].n);
        memcpy(m.atoms + x->t[i].n, y->t[j].atoms, sizeof(m.atoms[0]) * (size_t)y->t[j].n);
        if (poly_add_term(p, &m) < 0) goto mul_out;
      }
    rc = 0;
  mul_out:
    free(x);
    free(y);
    return rc;
  }
  default: /* an atom */
    t.coef = 1;
    t.n = 1;
    t.atoms[0] = s;
    return poly_add_term(p, &t);
  }
}

/* Rebuilds a tree from a polynomial: terms with a positive coefficient in
 * their order, then the negative ones subtracted, the constant last
 * ("N*C + 4", "N - C - 1") - or first when every other term is negative
 * ("2 - N"). */
static sym *term_tree(sym_arena *a, const term *t, int64_t c) {
  sym *prod = NULL;
  if (c != 1) prod = sym_const(a, c);
  for (int k = 0; k < t->n; k++)
    prod = prod ? node(a, SYM_MUL, prod, (sym *)t->atoms[k]) : (sym *)t->atoms[k];
  return prod;
}

static sym *from_poly(sym_arena *a, const poly *p) {
  sym *acc = NULL;
  int64_t konst = 0;
  int any_pos = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->t[i].n == 0) konst = p->t[i].coef;
    else if (p->t[i].coef > 0) any_pos = 1;
  }
  if (!any_pos && konst > 0) acc = sym_const(a, konst);
  for (int i = 0; i < p->n; i++)
    if (p->t[i].n > 0 && p->t[i].coef > 0) {
      sym *t = term_tree(a, &p->t[i], p->t[i].coef);
      acc = acc ? node(a, SYM_ADD, acc, t) : t;
    }
  for (int i = 0; i < p->n; i++)
    if (p->t[i].n > 0 && p->t[i].coef < 0) {
      if (!acc || p->t[i].coef == INT64_MIN) {
        sym *t = term_tree(a, &p->t[i], p->t[i].coef);
        acc = acc ? node(a, SYM_ADD, acc, t) : t;
      } else {
        acc = node(a, SYM_SUB, acc, term_tree(a, &p->t[i], -p->t[i].coef));
      }
    }
  if (!acc) return sym_const(a, konst);
  if (any_pos || konst <= 0) {
    if (konst > 0) acc = node(a, SYM_ADD, acc, sym_const(a, konst));
    else if (konst < 0 && konst != INT64_MIN) acc = node(a, SYM_SUB, acc, sym_const(a, -konst));
    else if (konst < 0) acc = node(a, SYM_ADD, acc, sym_const(a, konst));
  }
  return acc;
}

static sym *arith(sym_arena *a, sym_kind k, sym *l, sym *r) {
  if (sym_is_unknown(l) || sym_is_unknown(r)) return a->unknown;
  poly *p = malloc(sizeof *p);
  sym *tmp = node(a, k, l, r);
  sym *res = tmp;
  if (p && tmp != a->unknown && to_poly(tmp, p) == 0) res = from_poly(a, p);
  free(p);
  return res;
}

sym *sym_add(sym_arena *a, sym *l, sym *r) { return arith(a, SYM_ADD, l, r); }
sym *sym_sub(sym_arena *a, sym *l, sym *r) { return arith(a, SYM_SUB, l, r); }
sym *sym_mul(sym_arena *a, sym *l, sym *r) { return arith(a, SYM_MUL, l, r); }

sym *sym_div(sym_arena *a, sym *l, sym *r) {
  int64_t x, y;
  if (sym_is_unknown(l) || sym_is_unknown(r)) return a->unknown;
  if (sym_get_const(r, &y)) {
    if (y == 0) return a->unknown;
    if (y == 1) return l;
    if (sym_get_const(l, &x)) {
      if (x == INT64_MIN && y == -1) return a->unknown;
      return sym_const(a, x / y);
    }
    /* Exact division of every coefficient: (4*B*T)/4 -> B*T. */
    poly *p = malloc(sizeof *p);
    if (p && to_poly(l, p) == 0) {
      int exact = 1;
      for (int i = 0; i < p->n && exact; i++) exact = p->t[i].coef % y == 0;
      if (exact) {
        for (int i = 0; i < p->n; i++) p->t[i].coef /= y;
        sym *res = from_poly(a, p);
        free(p);
        return res;
      }
    }
    free(p);
  }
  if (sym_equal(l, r)) return node(a, SYM_DIV, l, r); /* x/x is 1 only if x != 0: keep */
  return node(a, SYM_DIV, l, r);
}

static sym *minmax(sym_arena *a, sym_kind k, sym *l, sym *r) {
  int64_t x, y;
  if (sym_is_unknown(l) || sym_is_unknown(r)) return a->unknown;
  if (sym_get_const(l, &x) && sym_get_const(r, &y))
    return sym_const(a, k == SYM_MIN ? (x < y ? x : y) : (x > y ? x : y));
  if (sym_equal(l, r)) return l;
  /* l - r constant decides it: min(N+1, N) = N. */
  sym *d = sym_sub(a, l, r);
  if (sym_get_const(d, &x)) return (x < 0) == (k == SYM_MIN) ? l : r;
  /* Commutative: order the operands so that min(a,b) and min(b,a) are one node shape. */
  if (sym_cmp(l, r) > 0) {
    sym *t = l;
    l = r;
    r = t;
  }
  return node(a, k, l, r);
}

sym *sym_min(sym_arena *a, sym *l, sym *r) { return minmax(a, SYM_MIN, l, r); }
sym *sym_max(sym_arena *a, sym *l, sym *r) { return minmax(a, SYM_MAX, l, r); }

sym *sym_div_exact(sym_arena *a, const sym *l, const sym *r) {
  if (sym_is_unknown(l) || sym_is_unknown(r)) return NULL;
  poly *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  sym *res = NULL;
  if (!p || !q || to_poly(l, p) < 0 || to_poly(r, q) < 0 || q->n != 1 || q->t[0].coef == 0)
    goto out;
  const term *d = &q->t[0];
  for (int i = 0; i < p->n; i++) {
    term *t = &p->t[i];
    if (t->coef % d->coef != 0) goto out;
    /* Remove each of d's atoms from t once. */
    for (int k = 0; k < d->n; k++) {
      int found = -1;
      for (int j = 0; j < t->n && found < 0; j++)
        if (sym_cmp(t->atoms[j], d->atoms[k]) == 0) found = j;
      if (found < 0) goto out;
      memmove(&t->atoms[found], &t->atoms[found + 1], sizeof(t->atoms[0]) * (size_t)(t->n - found - 1));
      t->n--;
    }
    t->coef /= d->coef;
  }
  {
    /* Removing atoms can make two terms alike: re-add to combine them. */
    poly *c = malloc(sizeof *c);
    if (!c) goto out;
    c->n = 0;
    for (int i = 0; i < p->n; i++)
      if (poly_add_term(c, &p->t[i]) < 0) {
        free(c);
        goto out;
      }
    res = from_poly(a, c);
    free(c);
  }
out:
  free(p);
  free(q);
  return res;
}

int sym_nonneg(const sym *s) {
  if (!s) return 0;
  switch (s->kind) {
  case SYM_CONST: return s->value >= 0;
  case SYM_VAR: return 1;
  case SYM_ADD:
  case SYM_MUL:
  case SYM_DIV:
  case SYM_MIN:
  case SYM_MAX: return sym_nonneg(s->l) && sym_nonneg(s->r);
  default: return 0;
  }
}

/* ---- comparison ----------------------------------------------------------------- */

static int term_cmp(const term *x, const term *y) {
  if (x->n != y->n) return x->n < y->n ? -1 : 1;
  for (int i = 0; i < x->n; i++) {
    int c = sym_cmp(x->atoms[i], y->atoms[i]);
    if (c) return c;
  }
  if (x->coef != y->coef) return x->coef < y->coef ? -1 : 1;
  return 0;
}

static int term_cmp_qsort(const void *x, const void *y) { return term_cmp(x, y); }

static void poly_sort(poly *p) {
  for (int i = 0; i < p->n; i++)
    qsort(p->t[i].atoms, (size_t)p->t[i].n, sizeof p->t[i].atoms[0], atom_cmp_qsort);
  qsort(p->t, (size_t)p->n, sizeof p->t[0], term_cmp_qsort);
}

/* A total order on canonical forms: kind, then contents; sums and products
 * compare as sorted polynomials. */
static int sym_cmp(const sym *a, const sym *b) {
  if (a == b) return 0;
  int pa = a->kind == SYM_ADD || a->kind == SYM_SUB || a->kind == SYM_MUL;
  int pb = b->kind == SYM_ADD || b->kind == SYM_SUB || b->kind == SYM_MUL;
  if (pa && pb) {
    poly *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    int c = 0, ok = x && y && to_poly(a, x) == 0 && to_poly(b, y) == 0;
    if (ok) {
      poly_sort(x);
      poly_sort(y);
      if (x->n != y->n) c = x->n < y->n ? -1 : 1;
      for (int i = 0; !c && i < x->n; i++) c = term_cmp(&x->t[i], &y->t[i]);
    }
    free(x);
    free(y);
    if (ok) return c;
  }
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
  case SYM_CONST: return a->value < b->value ? -1 : a->value > b->value;
  case SYM_VAR: return strcmp(a->name, b->name);
  case SYM_UNKNOWN: return 0;
  default: {
    int c = sym_cmp(a->l, b->l);
    return c ? c : sym_cmp(a->r, b->r);
  }
  }
}

int sym_equal(const sym *a, const sym *b) {
  if (!a || !b) return a == b;
  /* Unknown is never equal to anything, itself included: two unknown
   * extents are not known to be the same. */
  if (a->kind == SYM_UNKNOWN || b->kind == SYM_UNKNOWN) return 0;
  return sym_cmp(a, b) == 0;
}

/* ---- substitution and evaluation ----------------------------------------------- */

sym *sym_subst(sym_arena *a, const sym *s, sym_lookup_fn lookup, void *ud) {
  switch (s->kind) {
  case SYM_CONST: return sym_const(a, s->value);
  case SYM_UNKNOWN: return a->unknown;
  case SYM_VAR: {
    sym *r = lookup(ud, s->name);
    return r ? r : sym_var(a, s->name);
  }
  default: break;
  }
  sym *l = sym_subst(a, s->l, lookup, ud), *r = sym_subst(a, s->r, lookup, ud);
  switch (s->kind) {
  case SYM_ADD: return sym_add(a, l, r);
  case SYM_SUB: return sym_sub(a, l, r);
  case SYM_MUL: return sym_mul(a, l, r);
  case SYM_DIV: return sym_div(a, l, r);
  case SYM_MIN: return sym_min(a, l, r);
  case SYM_MAX: return sym_max(a, l, r);
  default: return a->unknown;
  }
}

int sym_eval(const sym *s, sym_value_fn value, void *ud, int64_t *out) {
  int64_t x, y;
  switch (s->kind) {
  case SYM_CONST: *out = s->value; return 0;
  case SYM_UNKNOWN: return -1;
  case SYM_VAR: return value && value(ud, s->name, out) ? 0 : -1;
  default: break;
  }
  if (sym_eval(s->l, value, ud, &x) < 0 || sym_eval(s->r, value, ud, &y) < 0) return -1;
  /* Wrapping arithmetic: no undefined behaviour on absurd bindings. */
  switch (s->kind) {
  case SYM_ADD: *out = (int64_t)((uint64_t)x + (uint64_t)y); return 0;
  case SYM_SUB: *out = (int64_t)((uint64_t)x - (uint64_t)y); return 0;
  case SYM_MUL: *out = (int64_t)((uint64_t)x * (uint64_t)y); return 0;
  case SYM_DIV:
    if (y == 0 || (x == INT64_MIN && y == -1)) return -1;
    *out = x / y;
    return 0;
  case SYM_MIN: *out = x < y ? x : y; return 0;
  case SYM_MAX: *out = x > y ? x : y; return 0;
  default: return -1;
  }
}

/* ---- printing ---------------------------------------------------------------------- */

typedef struct sbuf {
  char *p;
  size_t n, cap;
  int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s) {
  size_t k = strlen(s);
  if (b->oom) return;
  if (b->n + k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (b->n + k + 1 > cap) cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) {
      b->oom = 1;
      return;
    }
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, k + 1);
  b->n += k;
}

static int prec(const sym *s) {
  switch (s->kind) {
  case SYM_ADD:
  case SYM_SUB: return 1;
  case SYM_MUL:
  case SYM_DIV: return 2;
  case SYM_CONST: return s->value < 0 ? 1 : 3;
  default: return 3;
  }
}

/* Note [min and max for reading]: a size built by max over several layers
 * reads max(4*IN_DIM*B, max(3136*B, max(400*B, 40*B))) as the tree holds it.
 * For reports (sym_to_string, never sym_to_c, which the rewritten program
 * evaluates) nested max (min) is one list, and an operand another one
 * provably bounds from above (below) is left out - max(4*IN_DIM*B, 3136*B)
 * - taking names as sizes and counts, >= 0, as sym_nonneg does: y bounds x
 * when y - x as a polynomial has only non-negative coefficients over
 * non-negative atoms. */
#define MINMAX_MAX_OPERANDS 32

static int poly_nonneg(const poly *p) {
  for (int i = 0; i < p->n; i++) {
    if (p->t[i].coef < 0) return 0;
    for (int k = 0; k < p->t[i].n; k++)
      if (!sym_nonneg(p->t[i].atoms[k])) return 0;
  }
  return 1;
}

/* 1 when y >= x for every value of the names >= 0. */
static int bounds_above(const sym *y, const sym *x) {
  poly *py = malloc(sizeof *py), *px = malloc(sizeof *px);
  int ok = 0;
  if (py && px && to_poly(y, py) == 0 && to_poly(x, px) == 0) {
    ok = 1;
    for (int i = 0; i < px->n && ok; i++) {
      term t = px->t[i];
      if (t.coef == INT64_MIN || (t.coef = -t.coef, poly_add_term(py, &t) < 0)) ok = 0;
    }
    ok = ok && poly_nonneg(py);
  }
  free(py);
  free(px);
  return ok;
}

/* The operands of a nest of one kind (max(a, max(b, c)) -> a, b, c); -1
 * when there are more than cap. */
static int minmax_operands(const sym *s, sym_kind k, const sym **out, int n, int cap) {
  if (s->kind != k) {
    if (n == cap) return -1;
    out[n] = s;
    return n + 1;
  }
  n = minmax_operands(s->l, k, out, n, cap);
  return n < 0 ? -1 : minmax_operands(s->r, k, out, n, cap);
}

enum { PRINT_PLAIN, PRINT_C, PRINT_READ };
static void print(sbuf *b, const sym *s, int as_c);

/* Note [min and max for reading] */
static void print_minmax(sbuf *b, const sym *s) {
  const sym *ops[MINMAX_MAX_OPERANDS];
  int n = minmax_operands(s, s->kind, ops, 0, MINMAX_MAX_OPERANDS);
  if (n < 0) { /* too many to sort out: as the tree holds it */
    sb_put(b, s->kind == SYM_MIN ? "min(" : "max(");
    print(b, s->l, PRINT_READ);
    sb_put(b, ", ");
    print(b, s->r, PRINT_READ);
    sb_put(b, ")");
    return;
  }
  int keep[MINMAX_MAX_OPERANDS], kept = 0;
  for (int i = 0; i < n; i++) {
    keep[i] = 1;
    for (int j = 0; j < n && keep[i]; j++) {
      if (j == i || (j < i && !keep[j])) continue;
      const sym *hi = s->kind == SYM_MAX ? ops[j] : ops[i], *lo = s->kind == SYM_MAX ? ops[i] : ops[j];
      /* dropped when another bounds it; of equal ones the first stays */
      if (bounds_above(hi, lo) && (j < i || !bounds_above(lo, hi))) keep[i] = 0;
    }
    kept += keep[i];
  }
  if (kept > 1) sb_put(b, s->kind == SYM_MIN ? "min(" : "max(");
  for (int i = 0, first = 1; i < n; i++) {
    if (!keep[i]) continue;
    if (!first) sb_put(b, ", ");
    print(b, ops[i], PRINT_READ);
    first = 0;
  }
  if (kept > 1) sb_put(b, ")");
}

/* as_c: every atom cast to size_t and names parenthesised (Note in
 * symexpr.h: the rewritten program evaluates it). */
static void print(sbuf *b, const sym *s, int as_c) {
  char num[32];
  switch (s->kind) {
  case SYM_CONST:
    snprintf(num, sizeof num, as_c == PRINT_C ? "(size_t)%lld" : "%lld", (long long)s->value);
    if (as_c == PRINT_C && s->value < 0) snprintf(num, sizeof num, "(size_t)(%lld)", (long long)s->value);
    sb_put(b, num);
    return;
  case SYM_VAR:
    if (as_c == PRINT_C) sb_put(b, "(size_t)(");
    sb_put(b, s->name);
    if (as_c == PRINT_C) sb_put(b, ")");
    return;
  case SYM_UNKNOWN: sb_put(b, "unknown"); return;
  case SYM_MIN:
  case SYM_MAX:
    if (as_c == PRINT_READ) {
      print_minmax(b, s);
      return;
    }
    if (as_c == PRINT_C) {
      /* Both operands are side-effect free names and arithmetic. */
      const char *op = s->kind == SYM_MIN ? " < " : " > ";
      sb_put(b, "((");
      print(b, s->l, 1);
      sb_put(b, ")");
      sb_put(b, op);
      sb_put(b, "(");
      print(b, s->r, 1);
      sb_put(b, ") ? (");
      print(b, s->l, 1);
      sb_put(b, ") : (");
      print(b, s->r, 1);
      sb_put(b, "))");
      return;
    }
    sb_put(b, s->kind == SYM_MIN ? "min(" : "max(");
    print(b, s->l, PRINT_PLAIN);
    sb_put(b, ", ");
    print(b, s->r, PRINT_PLAIN);
    sb_put(b, ")");
    return;
  default: break;
  }
  int p = prec(s);
  const char *op = s->kind == SYM_ADD ? " + " : s->kind == SYM_SUB ? " - " : s->kind == SYM_MUL ? "*" : "/";
  /* A negative constant factor needs no parentheses: unary minus binds
   * tighter than '*' ("-2*N"). */
  int lpar = prec(s->l) < p && !(s->l->kind == SYM_CONST && s->kind == SYM_MUL);
  /* Right operands of - and / bind tighter: a - (b + c), a / (b*c). */
  int rpar = prec(s->r) < p || (prec(s->r) == p && (s->kind == SYM_SUB || s->kind == SYM_DIV));
  if (lpar) sb_put(b, "(");
  print(b, s->l, as_c);
  if (lpar) sb_put(b, ")");
  sb_put(b, op);
  if (rpar) sb_put(b, "(");
  print(b, s->r, as_c);
  if (rpar) sb_put(b, ")");
}

static char *to_text(const sym *s, int how) {
  sbuf b = {0};
  if (!s) sb_put(&b, "unknown");
  else print(&b, s, how);
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

char *sym_to_string(const sym *s) { return to_text(s, PRINT_PLAIN); }

char *sym_to_text(const sym *s) { return to_text(s, PRINT_READ); }

char *sym_to_c(const sym *s) {
  if (!s || s->kind == SYM_UNKNOWN) return NULL;
  /* An unknown inside cannot happen: constructors propagate it to the root. */
  sbuf b = {0};
  sb_put(&b, "(");
  print(&b, s, PRINT_C);
  sb_put(&b, ")");
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

/* ---- parsing ---------------------------------------------------------------------- */

typedef struct parser {
  sym_arena *a;
  const char *p;
  int err;
} parser;

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n') ps->p++;
}

static int is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_ident(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static sym *parse_expr(parser *ps);

/* Integer casts the parser accepts and ignores: "(size_t)B". */
static const char *const int_types[] = {
    "size_t", "int", "long", "unsigned", "long long", "unsigned long", "unsigned long long",
    "unsigned int", "int64_t", "uint64_t", "int32_t", "uint32_t", "ptrdiff_t", "ssize_t"};

static int skip_cast(parser *ps) {
  const char *q = ps->p + 1;
  while (*q == ' ') q++;
  for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++) {
    size_t n = strlen(int_types[i]);
    if (strncmp(q, int_types[i], n) != 0 || is_ident(q[n])) continue;
    const char *e = q + n;
    while (*e == ' ') e++;
    if (*e != ')') continue;
    ps->p = e + 1;
    return 1;
  }
  return 0;
}

/* A name: identifiers joined by '.', '->', with [..] subscripts and
 * sizeof(...) kept verbatim (spaces dropped). */
/* Consumes a member separator ("." before an identifier, or "->") after
 * optional spaces, appending it to b; 0 (nothing consumed) otherwise. */
static int member_sep(parser *ps, sbuf *b) {
  const char *q = ps->p;
  while (*q == ' ') q++;
  if (*q == '.' && is_ident_start(q[1])) {
    sb_put(b, ".");
    ps->p = q + 1;
    return 1;
  }
  if (q[0] == '-' && q[1] == '>') {
    sb_put(b, "->");
    ps->p = q + 2;
    while (*ps->p == ' ') ps->p++;
    return 1;
  }
  return 0;
}

static sym *parse_name(parser *ps) {
  sbuf b = {0};
  const char *start = ps->p;
  if (!strncmp(ps->p, "sizeof", 6) && !is_ident(ps->p[6])) {
    const char *q = ps->p + 6;
    while (*q == ' ') q++;
    if (*q == '(') {
      int depth = 0;
      do {
        if (*q == '(') depth++;
        else if (*q == ')') depth--;
        else if (!*q) {
          ps->err = 1;
          return NULL;
        }
        q++;
      } while (depth > 0);
      size_t n = (size_t)(q - start);
      char *tmp = malloc(n + 1);
      if (!tmp) {
        ps->err = 1;
        return NULL;
      }
      size_t k = 0;
      for (size_t i = 0; i < n; i++)
        if (start[i] != ' ' || (k && is_ident(tmp[k - 1]) && i + 1 < n && is_ident(start[i + 1])))
          tmp[k++] = start[i];
      tmp[k] = '\0';
      ps->p = q;
      sym *s = sym_var(ps->a, tmp);
      free(tmp);
      return s;
    }
  }
  for (;;) {
    const char *id = ps->p;
    while (is_ident(*ps->p)) ps->p++;
    char save[256];
    size_t n = (size_t)(ps->p - id);
    if (n == 0 || n >= sizeof save) {
      ps->err = 1;
      break;
    }
    memcpy(save, id, n);
    save[n] = '\0';
    sb_put(&b, save);
    if (member_sep(ps, &b)) continue;
    const char *q = ps->p;
    while (*q == ' ') q++;
    if (*q != '[') break;
    /* one index, then a member: "layers[i].w" */
    ps->p = q + 1;
    sym *idx = parse_expr(ps);
    skip_ws(ps);
    if (!idx || *ps->p != ']') {
      ps->err = 1;
      break;
    }
    ps->p++;
    char *t = sym_to_string(idx);
    sb_put(&b, "[");
    sb_put(&b, t ? t : "?");
    sb_put(&b, "]");
    free(t);
    if (!member_sep(ps, &b)) break;
  }
  sym *s = NULL;
  if (!ps->err && !b.oom && b.p) s = sym_var(ps->a, b.p);
  else ps->err = 1;
  free(b.p);
  return s;
}

static sym *parse_primary(parser *ps) {
  skip_ws(ps);
  char c = *ps->p;
  if (c == '(') {
    if (skip_cast(ps)) return parse_primary(ps);
    ps->p++;
    sym *e = parse_expr(ps);
    skip_ws(ps);
    if (!e || *ps->p != ')') {
      ps->err = 1;
      return NULL;
    }
    ps->p++;
    return e;
  }
  if (c == '-') {
    ps->p++;
    sym *e = parse_primary(ps);
    return e ? sym_sub(ps->a, sym_const(ps->a, 0), e) : NULL;
  }
  if (c == '+') {
    ps->p++;
    return parse_primary(ps);
  }
  if (c >= '0' && c <= '9') {
    char *end;
    unsigned long long v = strtoull(ps->p, &end, 0);
    if (v > INT64_MAX) {
      ps->err = 1;
      return NULL;
    }
    ps->p = end;
    while (*ps->p == 'u' || *ps->p == 'U' || *ps->p == 'l' || *ps->p == 'L') ps->p++;
    return sym_const(ps->a, (int64_t)v);
  }
  if (is_ident_start(c)) {
    int is_min = !strncmp(ps->p, "min", 3), is_max = !strncmp(ps->p, "max", 3);
    if ((is_min || is_max) && !is_ident(ps->p[3])) {
      const char *q = ps->p + 3;
      while (*q == ' ') q++;
      if (*q == '(') {
        ps->p = q + 1;
        sym *l = parse_expr(ps);
        skip_ws(ps);
        if (!l || *ps->p != ',') {
          ps->err = 1;
          return NULL;
        }
        ps->p++;
        sym *r = parse_expr(ps);
        skip_ws(ps);
        if (!r || *ps->p != ')') {
          ps->err = 1;
          return NULL;
        }
        ps->p++;
        return is_min ? sym_min(ps->a, l, r) : sym_max(ps->a, l, r);
      }
    }
    if (!strncmp(ps->p, "unknown", 7) && !is_ident(ps->p[7])) {
      ps->p += 7;
      return sym_unknown(ps->a);
    }
    return parse_name(ps);
  }
  ps->err = 1;
  return NULL;
}

static sym *parse_term(parser *ps) {
  sym *l = parse_primary(ps);
  while (l && !ps->err) {
    skip_ws(ps);
    char c = *ps->p;
    if (c != '*' && c != '/') break;
    ps->p++;
    sym *r = parse_primary(ps);
    if (!r) return NULL;
    l = c == '*' ? sym_mul(ps->a, l, r) : sym_div(ps->a, l, r);
  }
  return ps->err ? NULL : l;
}

static sym *parse_expr(parser *ps) {
  sym *l = parse_term(ps);
  while (l && !ps->err) {
    skip_ws(ps);
    char c = *ps->p;
    if ((c != '+' && c != '-') || ps->p[1] == '>') break;
    ps->p++;
    sym *r = parse_term(ps);
    if (!r) return NULL;
    l = c == '+' ? sym_add(ps->a, l, r) : sym_sub(ps->a, l, r);
  }
  return ps->err ? NULL : l;
}

sym *sym_parse(sym_arena *a, const char *text) {
  parser ps = {a, text, 0};
  sym *s = parse_expr(&ps);
  skip_ws(&ps);
  if (!s || ps.err || *ps.p != '\0') return NULL;
  return s;
}
