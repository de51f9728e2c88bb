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
  b->items[b->n].name = copy;
  b->items[b->n].value = value;
  b->items[b->n].source = src;
  b->n++;
}

int bind_lookup(const graph_bindings *b, const char *name, int64_t *out) {
  for (int i = 0; i < b->n; i++)
    if (strcmp(b->items[i].name, name) == 0) {
      *out = b->items[i].value;
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

typedef struct unbound_list {
  const graph *g;
  char *text;
  size_t len;
  int n;
} unbound_list;

static int is_loop_var(const graph *g, const char *name) {
  if (g->train_var && !strcmp(g->train_var, name)) return 1;
  for (int l = 0; l < g->n_loops; l++)
    if (g->loops[l].var && !strcmp(g->loops[l].var, name)) return 1;
  return 0;
}

static void add_unbound(unbound_list *u, const sym *s) {
  if (!s || sym_is_unknown(s)) return;
  if (sym_get_kind(s) != SYM_VAR) {
    add_unbound(u, sym_lhs(s));
    add_unbound(u, sym_rhs(s));
    return;
  }
  const char *name = sym_var_name(s);
  int64_t v;
  const char *ix;
  size_t il;
  if (bind_table_ref(&u->g->binds, name, &ix, &il) || bind_lookup(&u->g->binds, name, &v) ||
      is_loop_var(u->g, name))
    return;
  size_t nl = strlen(name);
  for (const char *p = u->text; p && (p = strstr(p, name)) != NULL; p += nl) /* once each */
    if ((p == u->text || (p - u->text >= 2 && p[-2] == ',' && p[-1] == ' ')) &&
        (p[nl] == ',' || p[nl] == '\0'))
      return;
  char *t = realloc(u->text, u->len + nl + 3);
  if (!t) return;
  u->text = t;
  if (u->len) {
    memcpy(t + u->len, ", ", 2);
    u->len += 2;
  }
  memcpy(t + u->len, name, nl + 1);
  u->len += nl;
  u->n++;
}

char *bind_all_unbound(const graph *g, int *n) {
  unbound_list u = {g, NULL, 0, 0};
  for (int i = 0; i < g->n_allocs; i++) add_unbound(&u, g->allocs[i].bytes);
  for (int i = 0; i < g->n_loops; i++) {
    add_unbound(&u, g->loops[i].lo);
    add_unbound(&u, g->loops[i].hi);
  }
  for (int i = 0; i < g->n_ops; i++)
    for (int j = 0; j < g->ops[i].n_acc; j++) {
      add_unbound(&u, g->ops[i].acc[j].bytes);
      add_unbound(&u, g->ops[i].acc[j].offset);
    }
  *n = u.n;
  return u.text;
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
