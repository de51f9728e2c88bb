/* symexpr_test.c - unit tests of pass/base/symexpr.c: canonical forms, equality,
 * substitution, evaluation, printing and parsing.  Randomised cases print
 * their seed so a failure can be replayed (argv[1] = seed). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/symexpr.h"

#include "check.h"

static void check_str(const char *file, int line, sym *s, const char *want) {
  char *got = sym_to_string(s);
  if (!got || strcmp(got, want) != 0) {
    fprintf(stderr, "%s:%d: got '%s', want '%s'\n", file, line, got ? got : "(null)", want);
    failures++;
  }
  free(got);
}
#define CHECK_STR(s, want) check_str(__FILE__, __LINE__, (s), (want))

typedef struct binding {
  const char *name;
  int64_t value;
} binding;

static int lookup_value(void *ud, const char *name, int64_t *out) {
  for (binding *b = ud; b->name; b++)
    if (!strcmp(b->name, name)) {
      *out = b->value;
      return 1;
    }
  return 0;
}

static sym *subst_B_to_2T(void *ud, const char *name) {
  sym_arena *a = ud;
  return !strcmp(name, "B") ? sym_mul(a, sym_const(a, 2), sym_var(a, "T")) : NULL;
}

static void test_canonical(sym_arena *a) {
  sym *N = sym_var(a, "N"), *C = sym_var(a, "C"), *B = sym_var(a, "B"), *T = sym_var(a, "T");
  sym *one = sym_const(a, 1);
  /* The kernel analysis' upper bound: (N-1)*C + (C-1) + 1 = N*C. */
  sym *ub = sym_add(a, sym_add(a, sym_mul(a, sym_sub(a, N, one), C), sym_sub(a, C, one)), one);
  CHECK_STR(ub, "N*C");
  /* b*T*C + t*C + c with b<B, t<T, c<C: B*T*C. */
  sym *bt = sym_add(a, sym_add(a, sym_mul(a, sym_mul(a, sym_sub(a, B, one), T), C),
                               sym_mul(a, sym_sub(a, T, one), C)),
                    sym_add(a, sym_sub(a, C, one), one));
  CHECK_STR(bt, "B*T*C");
  CHECK(sym_equal(bt, sym_mul(a, C, sym_mul(a, B, T))));
  CHECK(!sym_equal(bt, sym_mul(a, B, T)));
  CHECK_STR(sym_mul(a, N, one), "N");
  CHECK_STR(sym_add(a, N, sym_const(a, 0)), "N");
  CHECK_STR(sym_mul(a, sym_const(a, 0), N), "0");
  CHECK_STR(sym_mul(a, sym_const(a, 4), sym_mul(a, B, sym_const(a, 3))), "12*B");
  CHECK_STR(sym_sub(a, N, N), "0");
  CHECK_STR(sym_add(a, N, sym_const(a, -3)), "N - 3");
  CHECK_STR(sym_div(a, sym_mul(a, sym_const(a, 4), sym_mul(a, B, T)), sym_const(a, 4)), "B*T");
  CHECK_STR(sym_div(a, sym_add(a, N, one), sym_const(a, 2)), "(N + 1)/2");
  CHECK_STR(sym_div(a, sym_const(a, 7), sym_const(a, -2)), "-3"); /* C truncation */
  CHECK(sym_is_unknown(sym_div(a, N, sym_const(a, 0))));
  CHECK_STR(sym_min(a, N, sym_add(a, N, one)), "N");
  CHECK_STR(sym_max(a, N, sym_add(a, N, one)), "N + 1");
  CHECK(sym_equal(sym_min(a, N, C), sym_min(a, C, N)));
  CHECK_STR(sym_sub(a, N, sym_add(a, C, B)), "N - C - B");
  /* Exact division by a monomial, used for bounds of idx / T. */
  sym *BTC = sym_mul(a, sym_mul(a, B, T), C);
  CHECK_STR(sym_div_exact(a, BTC, T), "B*C");
  CHECK_STR(sym_div_exact(a, sym_add(a, sym_mul(a, sym_const(a, 4), BTC), sym_mul(a, T, N)), T),
            "4*B*C + N");
  CHECK(sym_div_exact(a, sym_add(a, BTC, one), T) == NULL);
  CHECK(sym_div_exact(a, BTC, sym_add(a, T, one)) == NULL);
  CHECK(sym_nonneg(BTC) && sym_nonneg(sym_const(a, 0)) && !sym_nonneg(sym_sub(a, N, one)));
  /* Unknown absorbs everything and equals nothing. */
  sym *u = sym_unknown(a);
  CHECK(sym_is_unknown(sym_add(a, N, u)));
  CHECK(sym_is_unknown(sym_mul(a, u, sym_const(a, 0))) || 1); /* 0*unknown: either is sound */
  CHECK(sym_is_unknown(sym_min(a, u, N)));
  CHECK(!sym_equal(u, u));
  CHECK(sym_to_c(u) == NULL);
  CHECK_STR(u, "unknown");
}

static void test_subst_eval(sym_arena *a) {
  sym *e = sym_parse(a, "B*T*C*4");
  CHECK(e != NULL);
  sym *s = sym_subst(a, e, subst_B_to_2T, a);
  CHECK_STR(s, "8*T*T*C");
  binding env[] = {{"T", 3}, {"C", 5}, {NULL, 0}};
  int64_t v = 0;
  CHECK(sym_eval(s, lookup_value, env, &v) == 0 && v == 8 * 3 * 3 * 5);
  CHECK(sym_eval(e, lookup_value, env, &v) == -1); /* B unbound */
  sym *d = sym_parse(a, "C / (T - 3)");
  CHECK(d && sym_eval(d, lookup_value, env, &v) == -1); /* divides by zero */
  sym *m = sym_parse(a, "max(T, C) - min(T, C)");
  CHECK(m && sym_eval(m, lookup_value, env, &v) == 0 && v == 2);
}

static void test_parse_print(sym_arena *a) {
  CHECK_STR(sym_parse(a, "cfg.B * model->config.channels"), "cfg.B*model->config.channels");
  CHECK_STR(sym_parse(a, "(size_t)B * sizeof(float)"), "B*sizeof(float)");
  CHECK_STR(sym_parse(a, "sizes[2] + 1"), "sizes[2] + 1");
  CHECK_STR(sym_parse(a, "layers[i].w + p -> n"), "layers[i].w + p->n");
  CHECK_STR(sym_parse(a, "-(N - 2)"), "2 - N");
  CHECK_STR(sym_parse(a, "0x10 * L"), "16*L");
  CHECK(sym_parse(a, "B *") == NULL);
  CHECK(sym_parse(a, "(B") == NULL);
  CHECK(sym_parse(a, "B C") == NULL);
  char *c = sym_to_c(sym_parse(a, "B*T/2 - min(a, b)"));
  CHECK(c && !strcmp(c, "((size_t)(B)*(size_t)(T)/(size_t)2 - (((size_t)(a)) < ((size_t)(b)) "
                        "? ((size_t)(a)) : ((size_t)(b))))"));
  if (c && strcmp(c, "((size_t)(B)*(size_t)(T)/(size_t)2 - (((size_t)(a)) < ((size_t)(b)) "
                     "? ((size_t)(a)) : ((size_t)(b))))"))
    fprintf(stderr, "sym_to_c gave %s\n", c);
  free(c);
  /* Printing then parsing gives an equal expression. */
  /* Note [min and max for reading]: nested max is one list, operands
   * another bounds (names >= 0) are left out; the plain text keeps all */
  {
    sym *B = sym_var(a, "B"), *I = sym_var(a, "IN_DIM");
    sym *m = sym_max(a, sym_mul(a, sym_mul(a, sym_const(a, 4), I), B),
                     sym_max(a, sym_mul(a, sym_const(a, 3136), B),
                             sym_max(a, sym_mul(a, sym_const(a, 400), B), sym_mul(a, sym_const(a, 40), B))));
    char *t = sym_to_text(m), *p = sym_to_string(m);
    CHECK(t && strcmp(t, "max(4*IN_DIM*B, 3136*B)") == 0);
    CHECK(p && strstr(p, "400*B") != NULL); /* sym_to_string stays faithful */
    if (t && strcmp(t, "max(4*IN_DIM*B, 3136*B)") != 0) fprintf(stderr, "sym_to_text: %s\n", t);
    free(t);
    free(p);
    /* three incomparable operands stay, flattened; a min drops the larger */
    sym *x = sym_max(a, sym_var(a, "X"), sym_max(a, sym_var(a, "Y"), sym_sub(a, sym_var(a, "Z"), sym_const(a, 1))));
    t = sym_to_text(x);
    CHECK(t && strcmp(t, "max(X, Y, Z - 1)") == 0);
    free(t);
    sym *n = sym_min(a, sym_mul(a, sym_const(a, 2), B), sym_min(a, B, sym_add(a, B, I)));
    t = sym_to_text(n);
    CHECK(t && strcmp(t, "B") == 0);
    if (t && strcmp(t, "B") != 0) fprintf(stderr, "sym_to_text: %s\n", t);
    free(t);
    /* a subtraction proves nothing: both stay */
    sym *d = sym_max(a, sym_sub(a, B, I), sym_const(a, 0));
    t = sym_to_text(d);
    CHECK(t && strstr(t, "max(") == t);
    free(t);
  }
  const char *texts[] = {"N - (C - B)", "(A + B)*(C - D)", "A/(B*C)", "A - B - C", "max(A, 2)*B"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    sym *e = sym_parse(a, texts[i]);
    char *s = sym_to_string(e);
    sym *back = s ? sym_parse(a, s) : NULL;
    CHECK(e && back && sym_equal(e, back));
    free(s);
  }
}

/* Random polynomials: the canonical form evaluates like the tree it came from. */
static sym *random_expr(sym_arena *a, int depth, int64_t *val, const binding *env, int nenv) {
  int r = rand() % (depth > 0 ? 6 : 2);
  if (r == 0) {
    int64_t c = rand() % 7 - 3;
    *val = c;
    return sym_const(a, c);
  }
  if (r == 1) {
    int k = rand() % nenv;
    *val = env[k].value;
    return sym_var(a, env[k].name);
  }
  int64_t x, y;
  sym *l = random_expr(a, depth - 1, &x, env, nenv), *rr = random_expr(a, depth - 1, &y, env, nenv);
  switch (r) {
  case 2: *val = x + y; return sym_add(a, l, rr);
  case 3: *val = x - y; return sym_sub(a, l, rr);
  case 4: *val = x * y; return sym_mul(a, l, rr);
  default: *val = x < y ? x : y; return sym_min(a, l, rr);
  }
}

int main(int argc, char **argv) {
  unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : (unsigned)time(NULL);
  sym_arena *a = sym_arena_create();
  test_canonical(a);
  test_subst_eval(a);
  test_parse_print(a);
  srand(seed);
  binding env[] = {{"a", 3}, {"b", -2}, {"c", 5}, {"d", 11}, {NULL, 0}};
  for (int i = 0; i < 2000; i++) {
    int64_t want, got;
    sym *e = random_expr(a, 4, &want, env, 4);
    if (sym_eval(e, lookup_value, env, &got) != 0 || got != want) {
      char *s = sym_to_string(e);
      fprintf(stderr, "random case %d (seed %u): %s = %" PRId64 ", want %" PRId64 "\n", i, seed,
              s, got, want);
      free(s);
      failures++;
      break;
    }
    char *s = sym_to_string(e);
    sym *back = sym_parse(a, s);
    if (!back || !sym_equal(back, e)) {
      fprintf(stderr, "random case %d (seed %u): '%s' does not reparse equal\n", i, seed, s);
      failures++;
    }
    free(s);
  }
  sym_arena_destroy(a);
  if (failures) fprintf(stderr, "%d failure(s); seed %u\n", failures, seed);
  else printf("symexpr: all tests passed (seed %u)\n", seed);
  return failures ? 1 : 0;
}
