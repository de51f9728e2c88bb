/* regions.c - device allocations, the regions arenas are carved into, and
 * the tensors op accesses resolve to.
 *
 * Decisions:
 *  - cudaMalloc-like calls (libcalls.h LIBCALL_ALLOC without HOST_ALLOC)
 *    create an allocation and store a device pointer value into the lvalue
 *    receiving it; host allocations only yield a host array path.
 *  - Regions are found after the setup code has run, from the store: every
 *    device pointer held (at the moment the training loop is entered) by a
 *    variable or field of a live frame or a global names a region starting
 *    at its offset; each region extends to the next region's offset in the
 *    same allocation (or the allocation's end).  This covers sequential
 *    carving (`t1 = ptr; ptr += n1; ...`), pointer arrays filled in loops
 *    and struct fields alike, without matching any one idiom.  Carving
 *    cursors left pointing at the arena's end give empty regions, dropped.
 *  - A tensor is (allocation, region, offset within the region) with loop
 *    induction variables normalised, so `acts.ln1 + l*BTC` in the forward
 *    loop and in the backward loop are the same (per-layer) tensor; the
 *    unrolled trace splits it per concrete layer.
 *  - Aliases: a region reached through another name (a backward scratch
 *    buffer `dl_btc = acts.lnf`) is the same tensor; the other name is kept
 *    in graph_tensor.aliases. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "graph/regions.h"
#include "analysis/libcalls.h"

static const char *display_name(const char *key) {
  const char *c = strchr(key, ':');
  return c ? c + 1 : key;
}

int regions_handle_call(gb *b, gb_frame *f, CXCursor call, const char *callee) {
  int pa = -1, sa = -1;
  if (libcall_alloc_info(callee, &pa, &sa) != 0) return 0;
  const libcall_info *li = libcall_find(callee);
  int n = clang_Cursor_getNumArguments(call);
  graph *g = b->g;
  if (li->flags & LIBCALL_FREE) {
    if (pa < 0 || pa >= n) return 1;
    gval v = gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)pa));
    if (li->flags & LIBCALL_HOST_ALLOC) return 1;
    graph_freecall *nf = realloc(g->frees, (size_t)(g->n_frees + 1) * sizeof *nf);
    if (!nf) return 1;
    g->frees = nf;
    graph_freecall *fr = &g->frees[g->n_frees++];
    memset(fr, 0, sizeof *fr);
    fr->alloc = v.k == GV_DEVPTR ? v.alloc : -1;
    gb_location(b, call, &fr->file, &fr->line, &fr->col);
    fr->stmt = b->have_stmt ? gb_range(b, b->cur_stmt, 1) : gb_range(b, call, 0);
    fr->call = gb_range(b, call, 0);
    if (fr->alloc >= 0) g->allocs[fr->alloc].freed = 1;
    return 1;
  }
  if (pa < 0 || pa >= n) return 1;
  CXCursor pc = clang_Cursor_getArgument(call, (unsigned)pa);
  gval target = gb_eval(b, f, pc); /* &p: the address receiving the pointer */
  gval size = sa >= 0 && sa < n ? gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)sa))
                                : gb_int(b, NULL, NULL, 0);
  for (int i = 0; i < n; i++)
    if (i != pa && i != sa) gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)i));
  if (target.k != GV_ADDR) {
    gb_note(b, call, "allocation result is not stored to a variable the analysis can follow");
    return 1;
  }
  if (li->flags & LIBCALL_HOST_ALLOC) {
    gval h = gb_int(b, NULL, NULL, 0);
    h.k = GV_ADDR;
    h.path = gb_fmt(b, "h%d[0]", b->next_frame++);
    h.unmanaged = 1; /* pinned host memory: a kernel may read it, tidal never maps it */
    gb_store(b, target.path, h);
    return 1;
  }
  if (li->flags & LIBCALL_MANAGED) {
    /* Unified memory stays the driver's: the rewriter leaves the call alone
     * (docs/rewrite.md), so it is no graph allocation and accesses through
     * it are not declared (tidal_op_begin would fail on them). */
    gval m = gb_int(b, NULL, NULL, 0);
    m.k = GV_DEVPTR;
    m.alloc = -1;
    m.base = sym_const(b->a, 0);
    m.delta = sym_const(b->a, 0);
    m.unmanaged = 1;
    m.text = target.text && target.text[0] == '&' ? target.text + 1 : NULL;
    m.text_ok = target.text_ok;
    gb_store(b, target.path, m);
    return 1;
  }
  int id = graph_add_alloc(g);
  if (id < 0) return 1;
  graph_alloc *al = &g->allocs[id];
  al->id = id;
  const char *nm = target.text && target.text[0] == '&' ? target.text + 1 : display_name(target.path);
  al->name = strdup(nm);
  al->bytes = size.k == GV_INT ? size.s : sym_unknown(b->a);
  gb_location(b, call, &al->file, &al->line, &al->col);
  al->stmt = b->have_stmt ? gb_range(b, b->cur_stmt, 1) : gb_range(b, call, 0);
  al->call = gb_range(b, call, 0);
  al->in_loop = b->mode == GB_GRAPH;
  if (target.path[0] == 'f') { /* a local of a frame that forgets names: gone after the call */
    gb_frame *lf = f;
    int fid = atoi(target.path + 1);
    while (lf && lf->id != fid) lf = lf->caller;
    al->local_name = lf && !lf->keep_names;
  }
  gval p = gb_int(b, NULL, NULL, 0);
  p.k = GV_DEVPTR;
  p.s = NULL;
  p.alloc = id;
  p.region = -1;
  p.base = sym_const(b->a, 0);
  p.delta = sym_const(b->a, 0);
  p.text = gb_str(b, nm);
  p.text_ok = target.text_ok;
  gb_store(b, target.path, p);
  return 1;
}

void regions_note_store(gb *b, const char *key, const char *name, gval *v) {
  /* Regions are collected from the store at loop entry (regions_finish_setup);
   * nothing to do per store.  Kept as the hook where per-store tracking
   * (e.g. a pointer stored twice) would go. */
  (void)b;
  (void)key;
  (void)name;
  (void)v;
}

/* Is the frame id of key one of the frames live now (live: the innermost)? */
static int key_live(const gb_frame *live, const char *key) {
  if (key[0] == 'g' && key[1] == ':') return 1;
  if (key[0] == 'h') return 1;
  if (key[0] != 'f') return 0;
  int id = atoi(key + 1);
  for (const gb_frame *f = live; f; f = f->caller)
    if (f->id == id) return 1;
  return 0;
}

typedef struct cand {
  const char *key;
  int is_alloc_name; /* the variable the allocation was stored to: names the arena, not a tensor */
  int alloc;
  sym *off;
  int64_t off_v; /* -1 if not concrete */
  int order;
} cand;

static int cand_cmp(const void *x, const void *y) {
  const cand *a = x, *c = y;
  if (a->alloc != c->alloc) return a->alloc - c->alloc;
  if (a->off_v >= 0 && c->off_v >= 0 && a->off_v != c->off_v) return a->off_v < c->off_v ? -1 : 1;
  if (a->off_v >= 0 && c->off_v >= 0) {
    /* same offset: the first carved tensor is better named by its own
     * variable than by the arena's, and a struct field better than a local */
    if (a->is_alloc_name != c->is_alloc_name) return a->is_alloc_name - c->is_alloc_name;
    int af = strchr(display_name(a->key), '.') != NULL, cf = strchr(display_name(c->key), '.') != NULL;
    if (af != cf) return cf - af;
  }
  return a->order - c->order;
}

/* Regions of allocations first_alloc.. from the pointers that frames
 * `live` and its callers (and globals) hold now. */
static void collect_regions(gb *b, const gb_frame *live, int first_alloc) {
  graph *g = b->g;
  int first_region = g->n_regions;
  cand *cs = calloc(b->tab_n + 1, sizeof *cs);
  int nc = 0;
  if (!cs) return;
  for (size_t i = 0; i < b->tab_cap; i++) {
    gb_entry *e = &b->tab[i];
    if (!e->key || e->v.k != GV_DEVPTR || e->v.alloc < first_alloc) continue;
    if (!key_live(live, e->key)) continue;
    if (strstr(e->key, "[?]")) continue;
    cand *c = &cs[nc++];
    c->key = e->key;
    c->alloc = e->v.alloc;
    c->off = sym_add(b->a, e->v.base, e->v.delta);
    int64_t v;
    c->off_v = graph_eval(g, c->off, &v) == 0 ? v : -1;
    c->order = (int)e->seq;
    c->is_alloc_name = strcmp(display_name(e->key), g->allocs[e->v.alloc].name) == 0;
  }
  qsort(cs, (size_t)nc, sizeof *cs, cand_cmp);
  /* one region per distinct (allocation, offset) */
  int *region_of = calloc((size_t)nc + 1, sizeof *region_of);
  if (!region_of) {
    free(cs);
    return;
  }
  for (int i = 0; i < nc; i++) {
    region_of[i] = -1;
    if (sym_is_unknown(cs[i].off)) continue;
    int dup = -1;
    for (int j = i - 1; j >= 0 && cs[j].alloc == cs[i].alloc; j--)
      if (region_of[j] >= 0 && ((cs[i].off_v >= 0 && cs[j].off_v == cs[i].off_v) ||
                                sym_equal(cs[j].off, cs[i].off))) {
        dup = region_of[j];
        break;
      }
    if (dup >= 0) {
      region_of[i] = dup;
      continue;
    }
    int r = graph_add_region(g);
    if (r < 0) continue;
    g->regions[r].name = strdup(display_name(cs[i].key));
    g->regions[r].alloc = cs[i].alloc;
    g->regions[r].offset = cs[i].off;
    g->regions[r].bytes = NULL;
    region_of[i] = r;
  }
  /* sizes: up to the next region of the same allocation */
  for (int r = first_region; r < g->n_regions; r++) {
    graph_region *rg = &g->regions[r];
    graph_region *next = NULL;
    if (r + 1 < g->n_regions && g->regions[r + 1].alloc == rg->alloc) next = &g->regions[r + 1];
    sym *end = next ? next->offset : g->allocs[rg->alloc].bytes;
    rg->bytes = sym_sub(b->a, end, rg->offset);
  }
  /* drop empty regions (carving cursors left at the end of an arena):
   * values pointing there resolve to the allocation only */
  int *remap = calloc((size_t)g->n_regions + 1, sizeof *remap);
  int kept = first_region;
  for (int r = 0; remap && r < first_region; r++) remap[r] = r;
  for (int r = first_region; remap && r < g->n_regions; r++) {
    int64_t sz;
    if (graph_eval(g, g->regions[r].bytes, &sz) == 0 && sz <= 0) {
      free(g->regions[r].name);
      remap[r] = -1;
      continue;
    }
    g->regions[kept] = g->regions[r];
    remap[r] = kept++;
  }
  if (remap) g->n_regions = kept;
  for (int i = 0; i < nc; i++) {
    int r = region_of[i];
    if (r < 0 || !remap) continue;
    r = remap[r];
    if (r < 0) continue;
    gval *v = gb_lookup(b, cs[i].key);
    if (!v) continue;
    v->region = r;
    v->base = g->regions[r].offset;
    v->delta = sym_const(b->a, 0);
  }
  free(remap);
  free(region_of);
  free(cs);
  /* `net.y = talloc(n)` copied from the helper's returned struct
   * (interp_expr.c, Note [struct copies]): an allocation that is one
   * region, at its start, is named as the program keeps it (`net.y.data`),
   * not as the helper's dead local it was stored to (`t.data`).  An arena
   * carved into several keeps its own name (`mem`). */
  for (int r = first_region; r < g->n_regions; r++) {
    graph_alloc *al = &g->allocs[g->regions[r].alloc];
    int64_t o;
    if (!al->local_name || graph_eval(g, g->regions[r].offset, &o) != 0 || o != 0) continue;
    int n = 0;
    for (int q = first_region; q < g->n_regions; q++) n += g->regions[q].alloc == g->regions[r].alloc;
    if (n != 1) continue;
    free(al->name);
    al->name = strdup(g->regions[r].name);
    al->local_name = 0;
  }
}

void regions_finish_setup(gb *b) { collect_regions(b, b->loop_frame, 0); }

/* Lazy carving on the first iteration (interp_branch.c, Note [once and
 * periodic]): the arena allocated in a once branch is carved there too. */
void regions_once_done(gb *b, gb_frame *f, int first_alloc) {
  if (first_alloc < b->g->n_allocs) collect_regions(b, f, first_alloc);
}

/* ---- tensors ---- */

static int is_loop_var(gb *b, const char *name) {
  for (int i = 0; i < b->g->n_loops; i++)
    if (b->g->loops[i].var && strcmp(b->g->loops[i].var, name) == 0) return 1;
  return 0;
}

static sym *norm_lookup(void *ud, const char *name) {
  gb *b = ud;
  return is_loop_var(b, name) ? sym_var(b->a, "#") : NULL;
}

/* Loop variables appearing in s, comma separated, into buf. */
static void loop_vars_in(gb *b, const sym *s, char *buf, size_t cap) {
  if (!s) return;
  if (sym_get_kind(s) == SYM_VAR) {
    const char *n = sym_var_name(s);
    if (is_loop_var(b, n) && !strstr(buf, n) && strlen(buf) + strlen(n) + 2 < cap) {
      if (*buf) strcat(buf, ",");
      strcat(buf, n);
    }
    return;
  }
  loop_vars_in(b, sym_lhs(s), buf, cap);
  loop_vars_in(b, sym_rhs(s), buf, cap);
}

/* `a.b`, `p->b`, `a[3].b`: a name, not an expression. */
static int plain_text(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  while (*s) {
    if (isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '[' || *s == ']')
      s++;
    else if (s[0] == '-' && s[1] == '>')
      s += 2;
    else
      return 0;
  }
  return 1;
}

static int text_mentions(const char *hay, const char *name) {
  return hay && name && strstr(hay, name) != NULL;
}

/* The tensor standing for a whole allocation (offset 0, region -1, so an
 * unknown extent covers the allocation, not one carved region): the
 * conservative target of an access whose offset is unknown. */
int regions_tensor_whole(gb *b, int alloc) {
  graph *g = b->g;
  if (alloc < 0 || alloc >= g->n_allocs) return -1;
  for (int i = 0; i < g->n_tensors; i++) {
    graph_tensor *t = &g->tensors[i];
    int64_t off;
    if (t->alloc == alloc && t->region < 0 && sym_get_const(t->offset, &off) && off == 0) {
      t->bytes = g->allocs[alloc].bytes;
      return i;
    }
  }
  int id = graph_add_tensor(g);
  if (id < 0) return -1;
  graph_tensor *t = &g->tensors[id];
  t->id = id;
  t->alloc = alloc;
  t->region = -1;
  t->offset = sym_const(b->a, 0);
  t->bytes = g->allocs[alloc].bytes;
  t->name = strdup(g->allocs[alloc].name);
  return id;
}

int regions_tensor_family(gb *b, const gval *v, sym *bytes, const char *ptr_text) {
  graph *g = b->g;
  const gb_family *fm = v->family;
  int n = fm->n;
  sym *nidx = sym_subst(b->a, v->index, norm_lookup, b);
  sym *noff = sym_subst(b->a, v->delta, norm_lookup, b);
  for (int i = 0; i < g->n_tensors; i++) {
    graph_tensor *t = &g->tensors[i];
    if (t->n_family != n || !sym_equal(sym_subst(b->a, t->family_index, norm_lookup, b), nidx) ||
        !sym_equal(sym_subst(b->a, t->offset, norm_lookup, b), noff))
      continue;
    int same = 1;
    for (int k = 0; k < n && same; k++)
      same = fm->alloc[k] == t->family[k] && sym_equal(fm->off[k], t->family_off[k]);
    if (!same) continue;
    if (sym_is_unknown(t->bytes)) t->bytes = bytes;
    else if (!sym_is_unknown(bytes) && !sym_equal(t->bytes, bytes)) t->bytes = sym_max(b->a, t->bytes, bytes);
    return i;
  }
  int id = graph_add_tensor(g);
  if (id < 0) return -1;
  graph_tensor *t = &g->tensors[id];
  t->id = id;
  t->family = calloc((size_t)n, sizeof *t->family);
  t->family_off = calloc((size_t)n, sizeof *t->family_off);
  t->family_region = calloc((size_t)n, sizeof *t->family_region);
  t->family_name = calloc((size_t)n, sizeof *t->family_name);
  if (!t->family || !t->family_off || !t->family_region || !t->family_name) return -1;
  for (int k = 0; k < n; k++) {
    t->family[k] = fm->alloc[k];
    t->family_off[k] = fm->off[k];
    t->family_region[k] = fm->region[k];
    t->family_name[k] = strdup(fm->name[k] ? fm->name[k] : g->allocs[fm->alloc[k]].name);
  }
  t->n_family = n;
  t->family_index = v->index;
  t->alloc = t->family[0];
  t->region = -1;
  t->offset = v->delta;
  t->bytes = bytes;
  t->name = strdup(ptr_text ? ptr_text : g->allocs[t->alloc].name);
  return id;
}

int regions_tensor_for(gb *b, const gval *v, sym *bytes, const char *ptr_text) {
  graph *g = b->g;
  if (v->k != GV_DEVPTR || v->alloc < 0) return -1;
  sym *delta = v->delta ? v->delta : sym_const(b->a, 0);
  if (sym_is_unknown(delta)) return -1;
  sym *nd = sym_subst(b->a, delta, norm_lookup, b);
  sym *offset = sym_add(b->a, v->base ? v->base : sym_const(b->a, 0), delta);
  sym *noff = sym_subst(b->a, offset, norm_lookup, b);
  int found = -1;
  for (int i = 0; i < g->n_tensors; i++) {
    graph_tensor *t = &g->tensors[i];
    if (t->alloc != v->alloc) continue;
    if (sym_equal(sym_subst(b->a, t->offset, norm_lookup, b), noff)) {
      found = i;
      break;
    }
  }
  if (found < 0) {
    found = graph_add_tensor(g);
    if (found < 0) return -1;
    graph_tensor *t = &g->tensors[found];
    t->id = found;
    t->alloc = v->alloc;
    t->region = v->region;
    t->offset = offset;
    t->bytes = bytes;
    const char *base = v->region >= 0 ? g->regions[v->region].name : g->allocs[v->alloc].name;
    /* `bufs.in = talloc(n)`: named as reached (`bufs.in.data`), not as the
     * helper's local the allocation was stored to (`t.data`) */
    if (v->region < 0 && g->allocs[v->alloc].local_name && plain_text(ptr_text)) {
      base = ptr_text;
      int64_t z;
      if (sym_get_const(offset, &z) && z == 0) { /* the allocation too, once */
        free(g->allocs[v->alloc].name);
        g->allocs[v->alloc].name = strdup(ptr_text);
        g->allocs[v->alloc].local_name = 0;
      }
    }
    int64_t dz;
    char vars[128] = "";
    loop_vars_in(b, delta, vars, sizeof vars);
    if (sym_get_const(nd, &dz) && dz == 0) {
      t->name = strdup(base);
    } else if (*vars) {
      size_t len = strlen(base) + strlen(vars) + 3;
      t->name = malloc(len);
      if (t->name) snprintf(t->name, len, "%s[%s]", base, vars);
    } else {
      char *ds = sym_to_string(delta);
      size_t len = strlen(base) + strlen(ds ? ds : "?") + 4;
      t->name = malloc(len);
      if (t->name) snprintf(t->name, len, "%s+%s", base, ds ? ds : "?");
      free(ds);
    }
  } else {
    graph_tensor *t = &g->tensors[found];
    if (!sym_equal(t->bytes, bytes)) {
      int64_t x, y;
      if (sym_is_unknown(t->bytes)) t->bytes = bytes;
      else if (sym_is_unknown(bytes)) { /* keep the known extent */ }
      else if (graph_eval(g, t->bytes, &x) == 0 && graph_eval(g, bytes, &y) == 0)
        t->bytes = y > x ? bytes : t->bytes;
      else t->bytes = sym_max(b->a, t->bytes, bytes);
    }
  }
  /* Another name for the same tensor: keep it (aliases). */
  graph_tensor *t = &g->tensors[found];
  if (ptr_text) {
    size_t n = strcspn(ptr_text, " +[(-");
    char root[128];
    if (n > 0 && n < sizeof root) {
      memcpy(root, ptr_text, n);
      root[n] = '\0';
      const char *last = strrchr(root, '.');
      const char *leaf = last ? last + 1 : root;
      const char *arrow = strstr(leaf, "->");
      if (arrow) leaf = arrow + 2;
      if (!text_mentions(t->name, leaf)) {
        int have = 0;
        for (int i = 0; i < t->n_aliases; i++)
          if (strcmp(t->aliases[i], root) == 0) have = 1;
        if (!have) {
          char **na = realloc(t->aliases, (size_t)(t->n_aliases + 1) * sizeof *na);
          if (na) {
            t->aliases = na;
            t->aliases[t->n_aliases++] = strdup(root);
          }
        }
      }
    }
  }
  return found;
}
