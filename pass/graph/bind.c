/* bind.c - names bound to integers: --bind NAME=VALUE, and the
 * compile-time constants the interpreter finds in the source (file-scope
 * `static const int`, #define, enum constants, const locals).
 *
 * Decisions: a user binding always wins over a constant found in the
 * source (bind_set never overwrites a BIND_USER entry with another source),
 * so `--bind B=8` re-sizes a sample whose source says B = 4.  The table is
 * a flat array: it holds tens of names, and lookups are on the unroll path
 * only through sym_eval. */
#include <stdlib.h>
#include <string.h>

#include "base/spelling.h"
#include "graph/graph.h"

void bind_set(graph_bindings *b, const char *name, int64_t value, bind_source src) {
  if (!name || !*name) return;
  for (int i = 0; i < b->n; i++) {
    if (strcmp(b->items[i].name, name) != 0) continue;
    if (b->items[i].source == BIND_USER && src != BIND_USER) return;
    /* a device property read back is still the card's, not the source's */
    if (b->items[i].source == BIND_DEVICE && src == BIND_CONST) return;
    b->items[i].value = value;
    b->items[i].source = src;
    return;
  }
  if (b->n == b->cap) {
    int nc = b->cap ? b->cap * 2 : 32;
    graph_binding *n = realloc(b->items, (size_t)nc * sizeof *n);
    if (!n) return;
    b->items = n;
    b->cap = nc;
  }
  char *copy = strdup(name);
  if (!copy) return;
  /* every field: realloc'd memory is not zeroed (looked_up read garbage, so
   * an unused --bind went unwarned under ASan's malloc fill) */
  memset(&b->items[b->n], 0, sizeof b->items[b->n]);
  b->items[b->n].name = copy;
  b->items[b->n].value = value;
  b->items[b->n].source = src;
  b->n++;
}

int bind_lookup(const graph_bindings *b, const char *name, int64_t *out) {
  for (int i = 0; i < b->n; i++)
    if (strcmp(b->items[i].name, name) == 0) {
      *out = b->items[i].value;
      /* remembered for bind_each_unused (an --bind nothing asked for) */
      ((graph_binding *)&b->items[i])->looked_up = 1;
      return 1;
    }
  /* `dims[2]`: an entry of a constant table */
  const char *ix;
  size_t il;
  const graph_table *t = bind_table_ref(b, name, &ix, &il);
  if (t && il > 0) {
    int64_t k = 0;
    for (size_t i = 0; i < il; i++) {
      if (ix[i] < '0' || ix[i] > '9') return 0;
      k = k * 10 + (ix[i] - '0');
    }
    if (k < t->n) {
      *out = t->values[k];
      return 1;
    }
  }
  return 0;
}

void bind_forget_const(graph_bindings *b, const char *name) {
  for (int i = 0; i < b->n; i++) {
    if (strcmp(b->items[i].name, name) != 0) continue;
    if (b->items[i].source == BIND_USER) return;
    free(b->items[i].name);
    memmove(&b->items[i], &b->items[i + 1], (size_t)(b->n - i - 1) * sizeof *b->items);
    b->n--;
    return;
  }
}

void bind_set_table(graph_bindings *b, const char *name, const int64_t *values, int n) {
  if (!name || !*name || n <= 0) return;
  for (int i = 0; i < b->n_tables; i++)
    if (strcmp(b->tables[i].name, name) == 0) return; /* constant: recorded once */
  graph_table *t = realloc(b->tables, (size_t)(b->n_tables + 1) * sizeof *t);
  if (!t) return;
  b->tables = t;
  graph_table *x = &b->tables[b->n_tables];
  x->name = strdup(name);
  x->values = malloc((size_t)n * sizeof *x->values);
  if (!x->name || !x->values) {
    free(x->name);
    free(x->values);
    return;
  }
  memcpy(x->values, values, (size_t)n * sizeof *values);
  x->n = n;
  b->n_tables++;
}

const graph_table *bind_table_ref(const graph_bindings *b, const char *name, const char **index,
                                  size_t *index_len) {
  const char *lb = name ? strchr(name, '[') : NULL;
  size_t len = name ? strlen(name) : 0;
  if (!lb || len < 3 || name[len - 1] != ']') return NULL;
  for (int i = 0; i < b->n_tables; i++) {
    const graph_table *t = &b->tables[i];
    if (strlen(t->name) == (size_t)(lb - name) && strncmp(t->name, name, (size_t)(lb - name)) == 0) {
      *index = lb + 1;
      *index_len = (size_t)(name + len - 1 - (lb + 1));
      return t;
    }
  }
  return NULL;
}

void bind_free(graph_bindings *b) {
  if (!b) return;
  for (int i = 0; i < b->n_tables; i++) {
    free(b->tables[i].name);
    free(b->tables[i].values);
  }
  free(b->tables);
  for (int i = 0; i < b->n; i++) free(b->items[i].name);
  free(b->items);
  memset(b, 0, sizeof *b);
}

/* sym_value_fn convention: nonzero when bound (symexpr.h). */
int bind_value_fn(void *ud, const char *name, int64_t *out) {
  return bind_lookup(ud, name, out);
}

static const char *first_unbound(const graph_bindings *b, const sym *s) {
  if (!s) return NULL;
  if (sym_get_kind(s) == SYM_VAR) {
    int64_t v;
    const char *ix;
    size_t il;
    /* `dims[l + 1]` is resolved through the table when unrolled: not a
     * name to --bind (its index is a loop variable's expression) */
    if (bind_table_ref(b, sym_var_name(s), &ix, &il)) return NULL;
    return bind_lookup(b, sym_var_name(s), &v) ? NULL : sym_var_name(s);
  }
  const char *r = first_unbound(b, sym_lhs(s));
  return r ? r : first_unbound(b, sym_rhs(s));
}

char *bind_first_unbound(const graph_bindings *b, const sym *s) {
  const char *r = first_unbound(b, s);
  return r ? strdup(r) : NULL;
}

/* ---- every unbound name, in one message ---- */

#define UNBOUND_MAX 32 /* named in one message; more are "..." */

typedef struct unbound_set {
  const graph *g;
  const char *names[UNBOUND_MAX];
  int n, more;
} unbound_set;

static int is_loop_var(const graph *g, const char *name) {
  for (int l = 0; l < g->n_loops; l++)
    if (g->loops[l].var && strcmp(g->loops[l].var, name) == 0) return 1;
  return 0;
}

static void collect_unbound(unbound_set *u, const sym *s) {
  if (!s) return;
  if (sym_get_kind(s) == SYM_VAR) {
    const char *n = first_unbound(&u->g->binds, s);
    if (!n || is_loop_var(u->g, n)) return;
    for (int i = 0; i < u->n; i++)
      if (strcmp(u->names[i], n) == 0) return;
    if (u->n == UNBOUND_MAX) u->more = 1;
    else u->names[u->n++] = n;
    return;
  }
  collect_unbound(u, sym_lhs(s));
  collect_unbound(u, sym_rhs(s));
}

char *bind_unbound_message(const graph *g) { return bind_unbound_message_skip(g, NULL); }

char *bind_unbound_message_skip(const graph *g, const char *skip_trip) {
  unbound_set u;
  memset(&u, 0, sizeof u);
  u.g = g;
  /* sizes first, loops last: a trip count the unroller may do without (a
   * periodic branch's loop, micro-steps: unroll.c) is not the name to bind
   * first */
  for (int i = 0; i < g->n_allocs; i++) collect_unbound(&u, g->allocs[i].bytes);
  for (int i = 0; i < g->n_ops; i++)
    for (int j = 0; j < g->ops[i].n_acc; j++) {
      collect_unbound(&u, g->ops[i].acc[j].offset);
      collect_unbound(&u, g->ops[i].acc[j].bytes);
    }
  for (int i = 0; i < g->n_loops; i++)
    if (!skip_trip || !skip_trip[i]) collect_unbound(&u, g->loops[i].trip);
  if (u.n == 0) return NULL;
  size_t cap = 64;
  for (int i = 0; i < u.n; i++) cap += 2 * strlen(u.names[i]) + 24;
  char *m = malloc(cap);
  if (!m) return NULL;
  size_t k = 0;
  for (int i = 0; i < u.n; i++)
    k += (size_t)snprintf(m + k, cap - k, "%s'%s'", i == 0 ? "" : i + 1 == u.n && !u.more ? " and "
                                                                                            : ", ",
                          u.names[i]);
  k += (size_t)snprintf(m + k, cap - k, "%s %s unbound (use", u.more ? ", ..." : "",
                        u.n == 1 && !u.more ? "is" : "are");
  for (int i = 0; i < u.n; i++) k += (size_t)snprintf(m + k, cap - k, " --bind %s=VALUE", u.names[i]);
  snprintf(m + k, cap - k, ")");
  return m;
}

/* ---- which bindings the graph uses ---- */

static int mentions(const sym *s, const char *name) {
  if (!s) return 0;
  if (sym_get_kind(s) == SYM_VAR) return strcmp(sym_var_name(s), name) == 0;
  return mentions(sym_lhs(s), name) || mentions(sym_rhs(s), name);
}

static int graph_uses(const graph *g, const char *n) {
  if (mentions(g->train_lo, n) || mentions(g->train_hi, n)) return 1; /* stepped accesses */
  for (int i = 0; i < g->n_allocs; i++)
    if (mentions(g->allocs[i].bytes, n)) return 1;
  for (int i = 0; i < g->n_regions; i++)
    if (mentions(g->regions[i].offset, n) || mentions(g->regions[i].bytes, n)) return 1;
  for (int i = 0; i < g->n_tensors; i++) {
    const graph_tensor *t = &g->tensors[i];
    if (mentions(t->offset, n) || mentions(t->bytes, n) || mentions(t->family_index, n)) return 1;
    for (int k = 0; k < t->n_family; k++)
      if (mentions(t->family_off[k], n)) return 1; /* elements carved from an arena */
  }
  for (int i = 0; i < g->n_loops; i++)
    if (mentions(g->loops[i].lo, n) || mentions(g->loops[i].hi, n) || mentions(g->loops[i].trip, n))
      return 1;
  for (int i = 0; i < g->n_ops; i++) {
    const graph_op *op = &g->ops[i];
    if (mentions(op->flops, n)) return 1;
    for (int j = 0; j < op->n_acc; j++)
      if (mentions(op->acc[j].bytes, n) || mentions(op->acc[j].bytes_local, n) ||
          mentions(op->acc[j].offset, n) || mentions(op->acc[j].index, n))
        return 1;
  }
  return 0;
}

void bind_prune_unused(graph *g) {
  graph_bindings *b = &g->binds;
  int k = 0;
  for (int i = 0; i < b->n; i++) {
    if (b->items[i].source != BIND_USER && !graph_uses(g, b->items[i].name)) {
      free(b->items[i].name);
      continue;
    }
    b->items[k++] = b->items[i];
  }
  b->n = k;
}

/* ---- --bind that nothing uses ---- */

typedef struct closest {
  const char *want;
  const char *best;
  size_t best_d;
} closest;

static void closest_in(closest *c, const sym *s) {
  if (!s) return;
  if (sym_get_kind(s) == SYM_VAR) {
    const char *n = sym_var_name(s);
    /* the same name in another case ('b' for 'B') counts as one edit */
    size_t d = spelling_distance(c->want, n);
    if (d < c->best_d && strcmp(n, c->want) != 0) c->best = n, c->best_d = d;
    return;
  }
  closest_in(c, sym_lhs(s));
  closest_in(c, sym_rhs(s));
}

void bind_each_unused(const graph *g, void (*fn)(void *ud, const char *name, const char *close),
                      void *ud) {
  for (int i = 0; i < g->binds.n; i++) {
    const graph_binding *b = &g->binds.items[i];
    if (b->source != BIND_USER || b->looked_up || graph_uses(g, b->name)) continue;
    /* did you mean: the closest name a size of the program uses */
    size_t len = strlen(b->name);
    closest c = {b->name, NULL, len <= 2 ? 2 : len / 3 + 1};
    for (int k = 0; k < g->n_allocs; k++) closest_in(&c, g->allocs[k].bytes);
    for (int k = 0; k < g->n_loops; k++) closest_in(&c, g->loops[k].trip);
    for (int k = 0; k < g->n_ops; k++)
      for (int j = 0; j < g->ops[k].n_acc; j++) {
        closest_in(&c, g->ops[k].acc[j].bytes);
        closest_in(&c, g->ops[k].acc[j].offset);
      }
    fn(ud, b->name, c.best);
  }
}
