/* store.c - the interpreter's memory: strings the builder owns and the
 * store from lvalue paths to abstract values (interp.h).
 *
 * Paths: "f3:acts.ln1" is field ln1 of local `acts` in frame 3, "g:B" a
 * global, "h7[0]" a host array, "X[?]" an element at an index that is not
 * constant.  A path whose prefix holds a GV_ALIAS (a struct copy, a
 * reference) stands for the same path under the alias's target;
 * gb_canon rewrites a path to the one its values are stored under.
 * Writes made between gb_undo_begin and gb_undo_end are taken back at the
 * end (an arm that returns, interp_branch.c Note [arms that return]).
 * Everything returned is owned by the builder and freed with it (build.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/interp.h"

/* ---- strings ---- */

char *gb_str(gb *b, const char *s) {
  if (!s) return NULL;
  if (b->n_strs == b->cap_strs) {
    size_t nc = b->cap_strs ? b->cap_strs * 2 : 256;
    char **n = realloc(b->strs, nc * sizeof *n);
    if (!n) return NULL;
    b->strs = n;
    b->cap_strs = nc;
  }
  char *r = strdup(s);
  if (r) b->strs[b->n_strs++] = r;
  return r;
}

char *gb_fmt(gb *b, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof buf) return gb_str(b, buf);
  char *big = malloc((size_t)n + 1);
  if (!big) return NULL;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  char *r = gb_str(b, big);
  free(big);
  return r;
}

/* ---- the store: open addressing over lvalue paths ---- */

static size_t hash_str(const char *s) {
  size_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* key's entry in an open-addressing table of cap (a power of two) slots,
 * or NULL: the store's and a saved copy's lookups, and the undo log's. */
static gb_entry *find_entry(gb_entry *tab, size_t cap, const char *key) {
  if (!key || !cap) return NULL;
  size_t i = hash_str(key) & (cap - 1);
  while (tab[i].key) {
    if (strcmp(tab[i].key, key) == 0) return &tab[i];
    i = (i + 1) & (cap - 1);
  }
  return NULL;
}

gval *gb_lookup(gb *b, const char *key) {
  gb_entry *e = find_entry(b->tab, b->tab_cap, key);
  return e ? &e->v : NULL;
}

static void undo_log(gb *b, const char *key, const gb_entry *e);

void gb_store(gb *b, const char *key, gval v) {
  if (!key) return;
  if (b->dry && !b->in_once) { /* interp_loop.c Note [state changed by calls] */
    if (b->n_dry_keys == b->cap_dry_keys) {
      size_t nc = b->cap_dry_keys ? b->cap_dry_keys * 2 : 256;
      const char **n = realloc(b->dry_keys, nc * sizeof *n);
      if (n) {
        b->dry_keys = n;
        b->cap_dry_keys = nc;
      }
    }
    if (b->n_dry_keys < b->cap_dry_keys) b->dry_keys[b->n_dry_keys++] = gb_str(b, key);
  }
  if ((b->tab_n + 1) * 2 > b->tab_cap) {
    size_t nc = b->tab_cap ? b->tab_cap * 2 : 1024;
    gb_entry *n = calloc(nc, sizeof *n);
    if (!n) return;
    for (size_t i = 0; i < b->tab_cap; i++) {
      if (!b->tab[i].key) continue;
      size_t j = hash_str(b->tab[i].key) & (nc - 1);
      while (n[j].key) j = (j + 1) & (nc - 1);
      n[j] = b->tab[i];
    }
    free(b->tab);
    b->tab = n;
    b->tab_cap = nc;
  }
  size_t i = hash_str(key) & (b->tab_cap - 1);
  while (b->tab[i].key) {
    if (strcmp(b->tab[i].key, key) == 0) {
      if (b->undo_depth) undo_log(b, key, &b->tab[i]);
      b->tab[i].v = v;
      b->tab[i].seq = ++b->store_seq;
      return;
    }
    i = (i + 1) & (b->tab_cap - 1);
  }
  b->tab[i].key = gb_str(b, key);
  if (b->undo_depth && b->tab[i].key) undo_log(b, b->tab[i].key, NULL);
  b->tab[i].v = v;
  b->tab[i].seq = ++b->store_seq;
  b->tab_n++;
}

int gb_store_save(gb *b, gb_store_copy *c) {
  c->tab = malloc((b->tab_cap ? b->tab_cap : 1) * sizeof *c->tab);
  if (!c->tab) return -1;
  if (b->tab_cap) memcpy(c->tab, b->tab, b->tab_cap * sizeof *c->tab);
  c->cap = b->tab_cap;
  c->n = b->tab_n;
  c->seq = b->store_seq;
  return 0;
}

const gval *gb_store_copy_lookup(const gb_store_copy *c, const char *key) {
  const gb_entry *e = find_entry(c->tab, c->cap, key);
  return e ? &e->v : NULL;
}

void gb_store_restore(gb *b, gb_store_copy *c) {
  free(b->tab);
  b->tab = c->tab;
  b->tab_cap = c->cap;
  b->tab_n = c->n;
  b->store_seq = c->seq;
  c->tab = NULL;
}

/* Follows GV_ALIAS entries on the root of a path. */
const char *gb_resolve_alias(gb *b, const char *key) {
  for (int guard = 0; guard < 8; guard++) {
    gval *v = gb_lookup(b, key);
    if (!v || v->k != GV_ALIAS) return key;
    key = v->path;
  }
  return key;
}

/* Takes ownership of a malloc'd block: freed with the builder's strings. */
void *gb_own(gb *b, void *p) {
  if (!p) return NULL;
  if (b->n_strs == b->cap_strs) {
    size_t nc = b->cap_strs ? b->cap_strs * 2 : 256;
    char **n = realloc(b->strs, nc * sizeof *n);
    if (!n) {
      free(p);
      return NULL;
    }
    b->strs = n;
    b->cap_strs = nc;
  }
  b->strs[b->n_strs++] = p;
  return p;
}

/* The path key's values are stored under: every prefix that is an alias
 * replaced by its target ("g:bufs.blocks[3].a.data", where blocks[3].a was
 * assigned the struct a helper returned, is "f9:t.data"). */
const char *gb_canon(gb *b, const char *key) {
  if (!key) return NULL;
  const char *cur = key;
  const char *colon = strchr(cur, ':');
  size_t i = colon ? (size_t)(colon - cur) + 1 : 0;
  char buf[512];
  for (int guard = 0; guard < 64 && cur[i]; i++) {
    if (cur[i] != '.' && cur[i] != '[') continue;
    if (i >= sizeof buf) break;
    memcpy(buf, cur, i);
    buf[i] = '\0';
    gval *v = gb_lookup(b, buf);
    if (!v || v->k != GV_ALIAS) continue;
    const char *to = gb_resolve_alias(b, buf);
    cur = gb_fmt(b, "%s%s", to, cur + i);
    i = strlen(to) - 1; /* the loop's i++ lands on the boundary after the target */
    guard++;
  }
  return gb_resolve_alias(b, cur);
}

/* ---- undo: store writes taken back (interp_branch.c, Note [arms that return]) ---- */

/* Removes key from the table (backward-shift deletion keeps every other
 * key reachable from its home slot). */
static void store_delete(gb *b, const char *key) {
  if (!b->tab_cap) return;
  size_t mask = b->tab_cap - 1, i = hash_str(key) & mask;
  while (b->tab[i].key && strcmp(b->tab[i].key, key) != 0) i = (i + 1) & mask;
  if (!b->tab[i].key) return;
  b->tab[i].key = NULL;
  b->tab_n--;
  for (size_t j = (i + 1) & mask; b->tab[j].key; j = (j + 1) & mask) {
    size_t home = hash_str(b->tab[j].key) & mask;
    /* move j back into the hole i unless its home lies cyclically in (i, j] */
    int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (stays) continue;
    b->tab[i] = b->tab[j];
    b->tab[j].key = NULL;
    i = j;
  }
}

size_t gb_undo_begin(gb *b) {
  b->undo_depth++;
  return b->n_undo;
}

void gb_undo_end(gb *b, size_t mark) {
  b->undo_depth--;
  while (b->n_undo > mark) {
    gb_undo *u = &b->undo[--b->n_undo];
    if (!u->had) {
      store_delete(b, u->key);
      continue;
    }
    gb_entry *e = find_entry(b->tab, b->tab_cap, u->key);
    if (!e) continue;
    e->v = u->v;
    e->seq = u->seq;
  }
}

/* Logs the entry key is about to overwrite (had: it exists). */
static void undo_log(gb *b, const char *key, const gb_entry *e) {
  if (b->n_undo == b->cap_undo) {
    size_t nc = b->cap_undo ? b->cap_undo * 2 : 256;
    gb_undo *n = realloc(b->undo, nc * sizeof *n);
    if (!n) return;
    b->undo = n;
    b->cap_undo = nc;
  }
  gb_undo *u = &b->undo[b->n_undo++];
  u->key = e ? e->key : key;
  u->had = e != NULL;
  if (e) {
    u->v = e->v;
    u->seq = e->seq;
  }
}
