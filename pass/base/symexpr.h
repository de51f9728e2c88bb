/* symexpr.h - symbolic integer expressions over program names.
 *
 * Extents, offsets and byte counts are kept symbolic ("B*T*C*4") until the
 * user binds names with --bind.  Nodes are immutable and owned by a
 * sym_arena: nothing is freed one by one; sym_arena_destroy frees them all.
 * Names are C expressions as they appear in the source ("cfg.B", "L",
 * "model->config.channels") so that sym_to_c() yields code the rewritten
 * program can evaluate at run time.
 */
#ifndef TIDAL_PASS_SYMEXPR_H
#define TIDAL_PASS_SYMEXPR_H

#include <stdint.h>
#include <stddef.h>

typedef struct sym_arena sym_arena;
typedef struct sym sym;

typedef enum sym_kind {
  SYM_CONST,   /* integer constant */
  SYM_VAR,     /* a name (variable, field path, macro-free C expression) */
  SYM_ADD,
  SYM_SUB,
  SYM_MUL,
  SYM_DIV,     /* integer division, truncating (C semantics) */
  SYM_MIN,
  SYM_MAX,
  SYM_UNKNOWN  /* could not be determined; absorbs every operation */
} sym_kind;

sym_arena *sym_arena_create(void);
void sym_arena_destroy(sym_arena *a); /* NULL is a no-op */

sym *sym_const(sym_arena *a, int64_t v);
sym *sym_var(sym_arena *a, const char *name); /* name is copied */
sym *sym_unknown(sym_arena *a);
/* Binary constructors fold constants and simple identities (x*1, x+0, 0*x)
 * and propagate SYM_UNKNOWN. */
sym *sym_add(sym_arena *a, sym *l, sym *r);
sym *sym_sub(sym_arena *a, sym *l, sym *r);
sym *sym_mul(sym_arena *a, sym *l, sym *r);
sym *sym_div(sym_arena *a, sym *l, sym *r);
sym *sym_min(sym_arena *a, sym *l, sym *r);
sym *sym_max(sym_arena *a, sym *l, sym *r);
/* l / r when the division is exact as polynomials (every term of l holds
 * r's product of names and a multiple of its coefficient: (B*T*C)/T ->
 * B*C); NULL otherwise.  r must be a single term (a monomial). */
sym *sym_div_exact(sym_arena *a, const sym *l, const sym *r);
/* 1 if s is provably >= 0 assuming every name is >= 0 (sizes, counts and
 * thread indices are): built from non-negative constants and names with
 * +, *, /, min, max; a subtraction makes it unprovable. */
int sym_nonneg(const sym *s);

sym_kind sym_get_kind(const sym *s);
int sym_is_unknown(const sym *s);
int sym_get_const(const sym *s, int64_t *out); /* 1 if a constant */
const char *sym_var_name(const sym *s);        /* NULL unless SYM_VAR */
const sym *sym_lhs(const sym *s);
const sym *sym_rhs(const sym *s);

/* Structural equality after canonicalisation (commutative operands sorted). */
int sym_equal(const sym *a, const sym *b);

/* Replaces every SYM_VAR whose name lookup() maps to non-NULL. */
typedef sym *(*sym_lookup_fn)(void *ud, const char *name);
sym *sym_subst(sym_arena *a, const sym *s, sym_lookup_fn lookup, void *ud);

/* Evaluates with value(name) for each name; returns 0 and sets *out, or -1
 * if a name is unbound (value returns 0 then), the expression is unknown,
 * or it divides by zero. */
typedef int (*sym_value_fn)(void *ud, const char *name, int64_t *out);
int sym_eval(const sym *s, sym_value_fn value, void *ud, int64_t *out);

/* Text forms; both return a malloc'd string the caller frees.
 * sym_to_string: compact, for reports and JSON ("B*T*C", "unknown").
 * sym_to_c: fully valid C that the rewritten program evaluates
 * ("(size_t)(B)*(T)*(C)"); NULL for an unknown expression. */
char *sym_to_string(const sym *s);
char *sym_to_c(const sym *s);
/* For people (reports, comments): sym_to_string with nested min/max as one
 * list and operands another bounds left out, names taken as >= 0 (Note
 * [min and max for reading] in symexpr.c): "max(4*IN_DIM*B, 3136*B)".
 * Not sym_parse's round trip: it may drop terms only sizes make
 * redundant. */
char *sym_to_text(const sym *s);

/* Parses a C-like integer expression ("4*B*T", "min(a,b)", "cfg.C/2") -
 * used for --bind values and tests.  NULL on a syntax error. */
sym *sym_parse(sym_arena *a, const char *text);

#endif
