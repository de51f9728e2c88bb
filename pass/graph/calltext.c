/* calltext.c - an access's pointer and byte texts at every level of its
 * op's call path (graph_access.ptr_text_at & co., graph.h), so that
 * `tidal rewrite` can place a plan call at any call level, not only in the
 * training loop body or at the op itself.
 *
 * Level k (0..op.n_calls) is the statement op.calls[k].stmt (k < n_calls)
 * or the op's own statement (k == n_calls), written in function F_k: F_0
 * is the training loop's function, F_k (k > 0) the function calls[k-1]
 * calls.  The texts start as written at the op (ptr_local, bytes_local)
 * and go up one level at a time by substituting F_k's parameters with the
 * argument texts of calls[k-1] (Note [substitution]).
 *
 * Validity at level k: every identifier of the texts is a parameter of
 * F_k, a local of F_k (then the texts are only valid where that local is
 * in scope: text_span_at), or a name F_k does not declare (file scope: a
 * global, macro, enum constant, type or keyword).  Going up, a local of
 * F_k is replaced by its initializer when it has one and is never written
 * afterwards (`int N = B * T;`); any other local of F_k cannot be
 * expressed one level up, so every level above is invalid from then on, as
 * it is for a parameter F_k writes.  Locals are told apart from file-scope
 * names by name only (a local shadowing a global counts as the local: the
 * conservative reading).
 *
 * Note [substitution]
 * Identifiers are replaced token by token, member names after '.' and
 * '->' excepted.  An argument that is not a plain name or member chain is
 * parenthesised; one whose type differs from the parameter's (array to
 * pointer, a pointer to another element type, a narrower integer) is cast
 * to the parameter's canonical type, so pointer arithmetic in the text
 * keeps its meaning.  An argument with possible side effects (++, --, an
 * assignment, a function call) is never duplicated: the levels above are
 * invalid.  A name no function below declares is a file-scope one: one
 * the caller declares (a local or parameter of the same name) would mean
 * that variable there, so the levels above are invalid too.  Level 0 falls
 * back to the graph's loop-context text when that is valid in the training
 * loop body and the chain is not. */
#include <stdlib.h>
#include <string.h>

#include "graph/calltext.h"
#include "base/cursor.h"

#define CT_MAX_NAMES 4096 /* declarations kept per function (more: treated as unknown) */
#define CT_MAX_INLINE 8   /* initializers inlined inside one another (a = b + 1; c = a * 2) */

typedef struct ct_name {
  char *name;
  int param;         /* index of the parameter, -1 for a local */
  unsigned decl_end; /* locals: end of the declaration (valid after it) */
  unsigned scope_b, scope_e; /* locals: the innermost scope holding the declaration */
  char *init;        /* locals: initializer text, NULL if none or not inlinable */
  int mutated;       /* locals: assigned, incremented or address taken after its declaration */
} ct_name;

typedef struct ct_fn {
  CXCursor fn;
  char **mut;        /* names written through after their declaration (assignment, ++, &) */
  int n_mut;
  ct_name *names;
  int n, cap;
  graph_range body;  /* the function's extent */
  graph_range *scopes;
  int n_scopes, cap_scopes;
  int overflow;      /* too many names: every text at this level is invalid */
  gb *b;
  const ct_name *last_local; /* fn_find: the single local found (NULL if none or several) */
} ct_fn;

/* Text growable buffer. */
typedef struct ct_buf {
  char *p;
  size_t n, cap;
  int oom;
} ct_buf;

static void put(ct_buf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

static int is_id_start(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_id_char(char c) { return is_id_start(c) || (c >= '0' && c <= '9'); }

static int has_side_effects(const char *s);

/* ---- declarations of one function ---- */

static ct_name *add_name(ct_fn *f, const char *name, int param, unsigned decl_end) {
  if (f->n >= CT_MAX_NAMES) {
    f->overflow = 1;
    return NULL;
  }
  if (f->n == f->cap) {
    int cap = f->cap ? f->cap * 2 : 32;
    ct_name *v = realloc(f->names, (size_t)cap * sizeof *v);
    if (!v) {
      f->overflow = 1;
      return NULL;
    }
    f->names = v;
    f->cap = cap;
  }
  ct_name *n = &f->names[f->n++];
  memset(n, 0, sizeof *n);
  n->name = strdup(name);
  n->param = param;
  n->decl_end = decl_end;
  if (!n->name) {
    f->n--;
    f->overflow = 1;
    return NULL;
  }
  return n;
}

/* Records the variable an assignment, ++/-- or & writes through.
 * Parentheses and unexposed nodes are entered through their last
 * expression child even when they have several children, where
 * cursor_strip would stop: a write missed would let a written local be
 * replaced by its initializer (Note [substitution]). */
static void note_mutation(ct_fn *f, CXCursor lhs) {
  while (clang_getCursorKind(lhs) == CXCursor_ParenExpr || clang_getCursorKind(lhs) == CXCursor_UnexposedExpr) {
    CXCursor in = cursor_last_expr_child(lhs);
    if (clang_Cursor_isNull(in)) break;
    lhs = in;
  }
  if (clang_getCursorKind(lhs) != CXCursor_DeclRefExpr) return;
  char *name = string_and_dispose(clang_getCursorSpelling(lhs));
  for (int i = 0; name && i < f->n; i++)
    if (f->names[i].param < 0 && !strcmp(f->names[i].name, name)) f->names[i].mutated = 1;
  /* names declared later are marked when they are added (see mutated_names) */
  if (name && f->n_mut < CT_MAX_NAMES) {
    char **v = realloc(f->mut, (size_t)(f->n_mut + 1) * sizeof *v);
    if (v) {
      f->mut = v;
      f->mut[f->n_mut++] = name;
      name = NULL;
    }
  }
  free(name);
}

static int is_scope_kind(enum CXCursorKind k) {
  return k == CXCursor_CompoundStmt || k == CXCursor_ForStmt || k == CXCursor_IfStmt ||
         k == CXCursor_WhileStmt || k == CXCursor_SwitchStmt || k == CXCursor_CXXForRangeStmt ||
         k == CXCursor_CXXCatchStmt;
}

static enum CXChildVisitResult decls_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  ct_fn *f = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_VarDecl) {
    char *name = string_and_dispose(clang_getCursorSpelling(c));
    graph_range r = gb_range(f->b, c, 0);
    ct_name *n = name && *name ? add_name(f, name, -1, r.editable ? r.end : f->body.end) : NULL;
    free(name);
    CXType t = clang_getCanonicalType(clang_getCursorType(c));
    CXCursor init = cursor_last_expr_child(c);
    /* a scalar or pointer local with an initializer may be replaced by it
     * (Note [substitution]) unless it is written later */
    if (n && !clang_Cursor_isNull(init) &&
        (t.kind == CXType_Pointer || (t.kind >= CXType_Bool && t.kind <= CXType_LongLong) ||
         t.kind == CXType_Enum)) {
      const char *it = gb_text(f->b, init);
      if (it && *it && !has_side_effects(it)) n->init = strdup(it);
    }
  } else if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
    if (k == CXCursor_CompoundAssignOperator ||
        clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign)
      note_mutation(f, cursor_first_child(c));
  } else if (k == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind u = clang_getCursorUnaryOperatorKind(c);
    if (u == CXUnaryOperator_PostInc || u == CXUnaryOperator_PostDec ||
        u == CXUnaryOperator_PreInc || u == CXUnaryOperator_PreDec || u == CXUnaryOperator_AddrOf)
      note_mutation(f, cursor_first_child(c));
  } else if (is_scope_kind(k)) {
    graph_range r = gb_range(f->b, c, 0);
    if (f->n_scopes == f->cap_scopes) {
      int cap = f->cap_scopes ? f->cap_scopes * 2 : 16;
      graph_range *v = realloc(f->scopes, (size_t)cap * sizeof *v);
      if (!v) {
        f->overflow = 1;
        return CXChildVisit_Break;
      }
      f->scopes = v;
      f->cap_scopes = cap;
    }
    f->scopes[f->n_scopes++] = r;
  } else if (k == CXCursor_LambdaExpr) {
    return CXChildVisit_Continue; /* a lambda's names are not the function's */
  }
  return CXChildVisit_Recurse;
}

static enum CXChildVisitResult fields_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  ct_fn *f = d;
  if (clang_getCursorKind(c) != CXCursor_FieldDecl) return CXChildVisit_Continue;
  char *name = string_and_dispose(clang_getCursorSpelling(c));
  ct_name *n = name && *name ? add_name(f, name, -1, f->body.begin) : NULL;
  if (n) n->mutated = 1;
  free(name);
  return CXChildVisit_Continue;
}

static void fn_load(gb *b, CXCursor fn, ct_fn *f) {
  memset(f, 0, sizeof *f);
  f->b = b;
  f->fn = fn;
  if (clang_Cursor_isNull(fn)) {
    f->overflow = 1;
    return;
  }
  f->body = gb_range(b, fn, 0);
  int np = clang_Cursor_getNumArguments(fn);
  for (int i = 0; i < np; i++) {
    char *name = string_and_dispose(clang_getCursorSpelling(clang_Cursor_getArgument(fn, (unsigned)i)));
    if (name && *name) add_name(f, name, i, 0);
    free(name);
  }
  clang_visitChildren(fn, decls_visitor, f);
  /* A method's own fields (`m_batchSize`, implicit this) are names of this
   * level only: valid anywhere in it, never expressible a level up (no
   * `this` there), like a local without an initializer. */
  enum CXCursorKind fk = clang_getCursorKind(fn);
  if ((fk == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(fn)) || fk == CXCursor_Constructor ||
      fk == CXCursor_Destructor)
    clang_visitChildren(clang_getCursorSemanticParent(fn), fields_visitor, f);
  for (int i = 0; i < f->n; i++)
    for (int m = 0; m < f->n_mut && !f->names[i].mutated; m++)
      if (f->names[i].param < 0 && !strcmp(f->names[i].name, f->mut[m])) f->names[i].mutated = 1;
  /* each local's innermost scope: the smallest recorded scope holding it */
  for (int i = 0; i < f->n; i++) {
    ct_name *n = &f->names[i];
    if (n->param >= 0) continue;
    n->scope_b = f->body.begin;
    n->scope_e = f->body.end;
    for (int s = 0; s < f->n_scopes; s++) {
      graph_range r = f->scopes[s];
      if (r.begin < n->decl_end && n->decl_end <= r.end && r.end - r.begin < n->scope_e - n->scope_b) {
        n->scope_b = r.begin;
        n->scope_e = r.end;
      }
    }
  }
}

static void fn_free(ct_fn *f) {
  for (int i = 0; i < f->n; i++) {
    free(f->names[i].name);
    free(f->names[i].init);
  }
  for (int i = 0; i < f->n_mut; i++) free(f->mut[i]);
  free(f->mut);
  free(f->names);
  free(f->scopes);
}

/* The declaration `name` denotes in f (the innermost local wins over a
 * parameter only if declared; a name declared twice is ambiguous: the
 * narrowest span of all its locals is used, the conservative choice). */
static const ct_name *fn_find(ct_fn *f, const char *name, size_t len, int *is_local,
                              unsigned *lo, unsigned *hi) {
  const ct_name *param = NULL;
  int local = 0;
  f->last_local = NULL;
  for (int i = 0; i < f->n; i++) {
    const ct_name *n = &f->names[i];
    if (strlen(n->name) != len || strncmp(n->name, name, len) != 0) continue;
    if (n->param >= 0) {
      param = n;
      continue;
    }
    /* the one declaration of this name, for inlining its initializer */
    f->last_local = local ? NULL : n;
    local++;
    if (n->decl_end > *lo) *lo = n->decl_end;
    if (n->scope_b > *lo) *lo = n->scope_b;
    if (n->scope_e < *hi) *hi = n->scope_e;
  }
  *is_local = local > 0;
  return local ? NULL : param;
}

/* 1 if f declares name (a parameter, a local in any scope, a field). */
static int fn_declares(const ct_fn *f, const char *s, size_t n) {
  if (f->overflow) return 1; /* its names are not all known */
  for (int i = 0; i < f->n; i++)
    if (strlen(f->names[i].name) == n && !strncmp(f->names[i].name, s, n)) return 1;
  return 0;
}

/* ---- scanning a C text ---- */

/* Calls fn for every identifier that names a value (not a member name, not
 * inside a literal).  fn returns 0 to go on. */
typedef int (*ident_fn)(void *ud, const char *s, size_t n, size_t at);

static int scan_idents(const char *s, ident_fn fn, void *ud) {
  size_t i = 0, len = strlen(s);
  int member = 0; /* the previous token was '.' or '->' */
  while (i < len) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      char q = c;
      for (i++; i < len && s[i] != q; i++)
        if (s[i] == '\\') i++;
      i++;
      member = 0;
      continue;
    }
    if (c >= '0' && c <= '9') {
      while (i < len && (is_id_char(s[i]) || s[i] == '.')) i++;
      member = 0;
      continue;
    }
    if (is_id_start(c)) {
      size_t b = i;
      while (i < len && is_id_char(s[i])) i++;
      if (!member) {
        int r = fn(ud, s + b, i - b, b);
        if (r) return r;
      }
      member = 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n') {
      i++;
      continue;
    }
    member = c == '.' || (c == '-' && i + 1 < len && s[i + 1] == '>');
    i += (c == '-' && i + 1 < len && s[i + 1] == '>') ? 2 : 1;
  }
  return 0;
}

/* Classification of a level's texts against its function. */
typedef struct classify_ud {
  ct_fn *f;
  unsigned lo, hi; /* span where every local used is in scope */
  int bad;
} classify_ud;

static int classify_ident(void *ud, const char *s, size_t n, size_t at) {
  classify_ud *u = ud;
  (void)at;
  int local = 0;
  fn_find(u->f, s, n, &local, &u->lo, &u->hi);
  return 0;
}

/* 1 if the argument text may have side effects, so it must not be
 * evaluated a second time. */
static int has_side_effects(const char *s) {
  for (const char *p = s; *p; p++) {
    if ((p[0] == '+' && p[1] == '+') || (p[0] == '-' && p[1] == '-')) return 1;
    if (p[0] == '=' && p[1] != '=' && (p == s || !strchr("=<>!", p[-1]))) return 1;
    if (is_id_start(*p) && (p == s || !is_id_char(p[-1]))) {
      const char *e = p;
      while (is_id_char(*e)) e++;
      const char *q = e;
      while (*q == ' ' || *q == '\t' || *q == '\n') q++;
      if (*q == '(' && !(e - p == 6 && !strncmp(p, "sizeof", 6))) return 1;
      p = e - 1;
    }
  }
  return 0;
}

/* 1 if the text is a name, a member chain or a number: no parentheses needed. */
static int is_simple(const char *s) {
  if (!*s || *s == '.' || *s == '-') return 0;
  for (const char *p = s; *p; p++) {
    if (is_id_char(*p) || *p == '.') continue;
    if (p[0] == '-' && p[1] == '>') {
      p++;
      continue;
    }
    return 0;
  }
  return 1;
}

/* Canonical type spelling with qualifiers dropped from the pointee
 * ("const float *" and "float *" compare equal). */
static char *type_key(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind == CXType_Pointer) {
    CXType p = clang_getCanonicalType(clang_getPointeeType(t));
    char *s = string_and_dispose(clang_getTypeSpelling(p));
    if (!s) return NULL;
    /* drop leading "const "/"volatile " */
    const char *q = s;
    for (;;) {
      if (!strncmp(q, "const ", 6)) q += 6;
      else if (!strncmp(q, "volatile ", 9)) q += 9;
      else break;
    }
    size_t n = strlen(q);
    char *r = malloc(n + 3);
    if (r) {
      memcpy(r, q, n);
      memcpy(r + n, " *", 3);
    }
    free(s);
    return r;
  }
  return string_and_dispose(clang_getTypeSpelling(clang_getUnqualifiedType(t)));
}

/* Substitution of F's parameters by the call's arguments. */
static char *substitute_at(ct_fn *f, ct_fn *caller, char **args, int nargs, const char *text,
                           int depth, int *bad);
typedef struct subst_ud {
  ct_fn *f;           /* the called function */
  ct_fn *caller;      /* the function the text goes to */
  int depth;          /* initializers inlined around this text */
  char **args;        /* replacement text per parameter (NULL: not expressible) */
  int nargs;
  const char *src;
  size_t done;        /* bytes of src copied so far */
  ct_buf out;
  int bad;
} subst_ud;

static int subst_ident(void *ud, const char *s, size_t n, size_t at) {
  subst_ud *u = ud;
  int local = 0;
  unsigned lo = 0, hi = ~0u;
  const ct_name *d = fn_find(u->f, s, n, &local, &lo, &hi);
  if (local) {
    /* a local of the called function: expressible above only through its
     * initializer, if it has one and is never written afterwards */
    const ct_name *l = u->f->last_local;
    int bad = 0;
    char *r = NULL;
    if (l && l->init && !l->mutated && u->depth < CT_MAX_INLINE)
      r = substitute_at(u->f, u->caller, u->args, u->nargs, l->init, u->depth + 1, &bad);
    if (!r || bad) {
      free(r);
      u->bad = 1;
      return 1;
    }
    put(&u->out, u->src + u->done, at - u->done);
    if (!is_simple(r)) put(&u->out, "(", 1);
    put(&u->out, r, strlen(r));
    if (!is_simple(r)) put(&u->out, ")", 1);
    free(r);
    u->done = at + n;
    return 0;
  }
  if (!d) {
    /* file scope: the same name above, unless the caller declares it
     * (Note [substitution]) */
    if (u->caller && fn_declares(u->caller, s, n)) {
      u->bad = 1;
      return 1;
    }
    return 0;
  }
  int written = 0;
  for (int m = 0; m < u->f->n_mut; m++)
    if (strlen(u->f->mut[m]) == n && !strncmp(u->f->mut[m], s, n)) written = 1;
  if (written || d->param >= u->nargs || !u->args[d->param]) {
    u->bad = 1; /* a parameter the function changes no longer holds the argument */
    return 1;
  }
  put(&u->out, u->src + u->done, at - u->done);
  const char *a = u->args[d->param];
  put(&u->out, a, strlen(a));
  u->done = at + n;
  return 0;
}

/* The replacement text for each parameter of the function `call` enters
 * (NULL where the argument may not be duplicated). */
static char **call_args(gb *b, CXCursor call, CXCursor fn, int *n_out) {
  int np = clang_Cursor_getNumArguments(fn);
  int na = clang_Cursor_getNumArguments(call);
  *n_out = np > 0 ? np : 0;
  char **v = calloc((size_t)(np > 0 ? np : 1), sizeof *v);
  if (!v) return NULL;
  /* an operator call (a lambda `launch(p.w, g.w, n)`) lists the object
   * first: parameter i is argument i + 1 (as in interp_call.c's gb_eval_call) */
  int skip = clang_getCursorKind(fn) == CXCursor_CXXMethod && na == np + 1;
  for (int i = 0; i < np && i + skip < na; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)(i + skip));
    CXCursor p = clang_Cursor_getArgument(fn, (unsigned)i);
    char *t = strdup(gb_text(b, a));
    if (!t || !*t || has_side_effects(t)) {
      free(t);
      continue;
    }
    char *ka = type_key(clang_getCursorType(a)), *kp = type_key(clang_getCursorType(p));
    ct_buf r = {0};
    if (ka && kp && strcmp(ka, kp) != 0) {
      char *ps = string_and_dispose(
          clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(p))));
      put(&r, "((", 2);
      put(&r, ps ? ps : "void *", strlen(ps ? ps : "void *"));
      put(&r, ")(", 2);
      put(&r, t, strlen(t));
      put(&r, "))", 2);
      free(ps);
    } else if (is_simple(t)) {
      put(&r, t, strlen(t));
    } else {
      put(&r, "(", 1);
      put(&r, t, strlen(t));
      put(&r, ")", 1);
    }
    free(ka);
    free(kp);
    free(t);
    if (r.oom) free(r.p);
    else v[i] = r.p;
  }
  return v;
}

static char *substitute_at(ct_fn *f, ct_fn *caller, char **args, int nargs, const char *text,
                           int depth, int *bad) {
  subst_ud u;
  memset(&u, 0, sizeof u);
  u.f = f;
  u.caller = caller;
  u.depth = depth;
  u.args = args;
  u.nargs = nargs;
  u.src = text;
  scan_idents(text, subst_ident, &u);
  if (u.bad || u.out.oom) {
    free(u.out.p);
    *bad = 1;
    return NULL;
  }
  put(&u.out, text + u.done, strlen(text) - u.done);
  if (u.out.oom) {
    free(u.out.p);
    *bad = 1;
    return NULL;
  }
  return u.out.p;
}

static char *substitute(ct_fn *f, ct_fn *caller, char **args, int nargs, const char *text,
                        int *bad) {
  return substitute_at(f, caller, args, nargs, text, 0, bad);
}

/* ---- the functions loaded so far ----
 *
 * fn_load walks a whole function body; calling it per op made `tidal
 * graph` quadratic in the op statements of one function (50,000 launches
 * in the loop: over 10 minutes).  Each function is loaded once per graph
 * build and kept here, keyed by its cursor (calltext_free drops them). */

#define CT_BUCKETS 1024

typedef struct ct_entry {
  ct_fn f;
  struct ct_entry *next;
} ct_entry;

struct ct_cache {
  ct_entry *bucket[CT_BUCKETS];
  ct_fn null_fn; /* a call path level with no definition */
};

static ct_fn *fn_get(gb *b, CXCursor fn) {
  if (!b->ct_cache) {
    b->ct_cache = calloc(1, sizeof *b->ct_cache);
    if (!b->ct_cache) return NULL;
    b->ct_cache->null_fn.overflow = 1;
  }
  if (clang_Cursor_isNull(fn)) return &b->ct_cache->null_fn;
  unsigned h = clang_hashCursor(fn) % CT_BUCKETS;
  for (ct_entry *e = b->ct_cache->bucket[h]; e; e = e->next)
    if (clang_equalCursors(e->f.fn, fn)) return &e->f;
  ct_entry *e = malloc(sizeof *e);
  if (!e) return NULL;
  fn_load(b, fn, &e->f);
  e->next = b->ct_cache->bucket[h];
  b->ct_cache->bucket[h] = e;
  return &e->f;
}

void calltext_free(gb *b) {
  if (!b->ct_cache) return;
  for (int h = 0; h < CT_BUCKETS; h++)
    for (ct_entry *e = b->ct_cache->bucket[h], *next; e; e = next) {
      next = e->next;
      fn_free(&e->f);
      free(e);
    }
  free(b->ct_cache);
  b->ct_cache = NULL;
}

/* ---- per op ---- */

static CXCursor called_def(const pass_tu *t, CXCursor call) {
  CXCursor d = gb_callee_decl(call);
  if (clang_Cursor_isNull(d)) return d;
  CXCursor def = program_definition(t, d); /* in any input */
  return clang_Cursor_isNull(def) ? d : def;
}

/* Note [object-named sizes]: a size read from an object's member inside
 * one of its methods, or from a cuDNN descriptor set in the training loop,
 * is the loop-level name of that member (`conv1.in_channels`, interp_lvalue.c
 * gb_member_text), not text written at the op.  Substituted up the call path
 * like the op's own text, its root would be taken for a parameter or local
 * of the same name (`float *conv1` in Backpropagation) and replaced by that
 * argument (`d_conv1.in_channels`: not C), and a root that is a local of
 * the loop's function (`context`) is no name inside the callee.  Such a
 * name of an op below the loop's function, whose root a function on the
 * path declares (the loop's included) and that is bound, is written as its
 * value instead; one that is not bound keeps its name (bound later, the
 * rewriter writes its value; llm.c's cuBLASLt sizes, which named
 * model.config.channels inside gpt2_backward(GPT2 *model), are now in the
 * setter's own names: opsites.c, Note [descriptor extents at the op]).
 * Sizes of descriptors set in another function reach here already in the
 * op's names (Note [loop-context sizes at the op], below), so this is a
 * second line for loop-level names from elsewhere. */
typedef struct shadow_ud {
  gb *b;
  ct_fn **fp;
  int n;
} shadow_ud;

static sym *shadowed_value(void *ud, const char *name) {
  shadow_ud *u = ud;
  size_t root = strcspn(name, ".-[");
  if (!name[root] || u->n == 0) return NULL; /* a plain name is the op's own text */
  /* level 0 too: a local of the loop's function is no name in a callee */
  for (int k = 0; k <= u->n; k++)
    for (int i = 0; i < u->fp[k]->n; i++)
      if (strlen(u->fp[k]->names[i].name) == root && !strncmp(u->fp[k]->names[i].name, name, root)) {
        int64_t v;
        return bind_lookup(&u->b->g->binds, name, &v) ? sym_const(u->b->a, v) : NULL;
      }
  return NULL;
}

/* Note [loop-context sizes at the op]: a value the interpreter computed
 * for the loop (gval.s: a cuDNN descriptor's bytes set in another
 * function, an integer followed through cudaLaunchKernel's argument array,
 * an access's loop-context extent) is in loop-context names (interp.c):
 * the variables of the name-keeping frames (main and the training loop's
 * function), member chains rooted at them (`height`, `context.m_ws`), and
 * file-scope names.  In a function f only the file-scope ones and, when f
 * keeps names itself, f's own mean the same: a variable of main is no name
 * in lenet's ForwardPropagation (it declared `height * width`, main's
 * locals: the rewritten program did not compile), nor in p15's
 * train_epoch, whose loop's plan calls named main's `n`; and a name f
 * declares when it does not keep names (a parameter, a local, a field) is
 * another variable that happens to share the name (it compiles, and
 * declares the wrong extent).  So such a name is written as its bound
 * value, and without one the whole value is unknown in f (an op's
 * declaration is then TIDAL_EXTENT_UNKNOWN: to the end of its allocation;
 * a plan call is not placed there); those names are added to a list, for
 * the declaration's annotation.  Names are told apart by name only: a
 * global that main shadows counts as main's (the conservative reading). */
typedef struct scope_ud {
  gb *b;
  ct_fn *own;         /* the op's function (NULL: a name-keeping one, whose names are the
                         loop context's) */
  ct_fn **keep;       /* the name-keeping functions on the call stack */
  int n_keep;
  int hit;            /* scope_ident: the name scanned is not the file-scope one */
  int bad;            /* a name with no value at the op */
  ct_buf names;       /* the names not in scope, for *why */
} scope_ud;


static int scope_ident(void *ud, const char *s, size_t n, size_t at) {
  scope_ud *u = ud;
  (void)at;
  u->hit = u->own && fn_declares(u->own, s, n);
  for (int i = 0; i < u->n_keep && !u->hit; i++) u->hit = fn_declares(u->keep[i], s, n);
  return u->hit; /* one such name decides */
}

static sym *scope_value(void *ud, const char *name) {
  scope_ud *u = ud;
  u->hit = 0;
  scan_idents(name, scope_ident, u);
  if (!u->hit) return NULL; /* file scope: the same name at the op */
  int64_t v;
  if (bind_lookup(&u->b->g->binds, name, &v)) return sym_const(u->b->a, v);
  u->bad = 1;
  /* for *why: each name once, the first few */
  ct_buf q = {0};
  put(&q, "'", 1);
  put(&q, name, strlen(name));
  put(&q, "'", 1);
  if (!q.oom && u->names.n < 160 && !(u->names.p && strstr(u->names.p, q.p))) {
    if (u->names.n) put(&u->names, ", ", 2);
    put(&u->names, q.p, q.n);
  }
  free(q.p);
  return sym_unknown(u->b->a);
}

sym *calltext_at_op(gb *b, gb_frame *f, sym *s, const char **names) {
  if (!s || sym_is_unknown(s) || !f) return s;
  /* a name-keeping frame's own names are the loop context's */
  ct_fn *own = f->keep_names ? NULL : fn_get(b, f->fn);
  ct_fn *keep[GB_MAX_CALL_DEPTH + 1];
  int n_keep = 0;
  for (gb_frame *p = f->caller; p && n_keep <= GB_MAX_CALL_DEPTH; p = p->caller)
    if (p->keep_names) {
      keep[n_keep] = fn_get(b, p->fn);
      if (!keep[n_keep]) return sym_unknown(b->a);
      n_keep++;
    }
  if (!f->keep_names && !own) return sym_unknown(b->a);
  if (!own && n_keep == 0) return s; /* the training loop in main */
  scope_ud u = {b, own, keep, n_keep, 0, 0, {0}};
  if (names && *names) put(&u.names, *names, strlen(*names));
  sym *r = sym_subst(b->a, s, scope_value, &u);
  if (names && u.names.p && !u.names.oom) *names = gb_str(b, u.names.p);
  free(u.names.p);
  return u.bad ? sym_unknown(b->a) : r;
}

void calltext_op(gb *b, graph_op *op) {
  int n = op->n_calls;
  if (op->n_acc == 0) return;
  ct_fn **fp = calloc((size_t)n + 1, sizeof *fp);
  if (!fp) return;
  fp[0] = fn_get(b, b->loop_frame ? b->loop_frame->fn : clang_getNullCursor());
  /* the function each call ran: through a function pointer or a virtual
   * method it is not the one the call names (interp_indirect.c), and the
   * override's fields are not the base class's */
  for (int k = 1; k <= n; k++)
    fp[k] = fn_get(b, clang_Cursor_isNull(b->path_fn[k - 1])
                          ? called_def(b->t, b->path_cursor[k - 1])
                          : b->path_fn[k - 1]);
  for (int k = 0; k <= n; k++)
    if (!fp[k]) {
      free(fp);
      return;
    }
  /* argument texts of each call on the path, for its callee's parameters */
  char ***args = calloc((size_t)n + 1, sizeof *args);
  int *nargs = calloc((size_t)n + 1, sizeof *nargs);
  for (int k = 0; args && nargs && k < n; k++)
    args[k] = call_args(b, b->path_cursor[k], fp[k + 1]->fn, &nargs[k]);

  for (int j = 0; j < op->n_acc; j++) {
    graph_access *a = &op->acc[j];
    a->ptr_text_at = calloc((size_t)n + 1, sizeof *a->ptr_text_at);
    a->bytes_text_at = calloc((size_t)n + 1, sizeof *a->bytes_text_at);
    a->text_valid_at = calloc((size_t)n + 1, sizeof *a->text_valid_at);
    a->text_span_at = calloc((size_t)n + 1, sizeof *a->text_span_at);
    if (!a->ptr_text_at || !a->bytes_text_at || !a->text_valid_at || !a->text_span_at) break;
    char *ptr = a->ptr_local ? strdup(a->ptr_local) : NULL;
    shadow_ud su = {b, fp, n};
    if (!sym_is_unknown(a->bytes_local)) /* the op's own declaration too (siteacc.c) */
      a->bytes_local = sym_subst(b->a, a->bytes_local, shadowed_value, &su);
    char *bytes = sym_is_unknown(a->bytes_local) ? NULL : sym_to_c(a->bytes_local);
    int ok = ptr != NULL;
    for (int k = n; k >= 0 && ok; k--) {
      ct_fn *f = fp[k];
      classify_ud cu = {f, f->body.begin, f->body.end, 0};
      scan_idents(ptr, classify_ident, &cu);
      if (bytes) scan_idents(bytes, classify_ident, &cu);
      a->ptr_text_at[k] = strdup(ptr);
      a->bytes_text_at[k] = bytes ? strdup(bytes) : NULL;
      a->text_valid_at[k] = !f->overflow && f->body.editable && bytes && cu.lo < cu.hi;
      a->text_span_at[k] = (graph_range){cu.lo, cu.hi, f->body.editable && cu.lo < cu.hi, f->body.file};
      if (k == 0) break;
      if (f->overflow || !args || !args[k - 1]) {
        ok = 0;
        break;
      }
      int bad = 0;
      char *np = substitute(f, fp[k - 1], args[k - 1], nargs[k - 1], ptr, &bad);
      char *nb = bytes && !bad ? substitute(f, fp[k - 1], args[k - 1], nargs[k - 1], bytes, &bad) : NULL;
      free(ptr);
      free(bytes);
      ptr = np;
      bytes = nb;
      if (bad || !ptr) ok = 0;
    }
    free(ptr);
    free(bytes);
    /* Level 0: the loop-context text, where the chain could not express it
     * (main's names are none in a loop function of its own: Note
     * [loop-context sizes at the op]). */
    sym *lb = a->text_valid_at[0] || !a->loop_text_valid ? NULL
              : calltext_at_op(b, b->loop_frame, a->bytes, NULL);
    if (!a->text_valid_at[0] && a->loop_text_valid && a->ptr_text && lb && !sym_is_unknown(lb) &&
        b->g->loop_body.editable) {
      free(a->ptr_text_at[0]);
      free(a->bytes_text_at[0]);
      a->ptr_text_at[0] = strdup(a->ptr_text);
      a->bytes_text_at[0] = sym_to_c(lb);
      a->text_valid_at[0] = a->ptr_text_at[0] && a->bytes_text_at[0];
      a->text_span_at[0] = b->g->loop_body;
    }
  }
  for (int k = 0; args && k < n; k++) {
    for (int i = 0; args[k] && i < nargs[k]; i++) free(args[k][i]);
    free(args[k]);
  }
  free(args);
  free(nargs);
  free(fp);
}
