/* elements.c - arrays read at an index that is not constant: the values
 * of `act[l + 1]`, `model.h[l].attn.w` and `blk->w` (blk = &model.h[l])
 * inside a layer loop, from the elements the setup code stored.
 *
 * Note [element families]: setup runs its loops concretely, so the store
 * holds every element (`g:model.h[0].w` .. `g:model.h[11].w`), while the
 * training loop's layer loop is walked once with its counter symbolic and
 * reads `g:model.h[?].w`.  A device pointer read there is the *family* of
 * the elements' values with the index: element k is (allocation, offset),
 * whether each element is its own cudaMalloc (`float *W[L]`, a struct per
 * layer filled by a helper returning a tensor) or carved from one arena at
 * offsets (parameters of all layers in one allocation).  An access through
 * it resolves to one graph tensor per (family, index, offset past the
 * element), and unrolling picks element k for each concrete index
 * (unroll.c), so nothing is assumed about strides or sizes: layers of
 * different sizes work as well.
 *
 * The elements are the ones stored consecutively from 0; an index outside
 * them is an error when unrolling (the program reads an element setup never
 * wrote).  Anything not a traced device pointer in one element (an unknown
 * offset, memory tidal does not manage, a missing element in the middle)
 * gives no family: the access stays unresolved, as before.  An integer read
 * at such an index (a shape field) is known only when every element holds
 * the same value.  Only one index per path: `a[i].b[j]` with both symbolic
 * gives no family. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/interp.h"

#define ELEMENTS_MAX 1024 /* elements looked for at most */

/* The path with its one "[?]" replaced by [k]; NULL if it has none or two. */
static const char *element_key(gb *b, const char *key, int k) {
  const char *q = strstr(key, "[?]");
  if (!q || strstr(q + 3, "[?]")) return NULL;
  return gb_fmt(b, "%.*s[%d]%s", (int)(q - key), key, k, q + 3);
}

static const char *display_name(const char *key) {
  const char *c = strchr(key, ':');
  return c ? c + 1 : key;
}

static sym *zero_or(gb *b, sym *s) { return s ? s : sym_const(b->a, 0); }

/* A family of n elements in builder memory. */
static gb_family *family_new(gb *b, int n) {
  gb_family *fm = gb_own(b, calloc(1, sizeof *fm));
  if (!fm) return NULL;
  fm->alloc = gb_own(b, calloc((size_t)n, sizeof *fm->alloc));
  fm->off = gb_own(b, calloc((size_t)n, sizeof *fm->off));
  fm->region = gb_own(b, calloc((size_t)n, sizeof *fm->region));
  fm->name = gb_own(b, calloc((size_t)n, sizeof *fm->name));
  if (!fm->alloc || !fm->off || !fm->region || !fm->name) return NULL;
  fm->n = n;
  return fm;
}

/* *out: the device pointer that is family fm's element at index. */
static void family_value(gb *b, const gb_family *fm, sym *index, gval *out) {
  memset(out, 0, sizeof *out);
  out->k = GV_DEVPTR;
  out->alloc = -1;
  out->region = -1;
  out->base = sym_const(b->a, 0);
  out->delta = sym_const(b->a, 0);
  out->family = fm;
  out->index = index;
}

/* A device pointer an element can be: traced, managed, offset known. */
static int plain_pointer(gb *b, const gval *v) {
  return v->k == GV_DEVPTR && v->alloc >= 0 && !v->family && !v->unmanaged && !v->carried &&
         !sym_is_unknown(sym_add(b->a, zero_or(b, v->base), zero_or(b, v->delta)));
}

/* The value at key (one "[?]") for the index: 1 and *out when the elements
 * the store holds give one (Note [element families]).  is_ptr: the key is
 * a pointer (else an integer). */
int gb_element_read(gb *b, const char *key, sym *index, int is_ptr, gval *out) {
  if (!key || !index || sym_is_unknown(index)) return 0;
  gval first;
  int n = 0;
  for (; n < ELEMENTS_MAX; n++) {
    const char *ek = element_key(b, key, n);
    gval *v = ek ? gb_lookup(b, gb_canon(b, ek)) : NULL;
    if (!v) break;
    if (is_ptr && !plain_pointer(b, v)) return 0;
    if (!is_ptr && (v->k != GV_INT || sym_is_unknown(v->s) || (n && !sym_equal(v->s, first.s))))
      return 0;
    if (!n) first = *v;
  }
  if (!n) return 0;
  if (!is_ptr) {
    *out = first;
    out->ind = 0;
    return 1;
  }
  gb_family *fm = family_new(b, n);
  if (!fm) return 0;
  for (int k = 0; k < n; k++) {
    const char *ek = element_key(b, key, k);
    const gval *v = gb_lookup(b, gb_canon(b, ek));
    fm->alloc[k] = v->alloc;
    fm->off[k] = sym_add(b->a, zero_or(b, v->base), zero_or(b, v->delta));
    fm->region[k] = v->region;
    fm->name[k] = display_name(ek);
  }
  family_value(b, fm, index, out);
  return 1;
}

/* Element j of v, where v is chosen for index values other than k (or
 * equal to it) and the family's own index is var + c: 1 if it has one. */
static int element_at(gb *b, const gval *v, sym *var, int64_t j, int *alloc, sym **off,
                      int *region, const char **name) {
  if (!v->family) {
    *alloc = v->alloc;
    *off = sym_add(b->a, zero_or(b, v->base), zero_or(b, v->delta));
    *region = v->region;
    *name = v->text ? v->text : b->g->allocs[v->alloc].name;
    return 1;
  }
  int64_t c;
  if (!sym_get_const(sym_sub(b->a, v->index, var), &c)) return 0;
  int64_t i = j + c;
  if (i < 0 || i >= v->family->n) return 0;
  *alloc = v->family->alloc[i];
  *off = sym_add(b->a, v->family->off[i], zero_or(b, v->delta));
  *region = v->family->region[i];
  *name = v->family->name[i];
  return 1;
}

/* `var == k ? x : y` for device pointers of which at least one is a family
 * (`l == 0 ? bufs.in.data : bufs.blocks[l - 1].out.data`): the family over
 * var whose element j is x's element for j == k and y's otherwise, for j
 * from 0 while defined.  1 and *out when there are at least two. */
int gb_element_select(gb *b, sym *var, sym *k, const gval *x, const gval *y, gval *out) {
  int64_t kv;
  if (!x->family && !y->family) return 0;
  if (sym_get_kind(var) != SYM_VAR || !sym_get_const(k, &kv)) return 0;
  if ((!x->family && !plain_pointer(b, x)) || (!y->family && !plain_pointer(b, y))) return 0;
  if ((x->family && (x->carried || !x->delta || sym_is_unknown(x->delta))) ||
      (y->family && (y->carried || !y->delta || sym_is_unknown(y->delta))))
    return 0;
  int alloc[ELEMENTS_MAX], region[ELEMENTS_MAX];
  sym *off[ELEMENTS_MAX];
  const char *name[ELEMENTS_MAX];
  int n = 0;
  for (; n < ELEMENTS_MAX; n++)
    if (!element_at(b, n == kv ? x : y, var, n, &alloc[n], &off[n], &region[n], &name[n])) break;
  if (n < 2) return 0;
  gb_family *fm = family_new(b, n);
  if (!fm) return 0;
  memcpy(fm->alloc, alloc, (size_t)n * sizeof *alloc);
  memcpy(fm->off, off, (size_t)n * sizeof *off);
  memcpy(fm->region, region, (size_t)n * sizeof *region);
  memcpy(fm->name, name, (size_t)n * sizeof *name);
  family_value(b, fm, var, out);
  return 1;
}
