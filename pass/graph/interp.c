/* interp.c - the host-code interpreter behind `tidal graph`: walks main()
 * in program order and every user function it calls, binding each callee's
 * parameters to the caller's argument values, so an op deep inside
 * wrappers is attributed at the training loop with the caller's
 * expressions substituted ("acts.fch + l*B*T*4*C").
 *
 * Design decisions:
 *  - Values (gval, interp.h) are integers (syms), device pointers
 *    (allocation + region + byte offset), addresses of host lvalues (paths
 *    into the store) and descriptors.  Every value carries its C text in
 *    the training loop's scope (loop context) so the rewriter can use it.
 *  - The store maps lvalue paths to values: "f3:acts.ln1" is field ln1 of
 *    local `acts` in frame 3, "g:B" a global.  A struct copied from another
 *    (`ActivationTensors acts = model->acts;`) becomes an alias of the
 *    original path rather than a copy: see Note [struct copies].
 *  - Variables of main() and of the training loop's function keep their
 *    names in syms (sym_var("B"), bound to 4 when the stored value is a
 *    constant), so sizes read "B*T*C*4"; variables of other functions are
 *    replaced by their values (substitution through the call chain).
 *  - Control flow is approximated: both branches of an if are walked
 *    (unless the condition is a known constant), loops before the training
 *    loop run when their trip count is a small constant and are walked once
 *    otherwise; inside the training loop, loops stay structural (one walk,
 *    the induction variable symbolic).  Recursion is walked once.
 *
 * Note [loop-carried values]: a loop body is walked once, but a variable
 * the loop assigns (`step++` in `while (true)`, `p += sizes[i]`, `off +=
 * n`) holds a different value in every later iteration.  Reading its entry
 * value would prune `if (step > 0)` and put every iteration's access at
 * the first offset - wrong, and confidently so.  Before a graph-mode loop
 * body (the training loop's included) is walked, every integer or pointer
 * variable or field the loop itself assigns, other than its recognised
 * induction variable, is forgotten (forget_carried): integers become
 * unknown under their own name (ind: never bound as a constant), device
 * pointers keep their allocation but lose their offset.  Values computed
 * from them carry the `carried` flag, so an access through such a pointer
 * is reported as "offset carried around a loop" and covers its whole
 * allocation (opsites.c).  Assignments made inside called functions
 * (`advance(&p)`) are not seen by this syntactic scan (docs/limitations.md).
 *
 * Note [struct copies]: a struct copy made to shorten names is by far the
 * common case in trainers; aliasing keeps later reads of the copy
 * resolving to the arena carving done on the original.  A program that
 * mutates the copy and expects the original unchanged is analysed as if
 * both changed; this errs towards more (never fewer) tracked accesses. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stack.h"
#include "graph/interp.h"
#include "graph/branches.h"
#include "analysis/libcalls.h"

/* ---- cursor helpers ---- */

/* Note [recursion frames]: gb_eval and eval_binary recurse once per level
 * of an expression (a 10,000-term sum is 10,000 levels deep).  Helpers that
 * gb_eval calls but that do not recurse through it keep their large locals
 * out of its frame: inlined, they made gb_eval's frame 10 KB (57 KB under
 * ASan, which overflowed the 512 MiB analysis stack on deep-expression). */
#define GB_NOINLINE __attribute__((noinline))

/* The wrappers gb_eval looks through (cursor_strip_casts). */
static int is_cast_like(enum CXCursorKind k) {
  return k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr ||
         k == CXCursor_CXXStaticCastExpr || k == CXCursor_CXXReinterpretCastExpr ||
         k == CXCursor_CXXConstCastExpr || k == CXCursor_CXXFunctionalCastExpr;
}

char *gb_text(gb *b, CXCursor c) {
  char *s = frontend_cursor_text(b->t, c);
  if (s && !*s) {
    /* An argument of a macro (cublasCheck(cublasSgemm(..., p, ...))): its
     * expansion range collapses to the macro's name, but it is spelled,
     * contiguous, in a project file. */
    CXSourceRange ext = clang_getCursorExtent(c);
    CXFile f1 = NULL, f2 = NULL;
    unsigned o1 = 0, o2 = 0;
    clang_getFileLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &o1);
    clang_getFileLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &o2);
    const pass_tu *v = f1 && f2 && clang_File_isEqual(f1, f2) ? program_view_of_file(b->t, c, f1) : NULL;
    if (v && o1 < o2 && o2 <= v->main_size) {
      char *sp = malloc(o2 - o1 + 1);
      if (sp) {
        memcpy(sp, v->main_source + o1, o2 - o1);
        sp[o2 - o1] = '\0';
        free(s);
        s = sp;
      }
    }
  }
  char *r = gb_str(b, s ? s : "");
  free(s);
  return r;
}

/* Whole-program input: a range is editable in the file it is written in
 * (an input or a project header; r.file names it), never across files. */
graph_range gb_range(gb *b, CXCursor c, int stmt) {
  graph_range r = {0, 0, 0, -1};
  CXSourceRange ext = clang_getCursorExtent(c);
  CXFile f1, f2;
  unsigned o1, o2;
  clang_getExpansionLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &o1);
  clang_getExpansionLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &o2);
  r.begin = o1;
  r.end = o2;
  const pass_tu *v = f1 ? program_view_of_file(b->t, c, f1) : NULL;
  if (v) r.file = v->file_index;
  /* Both ends written in one project file (a statement that merely starts
   * with a macro invocation such as CHECK(...) still is), and a range that
   * is not empty: a whole statement produced by one macro token collapses. */
  r.editable = v && f2 && clang_File_isEqual(f1, f2) && o1 < o2 && o2 <= v->main_size;
  if (r.editable && stmt) {
    size_t i = o2;
    const char *src = v->main_source;
    while (i < v->main_size && (src[i] == ' ' || src[i] == '\t')) i++;
    if (i < v->main_size && src[i] == ';' && (o2 == 0 || src[o2 - 1] != ';' ))
      r.end = (unsigned)i + 1;
  }
  return r;
}

void gb_location(gb *b, CXCursor c, char **file, unsigned *line, unsigned *col) {
  CXFile f;
  unsigned l, co;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, &l, &co, NULL);
  if (file) {
    char *name = f ? string_and_dispose(clang_getFileName(f)) : NULL;
    const pass_tu *v = f ? program_view_of_file(b->t, c, f) : NULL;
    if (v && v->is_unit) {
      free(name);
      name = strdup(v->main_path); /* an input: as given on the command line */
    }
    *file = name ? name : strdup("<unknown>");
  }
  if (line) *line = l;
  if (col) *col = co;
}

CXCursor gb_callee_decl(CXCursor call) {
  CXCursor r = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(r)) return r;
  enum CXCursorKind k = clang_getCursorKind(r);
  if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate && k != CXCursor_CXXMethod)
    return clang_getNullCursor();
  return r;
}

char *gb_callee_name(CXCursor call) {
  CXCursor d = gb_callee_decl(call);
  if (clang_Cursor_isNull(d)) {
    /* Calls through function pointers and unresolved names. */
    CXString s = clang_getCursorSpelling(call);
    char *r = string_and_dispose(s);
    if (r && !*r) {
      free(r);
      return NULL;
    }
    return r;
  }
  return string_and_dispose(clang_getCursorSpelling(d));
}

void gb_note(gb *b, CXCursor at, const char *fmt, ...) {
  graph *g = b->g;
  graph_note *n = realloc(g->notes, (size_t)(g->n_notes + 1) * sizeof *n);
  if (!n) return;
  g->notes = n;
  graph_note *x = &g->notes[g->n_notes];
  memset(x, 0, sizeof *x);
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  /* The same note from a statement walked twice is reported once. */
  gb_location(b, at, &x->file, &x->line, &x->col);
  for (int i = 0; i < g->n_notes; i++)
    if (g->notes[i].line == x->line && g->notes[i].col == x->col &&
        strcmp(g->notes[i].message, buf) == 0) {
      free(x->file);
      return;
    }
  x->message = strdup(buf);
  g->n_notes++;
}

/* ---- values ---- */

gval gb_int(gb *b, sym *s, const char *text, int ok) {
  gval v;
  memset(&v, 0, sizeof v);
  v.k = GV_INT;
  v.s = s ? s : sym_unknown(b->a);
  v.text = text;
  v.text_ok = ok;
  v.alloc = -1;
  v.region = -1;
  return v;
}

static gval none_val(void) {
  gval v;
  memset(&v, 0, sizeof v);
  v.k = GV_NONE;
  v.alloc = -1;
  v.region = -1;
  return v;
}

/* Wraps text in parentheses unless its precedence already binds tighter
 * than `need` (0 atom .. 3 other). */
static const char *paren(gb *b, const char *text, int prec, int need) {
  if (!text) return NULL;
  if (prec <= need) return text;
  return gb_fmt(b, "(%s)", text);
}

static int is_identifier_text(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

/* `x`, `x.y`, `p->y`, `a[3].b`: a variable reached through fields and
 * constant indices, the only names worth binding (and bindable with
 * --bind): not source text such as `*&x`, `dims[l + 1]` or a call. */
static int is_plain_lvalue_text(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  while (*s) {
    if (isalnum((unsigned char)*s) || *s == '_' || *s == '.') {
      s++;
    } else if (s[0] == '-' && s[1] == '>') {
      s += 2;
    } else if (*s == '[') {
      s++;
      if (!isdigit((unsigned char)*s)) return 0;
      while (isdigit((unsigned char)*s)) s++;
      if (*s++ != ']') return 0;
    } else {
      return 0;
    }
  }
  return 1;
}


static int is_pointer_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Pointer;
}

static int is_record_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_Record;
}

static int is_array_type(CXType t) {
  t = clang_getCanonicalType(t);
  return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
         t.kind == CXType_VariableArray;
}

/* sizeof the pointee of a pointer-typed expression; 1 for void. */
static int64_t pointee_size(CXCursor e) {
  CXType t = clang_getCanonicalType(clang_getCursorType(e));
  if (t.kind != CXType_Pointer) return 1;
  long long s = clang_Type_getSizeOf(clang_getPointeeType(t));
  return s > 0 ? s : 1;
}

/* A compile-time integer value of an expression cursor, if clang can fold it. */
static int is_global_var(CXCursor decl) {
  CXCursor p = clang_getCursorSemanticParent(decl);
  enum CXCursorKind k = clang_getCursorKind(p);
  return k == CXCursor_TranslationUnit || k == CXCursor_Namespace ||
         k == CXCursor_LinkageSpec;
}

/* The frame a frame-qualified key lives in ("f3:x" -> 3), -1 for globals. */
static int key_frame(const char *key) {
  if (key[0] == 'f') return atoi(key + 1);
  return -1;
}

static gb_frame *frame_by_id(gb_frame *f, int id) {
  for (; f; f = f->caller)
    if (f->id == id) return f;
  return NULL;
}

static int int_value_const(gb *b, const gval *v, int64_t *out) {
  if (!v || v->k != GV_INT) return 0;
  return sym_eval(v->s, bind_value_fn, &b->g->binds, out) == 0;
}

/* 1 if name was bound, when read earlier, to a constant other than c: the
 * variable was written since (`top += bytes` in a setup call).  Rebinding
 * it would move every earlier read (the first block's offset) to the new
 * value, so this read is the constant itself. */
static int const_rebound(gb *b, const char *name, int64_t c) {
  const graph_bindings *bs = &b->g->binds;
  for (int i = 0; i < bs->n; i++)
    if (strcmp(bs->items[i].name, name) == 0)
      return bs->items[i].source == BIND_CONST && bs->items[i].value != c;
  return 0;
}

/* An integer read from a name-keeping place (main's or the loop function's
 * variables, globals): the name, bound when its value is constant. */
static gval named_int(gb *b, const char *name, const gval *stored, int is_const_decl) {
  int64_t c;
  /* an unknown the loop carries stays that (not the symbol `name`, which
   * reads as one loop-invariant value) */
  if (stored && (stored->ind || stored->carried)) {
    gval v = *stored;
    v.text = gb_str(b, name);
    v.text_ok = 1;
    v.prec = 0;
    return v;
  }
  if (stored && stored->k == GV_INT && int_value_const(b, stored, &c)) {
    if (is_plain_lvalue_text(name) && !const_rebound(b, name, c)) {
      bind_set(&b->g->binds, name, c, BIND_CONST);
      return gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
    }
    return gb_int(b, sym_const(b->a, c), gb_str(b, name), 1);
  }
  if (stored && stored->k == GV_INT && !sym_is_unknown(stored->s) && !is_const_decl) {
    gval v = *stored;
    v.text = gb_str(b, name);
    v.text_ok = 1;
    v.prec = 0;
    return v;
  }
  return gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
}

/* ---- lvalues ---- */

static const char *var_key(gb *b, gb_frame *f, CXCursor decl, const char *name) {
  if (is_global_var(decl)) return gb_fmt(b, "g:%s", name);
  /* locals of the function being walked; a decl of another function (a
   * lambda capture, say) is keyed to the innermost frame anyway */
  return gb_fmt(b, "f%d:%s", f ? f->id : 0, name);
}

/* 1 for std::vector<...> (its size() is tracked from its construction). */
static int is_std_vector(CXType t) {
  char *sp = string_and_dispose(clang_getTypeSpelling(clang_getCanonicalType(t)));
  int r = strncmp(sp, "std::vector<", 12) == 0 || strncmp(sp, "const std::vector<", 18) == 0;
  free(sp);
  return r;
}

/* The object of the method frame f runs (Note [C++ objects]), or NULL. */
static const char *this_of(gb *b, gb_frame *f) {
  if (!f) return NULL;
  gval *tv = gb_lookup(b, gb_fmt(b, "f%d:this", f->id));
  return tv && tv->k == GV_ADDR ? tv->path : NULL;
}

static const char *index_path(gb *b, const char *base, gval idx) {
  int64_t c;
  if (idx.k == GV_INT && int_value_const(b, &idx, &c)) return gb_fmt(b, "%s[%lld]", base, (long long)c);
  return gb_fmt(b, "%s[?]", base);
}

static const char *smart_deref_path(gb *b, gb_frame *f, CXCursor e, const char **text, int *ok);
static int makes_heap_object(CXCursor e);
static GB_NOINLINE gval eval_new(gb *b, gb_frame *f, CXCursor e);
static GB_NOINLINE void eval_delete(gb *b, gb_frame *f, CXCursor e);

/* A member of the object at path, named after the object as its owner
 * wrote it (`context.m_ws`, not "f3:context.m_ws"). */
static const char *member_text(gb *b, const char *obj, const char *field) {
  const char *colon = strchr(obj, ':');
  return gb_fmt(b, "%s.%s", colon ? colon + 1 : obj, field);
}

/* An index that names an element: known, not carried around a loop. */
static sym *element_index(const gval *idx) {
  if (idx->k != GV_INT || !idx->s || sym_is_unknown(idx->s) || idx->carried) return NULL;
  return idx->s;
}

/* The index a path's "[?]" stands for after one more subscript: the
 * base's own (*idx, if its path had one) and the new one (add, NULL if
 * constant): two symbolic indices are not tracked (elements.c). */
static sym *subscript_index(sym *base_idx, int base_has, sym *add, int add_sym) {
  if (!add_sym) return base_has ? base_idx : NULL;
  if (base_has) return NULL;
  return add;
}

static const char *lvalue_at(gb *b, gb_frame *f, CXCursor e, const char **text, int *text_ok,
                             sym **idx_out);

/* The store key of the lvalue e, its loop-context text and validity; the
 * index of a "[?]" in the key is left in b->lv_index (elements.c). */
const char *gb_lvalue(gb *b, gb_frame *f, CXCursor e, const char **text, int *text_ok) {
  sym *idx = NULL;
  const char *key = lvalue_at(b, f, e, text, text_ok, &idx);
  b->lv_key = key;
  b->lv_index = key && strstr(key, "[?]") ? idx : NULL;
  return key;
}

static const char *lvalue_at(gb *b, gb_frame *f, CXCursor e, const char **text, int *text_ok,
                             sym **idx_out) {
  e = cursor_strip_casts(e);
  *idx_out = NULL;
  enum CXCursorKind k = clang_getCursorKind(e);
  const char *dummy_t;
  int dummy_ok;
  if (!text) text = &dummy_t;
  if (!text_ok) text_ok = &dummy_ok;
  *text = NULL;
  *text_ok = 0;
  if (k == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(e);
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk != CXCursor_VarDecl && dk != CXCursor_ParmDecl) return NULL;
    char *name = string_and_dispose(clang_getCursorSpelling(d));
    const char *key = var_key(b, f, d, name);
    int global = is_global_var(d);
    *text = gb_str(b, name);
    *text_ok = global || (f && (f->is_loop_frame || (b->loop_frame && f == b->loop_frame)));
    free(name);
    /* A parameter or local struct that aliases another path (struct copy). */
    gval *v = gb_lookup(b, key);
    if (v && v->k == GV_ALIAS) {
      if (!*text_ok && v->text) {
        *text = v->text;
        *text_ok = v->text_ok;
      }
      *idx_out = v->index; /* a struct parameter or reference bound to `blocks[l]` */
      return gb_resolve_alias(b, key);
    }
    return key;
  }
  if (k == CXCursor_MemberRefExpr) {
    CXCursor ch[2];
    int n = cursor_children(e, ch, 2);
    char *field = string_and_dispose(clang_getCursorSpelling(e));
    const char *res = NULL;
    if (n >= 1) {
      CXCursor base = ch[0];
      if (is_pointer_type(clang_getCursorType(cursor_strip_casts(base))) ||
          is_pointer_type(clang_getCursorType(base))) {
        gval bv = gb_eval(b, f, base);
        if (bv.k == GV_ADDR) {
          /* the member may itself hold a struct copy (`blk->t` assigned a
           * struct a helper returned): its fields are the copy's */
          res = gb_resolve_alias(b, gb_fmt(b, "%s.%s", gb_resolve_alias(b, bv.path), field));
          *idx_out = bv.index;
          if (bv.text && bv.text[0] == '&' && !strpbrk(bv.text + 1, " +-*/()&"))
            *text = gb_fmt(b, "%s.%s", bv.text + 1, field);
          else if (bv.text)
            *text = gb_fmt(b, "%s->%s", paren(b, bv.text, bv.prec, 0), field);
          *text_ok = bv.text_ok;
        } else if (bv.text) {
          *text = gb_fmt(b, "%s->%s", paren(b, bv.text, bv.prec, 0), field);
          *text_ok = bv.text_ok;
        }
      } else {
        const char *bt;
        int bok;
        const char *bk = lvalue_at(b, f, base, &bt, &bok, idx_out);
        if (bk) res = gb_resolve_alias(b, gb_fmt(b, "%s.%s", bk, field));
        if (bt) *text = gb_fmt(b, "%s.%s", bt, field);
        *text_ok = bok;
      }
    }
    if (n == 0) {
      /* a member of the method's own object (implicit this) */
      const char *obj = this_of(b, f);
      if (obj) {
        char *fname = string_and_dispose(clang_getCursorSpelling(e));
        const char *base = gb_resolve_alias(b, obj);
        res = gb_resolve_alias(b, gb_fmt(b, "%s.%s", base, fname));
        /* named after the object as its owner wrote it (`context.m_ws`), so
         * one --bind names the field whichever method reads it */
        const char *colon = strchr(base, ':');
        *text = gb_fmt(b, "%s.%s", colon ? colon + 1 : base, fname);
        *text_ok = 0;
        free(fname);
      }
    }
    free(field);
    return res;
  }
  if (k == CXCursor_ArraySubscriptExpr) {
    CXCursor ch[2];
    if (cursor_children(e, ch, 2) != 2) return NULL;
    gval idx = gb_eval(b, f, ch[1]);
    const char *res = NULL;
    if (is_array_type(clang_getCursorType(cursor_strip_casts(ch[0])))) {
      const char *bt;
      int bok;
      sym *bidx = NULL;
      const char *bk = lvalue_at(b, f, ch[0], &bt, &bok, &bidx);
      if (bk) res = gb_resolve_alias(b, index_path(b, bk, idx));
      int64_t c0;
      int is_sym = !(idx.k == GV_INT && int_value_const(b, &idx, &c0));
      *idx_out = subscript_index(bidx, bk && strstr(bk, "[?]") != NULL, element_index(&idx),
                                 is_sym);
      int64_t ic;
      if (bt && (b->mode == GB_SETUP || idx.ind) && !idx.carried && int_value_const(b, &idx, &ic))
        *text = gb_fmt(b, "%s[%lld]", bt, (long long)ic); /* in setup, or a setup loop counter: the value names the element */
      else if (bt && idx.text) *text = gb_fmt(b, "%s[%s]", bt, idx.text);
      *text_ok = bok && idx.text_ok;
    } else {
      gval bv = gb_eval(b, f, ch[0]);
      if (bv.k == GV_ADDR) {
        /* bv.path is "X[k]" (decayed array, malloc'd host array): add idx */
        const char *lb = strrchr(bv.path, '[');
        int64_t k0, c;
        int have_k0 = lb && sscanf(lb, "[%lld]", (long long *)&k0) == 1;
        int is_const = idx.k == GV_INT && int_value_const(b, &idx, &c);
        sym *is = element_index(&idx);
        if (have_k0 && is_const) {
          res = gb_fmt(b, "%.*s[%lld]", (int)(lb - bv.path), bv.path, (long long)(k0 + c));
          *idx_out = bv.index;
        } else if (lb) {
          res = gb_fmt(b, "%.*s[?]", (int)(lb - bv.path), bv.path);
          /* `p = &blocks[l]; p[1]`, `q = blocks; q[l]`: the element is base + index */
          sym *add = is_const ? sym_const(b->a, c) : is;
          if (have_k0 && is)
            *idx_out = sym_add(b->a, sym_const(b->a, k0), is);
          else if (!have_k0 && bv.index && add && strcmp(lb, "[?]") == 0)
            *idx_out = sym_add(b->a, bv.index, add);
        } else {
          res = index_path(b, bv.path, idx);
          if (!is_const) *idx_out = is;
        }
        res = gb_resolve_alias(b, res);
      }
      if (bv.text && idx.text) *text = gb_fmt(b, "%s[%s]", paren(b, bv.text, bv.prec, 0), idx.text);
      *text_ok = bv.text_ok && idx.text_ok;
    }
    return res;
  }
  if (k == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref) {
    CXCursor ch[1];
    if (cursor_children(e, ch, 1) != 1) return NULL;
    gval pv = gb_eval(b, f, ch[0]);
    if (pv.text && pv.text[0] == '&' && is_plain_lvalue_text(pv.text + 1)) {
      *text = pv.text + 1; /* *&x is x: a name a person can --bind */
      *text_ok = pv.text_ok;
    } else if (pv.text) {
      *text = gb_fmt(b, "*%s", paren(b, pv.text, pv.prec, 0));
      *text_ok = pv.text_ok;
    }
    if (pv.k == GV_ADDR) *idx_out = pv.index;
    return pv.k == GV_ADDR ? gb_resolve_alias(b, pv.path) : NULL;
  }
  if (k == CXCursor_CallExpr) return smart_deref_path(b, f, e, text, text_ok); /* `*model` */
  return NULL;
}


static int sym_mentions(const sym *s, const char *name);

/* Reads the value at key (an lvalue of type ty written as text). */
static GB_NOINLINE gval read_lvalue(gb *b, gb_frame *f, const char *key, CXType ty, const char *text,
                        int text_ok) {
  gval *st = key ? gb_lookup(b, key) : NULL;
  /* the index of the key's "[?]", when gb_lvalue just made the key */
  sym *index = key && b->lv_key == key ? b->lv_index : NULL;
  if (is_record_type(ty) || is_array_type(ty)) {
    /* structs and arrays are read by address: copies alias, arrays decay */
    gval v = none_val();
    if (key) {
      v.k = GV_ADDR;
      v.path = is_array_type(ty) ? gb_fmt(b, "%s[0]", key) : key;
      v.index = index;
    }
    v.text = text;
    v.text_ok = text_ok;
    return v;
  }
  /* Does the path live in a frame whose variables keep their names? */
  int keep = 0;
  if (key) {
    int fid = key_frame(key);
    if (fid < 0) {
      keep = 1;
    } else {
      gb_frame *kf = frame_by_id(f, fid);
      keep = kf && kf->keep_names;
    }
  }
  /* an element at a loop index: from the elements setup stored (elements.c) */
  gval ev;
  if (!st && index && gb_element_read(b, key, index, is_pointer_type(ty), &ev)) {
    ev.text = text; /* the element's own text was written in setup */
    ev.text_ok = text_ok;
    ev.prec = 0;
    st = &ev;
  }
  if (is_pointer_type(ty)) {
    gval v = st ? *st : none_val();
    if (!st) {
      v.k = GV_DEVPTR; /* a pointer of unknown origin: unresolved if used by an op */
      v.alloc = -1;
      v.region = -1;
      v.base = sym_const(b->a, 0);
      v.delta = sym_unknown(b->a);
    }
    /* the name it was read by when that is valid in the loop and the stored
     * text is not (`bufs.in.data`, stored as the helper's `t.data`) */
    if (keep || !v.text || (text && text_ok && !v.text_ok)) {
      v.text = text;
      v.text_ok = text_ok;
      v.prec = 0;
    }
    return v;
  }
  if (keep && text) {
    gval v = named_int(b, text, st, 0);
    /* Note [accumulators]: a constant is read as its name, bound to the
     * value.  A stored value written in terms of that name (`off + 64`,
     * from `off += 64`) then becomes the name: left as it was, every
     * later read would evaluate it against the name's newest binding and
     * add 64 again. */
    if (st && st->k == GV_INT && !st->ind && v.k == GV_INT && v.s &&
        sym_get_kind(v.s) == SYM_VAR && strcmp(sym_var_name(v.s), text) == 0 &&
        sym_mentions(st->s, text))
      st->s = v.s;
    return v;
  }
  if (st && st->k == GV_INT) return *st;
  if (st) return *st;
  /* An integer never assigned on the walked paths: keep it symbolic. */
  if (text && text_ok) return gb_int(b, sym_var(b->a, text), text, 1);
  return gb_int(b, sym_unknown(b->a), text, 0);
}

/* Writes v to key; device pointers stored during setup name regions. */
static void write_lvalue(gb *b, const char *key, const char *text, gval v) {
  if (!key) return;
  if (v.k == GV_DEVPTR && b->mode == GB_SETUP) b->h->pointer_stored(b, key, text, &v);
  gb_store(b, key, v);
}

/* ---- expressions ---- */

static gval eval_binary(gb *b, gb_frame *f, CXCursor e);
static GB_NOINLINE gval eval_call(gb *b, gb_frame *f, CXCursor e);

static gval ptr_add(gb *b, gval p, gval n, int64_t elem, int negate, CXCursor at) {
  if (p.k == GV_ADDR) {
    /* host pointer arithmetic over an array path "X[k]" */
    const char *lb = strrchr(p.path, '[');
    int64_t k0, c;
    int have_k0 = lb && sscanf(lb, "[%lld]", (long long *)&k0) == 1;
    sym *ns = n.k == GV_INT && n.s && !sym_is_unknown(n.s) && !n.carried ? n.s : NULL;
    if (have_k0 && int_value_const(b, &n, &c)) {
      p.path = gb_fmt(b, "%.*s[%lld]", (int)(lb - p.path), p.path,
                      (long long)(negate ? k0 - c : k0 + c));
    } else if (lb && ns && (have_k0 || (p.index && strcmp(lb, "[?]") == 0))) {
      /* `blocks + l`, `&blocks[l] + 1`: an element at a symbolic index (elements.c) */
      sym *from = have_k0 ? sym_const(b->a, k0) : p.index;
      p.index = negate ? sym_sub(b->a, from, ns) : sym_add(b->a, from, ns);
      p.path = gb_fmt(b, "%.*s[?]", (int)(lb - p.path), p.path);
    } else {
      p.path = gb_fmt(b, "%s+?", p.path);
      p.index = NULL;
    }
  } else if (p.k == GV_DEVPTR) {
    sym *bytes = sym_mul(b->a, n.k == GV_INT ? n.s : sym_unknown(b->a), sym_const(b->a, elem));
    p.delta = negate ? sym_sub(b->a, p.delta, bytes) : sym_add(b->a, p.delta, bytes);
  }
  if (p.text && n.text) {
    p.text = gb_fmt(b, "%s %c %s", paren(b, p.text, p.prec, 2), negate ? '-' : '+',
                    paren(b, n.text, n.prec, negate ? 1 : 2));
    p.prec = 2;
  } else {
    p.text = NULL;
  }
  p.text_ok = p.text_ok && n.text_ok;
  p.carried = p.carried || n.carried;
  return p;
}

static gval arith(gb *b, enum CXBinaryOperatorKind op, gval l, gval r) {
  sym *ls = l.k == GV_INT ? l.s : sym_unknown(b->a);
  sym *rs = r.k == GV_INT ? r.s : sym_unknown(b->a);
  sym *s;
  const char *o;
  int prec;
  switch (op) {
  case CXBinaryOperator_Add: s = sym_add(b->a, ls, rs); o = "+"; prec = 2; break;
  case CXBinaryOperator_Sub: s = sym_sub(b->a, ls, rs); o = "-"; prec = 2; break;
  case CXBinaryOperator_Mul: s = sym_mul(b->a, ls, rs); o = "*"; prec = 1; break;
  case CXBinaryOperator_Div: s = sym_div(b->a, ls, rs); o = "/"; prec = 1; break;
  case CXBinaryOperator_Rem: {
    int64_t x, y;
    if (sym_get_const(ls, &x) && sym_get_const(rs, &y) && y) s = sym_const(b->a, x % y);
    else s = sym_unknown(b->a);
    o = "%"; prec = 1; break;
  }
  case CXBinaryOperator_Shl: {
    int64_t y;
    s = sym_get_const(rs, &y) && y >= 0 && y < 62 ? sym_mul(b->a, ls, sym_const(b->a, (int64_t)1 << y))
                                                  : sym_unknown(b->a);
    o = "<<"; prec = 3; break;
  }
  case CXBinaryOperator_Shr: {
    int64_t y;
    s = sym_get_const(rs, &y) && y >= 0 && y < 62 ? sym_div(b->a, ls, sym_const(b->a, (int64_t)1 << y))
                                                  : sym_unknown(b->a);
    o = ">>"; prec = 3; break;
  }
  default: {
    /* comparisons and logic: folded when both sides are constants; a
     * traced device pointer is non-null */
    int64_t x, y, v = 0;
    int ok = int_value_const(b, &l, &x) && int_value_const(b, &r, &y);
    if (!ok && (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE)) {
      const gval *p = l.k == GV_DEVPTR ? &l : r.k == GV_DEVPTR ? &r : NULL;
      const gval *z = p == &l ? &r : &l;
      int64_t zv;
      if (p && p->alloc >= 0 && int_value_const(b, z, &zv) && zv == 0)
        return gb_int(b, sym_const(b->a, op == CXBinaryOperator_NE), NULL, 0);
    }
    if (ok) {
      switch (op) {
      case CXBinaryOperator_LT: v = x < y; break;
      case CXBinaryOperator_GT: v = x > y; break;
      case CXBinaryOperator_LE: v = x <= y; break;
      case CXBinaryOperator_GE: v = x >= y; break;
      case CXBinaryOperator_EQ: v = x == y; break;
      case CXBinaryOperator_NE: v = x != y; break;
      case CXBinaryOperator_LAnd: v = x && y; break;
      case CXBinaryOperator_LOr: v = x || y; break;
      case CXBinaryOperator_And: v = x & y; break;
      case CXBinaryOperator_Or: v = x | y; break;
      case CXBinaryOperator_Xor: v = x ^ y; break;
      default: ok = 0;
      }
    }
    gval res = gb_int(b, ok ? sym_const(b->a, v) : sym_unknown(b->a), NULL, 0);
    res.carried = l.carried || r.carried;
    return res;
  }
  }
  gval v = gb_int(b, s, NULL, l.text_ok && r.text_ok);
  v.carried = l.carried || r.carried;
  if (l.text && r.text) {
    int lneed = prec, rneed = prec - 1;
    if (prec == 3) lneed = rneed = 0;
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Mul) rneed = prec;
    v.text = gb_fmt(b, "%s%s%s%s%s", paren(b, l.text, l.prec, lneed), prec == 2 ? " " : "", o,
                    prec == 2 ? " " : "", paren(b, r.text, r.prec, rneed));
    v.prec = prec;
  }
  return v;
}

static enum CXBinaryOperatorKind compound_base(enum CXBinaryOperatorKind op) {
  switch (op) {
  case CXBinaryOperator_MulAssign: return CXBinaryOperator_Mul;
  case CXBinaryOperator_DivAssign: return CXBinaryOperator_Div;
  case CXBinaryOperator_RemAssign: return CXBinaryOperator_Rem;
  case CXBinaryOperator_AddAssign: return CXBinaryOperator_Add;
  case CXBinaryOperator_SubAssign: return CXBinaryOperator_Sub;
  case CXBinaryOperator_ShlAssign: return CXBinaryOperator_Shl;
  case CXBinaryOperator_ShrAssign: return CXBinaryOperator_Shr;
  default: return CXBinaryOperator_Invalid;
  }
}

/* `lhs op= rhs` and `lhs = rhs` (op Invalid). */
/* Note [struct copies], continued: a copy that is written to is not an
 * alias any more (`Config tuned = cfg; tuned.batch = n;` must leave
 * cfg.batch alone, or the value shown as found in the source is not the
 * one the loop uses).  On the first write through a variable holding an
 * alias, the original's fields are copied under the variable's own key
 * and the alias is dropped. */
static void unalias_root(gb *b, gb_frame *f, CXCursor lhs) {
  CXCursor e = cursor_strip_casts(lhs);
  for (int guard = 0; guard < 16; guard++) {
    enum CXCursorKind k = clang_getCursorKind(e);
    CXCursor ch[2];
    if (k == CXCursor_MemberRefExpr && cursor_children(e, ch, 1) == 1 &&
        !is_pointer_type(clang_getCursorType(cursor_strip_casts(ch[0])))) {
      e = cursor_strip_casts(ch[0]);
    } else if (k == CXCursor_ArraySubscriptExpr && cursor_children(e, ch, 2) == 2 &&
               is_array_type(clang_getCursorType(cursor_strip_casts(ch[0])))) {
      e = cursor_strip_casts(ch[0]);
    } else {
      break;
    }
  }
  if (clang_Cursor_isNull(e) || clang_getCursorKind(e) != CXCursor_DeclRefExpr ||
      clang_equalCursors(e, cursor_strip_casts(lhs)))
    return;
  CXCursor d = clang_getCursorReferenced(e);
  /* a C++ reference is the original, never a copy: writes go through */
  enum CXTypeKind dk = clang_getCursorType(d).kind;
  if (dk == CXType_LValueReference || dk == CXType_RValueReference) return;
  char *name = string_and_dispose(clang_getCursorSpelling(d));
  const char *key = var_key(b, f, d, name);
  free(name);
  gval *v = gb_lookup(b, key);
  if (!v || v->k != GV_ALIAS) return;
  const char *orig = gb_resolve_alias(b, key);
  size_t ol = strlen(orig);
  size_t n = 0;
  const char **keys = malloc((b->tab_n + 1) * sizeof *keys);
  gval *vals = malloc((b->tab_n + 1) * sizeof *vals);
  for (size_t i = 0; keys && vals && i < b->tab_cap; i++) {
    const char *k = b->tab[i].key;
    if (k && strncmp(k, orig, ol) == 0 && (k[ol] == '.' || k[ol] == '[')) {
      keys[n] = gb_fmt(b, "%s%s", key, k + ol);
      vals[n++] = b->tab[i].v;
    }
  }
  gval own = none_val();
  own.text = v->text;
  own.text_ok = v->text_ok;
  gb_store(b, key, own);
  for (size_t i = 0; i < n; i++) gb_store(b, keys[i], vals[i]);
  free(keys);
  free(vals);
}

static gval assign(gb *b, gb_frame *f, CXCursor lhs, CXCursor rhs_c, gval rhs,
                   enum CXBinaryOperatorKind op) {
  const char *text;
  int ok;
  unalias_root(b, f, lhs);
  const char *key = gb_lvalue(b, f, lhs, &text, &ok);
  CXType lt = clang_getCursorType(lhs);
  gval v = rhs;
  if (op != CXBinaryOperator_Invalid) {
    gval cur = read_lvalue(b, f, key, lt, text, ok);
    if (is_pointer_type(lt) && (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub))
      v = ptr_add(b, cur, rhs, pointee_size(lhs), op == CXBinaryOperator_Sub, lhs);
    else
      v = arith(b, op, cur, rhs);
  } else if (is_record_type(lt) && rhs.k == GV_ADDR) {
    /* struct assignment: alias (Note [struct copies]) */
    v.k = GV_ALIAS;
  }
  /* Induction variables of graph loops are never overwritten by the body. */
  write_lvalue(b, key, text, v);
  return v;
}

static gval eval_binary(gb *b, gb_frame *f, CXCursor e) {
  CXCursor ch[2];
  if (cursor_children(e, ch, 2) != 2) return none_val();
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
  if (op == CXBinaryOperator_Assign) {
    if (makes_heap_object(ch[1])) b->new_name = gb_text(b, ch[0]); /* Note [heap objects] */
    gval r = gb_eval(b, f, ch[1]);
    b->new_name = NULL;
    return assign(b, f, ch[0], ch[1], r, CXBinaryOperator_Invalid);
  }
  enum CXBinaryOperatorKind base = compound_base(op);
  if (base != CXBinaryOperator_Invalid) {
    gval r = gb_eval(b, f, ch[1]);
    return assign(b, f, ch[0], ch[1], r, base);
  }
  if (op == CXBinaryOperator_Comma) {
    gb_eval(b, f, ch[0]);
    return gb_eval(b, f, ch[1]);
  }
  gval l = gb_eval(b, f, ch[0]);
  gval r = gb_eval(b, f, ch[1]);
  if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub) {
    int lp = is_pointer_type(clang_getCursorType(ch[0]));
    int rp = is_pointer_type(clang_getCursorType(ch[1]));
    if (lp && !rp) return ptr_add(b, l, r, pointee_size(ch[0]), op == CXBinaryOperator_Sub, e);
    if (rp && !lp && op == CXBinaryOperator_Add) return ptr_add(b, r, l, pointee_size(ch[1]), 0, e);
    if (lp && rp) return gb_int(b, sym_unknown(b->a), NULL, 0); /* pointer difference */
  }
  return arith(b, op, l, r);
}

static gval eval_unary(gb *b, gb_frame *f, CXCursor e) {
  CXCursor ch[1];
  if (cursor_children(e, ch, 1) != 1) return none_val();
  enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
  switch (op) {
  case CXUnaryOperator_AddrOf: {
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, ch[0], &text, &ok);
    gval v = none_val();
    if (key) {
      v.k = GV_ADDR;
      v.path = key;
      v.index = b->lv_index;
    }
    v.text = text ? gb_fmt(b, "&%s", text) : NULL;
    v.text_ok = ok;
    return v;
  }
  case CXUnaryOperator_Deref: {
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    return read_lvalue(b, f, key, clang_getCursorType(e), text, ok);
  }
  case CXUnaryOperator_Minus: {
    gval v = gb_eval(b, f, ch[0]);
    gval r = gb_int(b, v.k == GV_INT ? sym_sub(b->a, sym_const(b->a, 0), v.s) : sym_unknown(b->a),
                    v.text ? gb_fmt(b, "-%s", paren(b, v.text, v.prec, 0)) : NULL, v.text_ok);
    return r;
  }
  case CXUnaryOperator_Plus:
    return gb_eval(b, f, ch[0]);
  case CXUnaryOperator_PreInc:
  case CXUnaryOperator_PostInc:
  case CXUnaryOperator_PreDec:
  case CXUnaryOperator_PostDec: {
    gval one = gb_int(b, sym_const(b->a, 1), "1", 1);
    int dec = op == CXUnaryOperator_PreDec || op == CXUnaryOperator_PostDec;
    /* `t[n++] = e`: a postfix operator's value is the one before the step */
    int post = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec;
    gval old = post ? gb_eval(b, f, ch[0]) : none_val();
    gval nv = assign(b, f, ch[0], ch[0], one, dec ? CXBinaryOperator_Sub : CXBinaryOperator_Add);
    return post ? old : nv;
  }
  default: {
    gval v = gb_eval(b, f, ch[0]);
    int64_t c;
    if (op == CXUnaryOperator_LNot && int_value_const(b, &v, &c))
      return gb_int(b, sym_const(b->a, !c), NULL, 0);
    return gb_int(b, sym_unknown(b->a), NULL, 0);
  }
  }
}

/* A macro standing for a constant expression (#define N (256 * 1024)): the
 * outermost expression it expands to (here the parenthesised product, whose
 * text is the macro's name) becomes the symbol N, bound to its value, so
 * its parts (256, 1024) never each bind N.  1 and *out when e is one. */
static GB_NOINLINE int macro_constant(gb *b, CXCursor e, gval *out) {
  char *text = gb_text(b, e);
  int64_t c;
  if (!is_identifier_text(text) || strncmp(text, "__", 2) == 0 || !cursor_eval_int(e, &c)) return 0;
  bind_set(&b->g->binds, text, c, BIND_MACRO);
  *out = gb_int(b, sym_var(b->a, text), text, 1);
  return 1;
}

/* An integer literal, or a macro standing for one (#define B 4): the macro
 * name becomes the symbol, bound to its value. */
static GB_NOINLINE gval eval_literal(gb *b, CXCursor e) {
  int64_t c;
  if (!cursor_eval_int(e, &c)) return gb_int(b, sym_unknown(b->a), NULL, 0);
  char *text = gb_text(b, e);
  /* __LINE__ and friends are not sizes */
  if (is_identifier_text(text) && strncmp(text, "__", 2) != 0) {
    bind_set(&b->g->binds, text, c, BIND_MACRO);
    return gb_int(b, sym_var(b->a, text), text, 1);
  }
  return gb_int(b, sym_const(b->a, c), text && *text ? text : gb_fmt(b, "%lld", (long long)c), 1);
}

/* `dims[i]` read from a constant table (`static const int dims[] = {784,
 * 256, 10};`): the table is recorded with the bindings, so a size written
 * `dims[l + 1]` inside a layer loop evaluates per layer when unrolled
 * (unroll.c) instead of asking for a --bind of an expression. */
static GB_NOINLINE void const_table(gb *b, CXCursor e) {
  CXCursor ch[2];
  if (cursor_children(e, ch, 2) != 2) return;
  CXCursor base = cursor_strip_casts(ch[0]);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr) return;
  CXCursor d = clang_getCursorReferenced(base);
  CXType t = clang_getCursorType(d);
  if (clang_getCursorKind(d) != CXCursor_VarDecl || t.kind != CXType_ConstantArray ||
      !clang_isConstQualifiedType(clang_getArrayElementType(t)))
    return;
  /* the initialiser follows the type's spelling, however long */
  CXCursor init = cursor_last_expr_child(d);
  if (clang_getCursorKind(init) != CXCursor_InitListExpr) return;
  CXCursor *el;
  int n = cursor_children_all(init, &el);
  int64_t *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
  int ok = v != NULL;
  for (int i = 0; ok && i < n; i++) ok = cursor_eval_int(el[i], &v[i]);
  if (ok) {
    char *name = string_and_dispose(clang_getCursorSpelling(d));
    bind_set_table(&b->g->binds, name, v, n);
    free(name);
  }
  free(v);
  free(el);
}

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
  /* a pointer chosen at run time otherwise: not one tensor */
  gval u = none_val();
  u.k = GV_DEVPTR;
  u.alloc = -1;
  u.base = sym_const(b->a, 0);
  u.delta = sym_unknown(b->a);
  u.text = text;
  u.text_ok = x.text_ok && y.text_ok;
  return u;
}

static GB_NOINLINE gval select_value(gb *b, gb_frame *f, CXCursor e, CXCursor cond, const gval *c,
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
  gval v = none_val();
  if (hx && hy && xv.k == yv.k) {
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
static GB_NOINLINE gval select_struct(gb *b, gb_frame *f, CXCursor e, CXCursor cond, const gval *c,
                          const gval *x, const gval *y) {
  gval v = none_val();
  v.k = GV_ADDR;
  v.path = gb_fmt(b, "c%d", b->next_frame++);
  v.text = gb_fmt(b, "(%s)", gb_text(b, e)); /* a copy's fields append `.data` to it */
  v.text_ok = x->text_ok && y->text_ok && c->text_ok;
  select_ud u = {b, f, cond, c, x, y, v.path, v.path, v.text, 0};
  clang_Type_visitFields(clang_getCanonicalType(clang_getCursorType(e)), select_field_visitor, &u);
  return v;
}

/* GNU `x ?: y`: libclang shows it as an UnexposedExpr of four children,
 * x three times (as written, as the condition, as the value) and then y. */
static GB_NOINLINE int is_binary_conditional(CXCursor e, CXCursor *x, CXCursor *y) {
  CXCursor ch[4];
  if (clang_getCursorKind(e) != CXCursor_UnexposedExpr || cursor_children(e, ch, 4) != 4) return 0;
  for (int i = 0; i < 4; i++)
    if (!clang_isExpression(clang_getCursorKind(ch[i]))) return 0;
  CXSourceRange r = clang_getCursorExtent(ch[0]);
  if (!clang_equalRanges(r, clang_getCursorExtent(ch[1])) ||
      !clang_equalRanges(r, clang_getCursorExtent(ch[2])))
    return 0;
  *x = ch[0];
  *y = ch[3];
  return 1;
}

/* `x ?: y`: x's value when x is a nonzero constant, y's when x is zero,
 * unknown otherwise (both evaluated for their calls). */
static GB_NOINLINE gval eval_binary_conditional(gb *b, gb_frame *f, CXCursor xc, CXCursor yc) {
  gval x = gb_eval(b, f, xc);
  int64_t xv;
  if (int_value_const(b, &x, &xv) && xv) return x;
  gval y = gb_eval(b, f, yc);
  return int_value_const(b, &x, &xv) ? y : none_val();
}

/* Evaluates every expression child of e, for the side effects of the
 * calls in them (however many: an initialiser list of 17 calls runs 17). */
static void eval_children(gb *b, gb_frame *f, CXCursor e) {
  CXCursor *ch;
  int n = cursor_children_all(e, &ch);
  for (int i = 0; i < n; i++)
    if (clang_isExpression(clang_getCursorKind(ch[i]))) gb_eval(b, f, ch[i]);
  free(ch);
}

gval gb_eval(gb *b, gb_frame *f, CXCursor e) {
  b->steps++; /* bounds setup-loop unrolling, see walk_for */
  if (stack_too_deep(e, "expression")) return none_val();
  enum CXCursorKind k = clang_getCursorKind(e);
  if (k == CXCursor_ParenExpr || k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator ||
      k == CXCursor_CStyleCastExpr) {
    gval m;
    if (macro_constant(b, e, &m)) return m;
  }
  switch (k) {
  case CXCursor_IntegerLiteral:
  case CXCursor_CharacterLiteral:
    return eval_literal(b, e);
  case CXCursor_CXXBoolLiteralExpr: { /* `true` is a value, not a size to bind */
    int64_t c = 0;
    cursor_eval_int(e, &c);
    return gb_int(b, sym_const(b->a, c), gb_text(b, e), 1);
  }
  case CXCursor_GNUNullExpr:
  case CXCursor_CXXNullPtrLiteralExpr:
    return gb_int(b, sym_const(b->a, 0), gb_text(b, e), 1);
  case CXCursor_UnaryExpr: { /* sizeof, alignof */
    int64_t c;
    if (cursor_eval_int(e, &c)) return gb_int(b, sym_const(b->a, c), gb_text(b, e), 0 == 0);
    return gb_int(b, sym_unknown(b->a), gb_text(b, e), 0);
  }
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    enum CXCursorKind dk = clang_getCursorKind(d);
    if (dk == CXCursor_EnumConstantDecl) {
      char *name = string_and_dispose(clang_getCursorSpelling(d));
      gval v = gb_int(b, sym_const(b->a, clang_getEnumConstantDeclValue(d)), gb_str(b, name), 1);
      free(name);
      return v;
    }
    if (dk != CXCursor_VarDecl && dk != CXCursor_ParmDecl) {
      gval v = none_val();
      v.text = gb_text(b, e);
      v.text_ok = 1;
      return v;
    }
    CXType ty = clang_getCursorType(d);
    if (is_global_var(d) && !is_pointer_type(ty) && !is_record_type(ty) && !is_array_type(ty)) {
      /* file-scope constants: the name, bound to the value */
      char *name = string_and_dispose(clang_getCursorSpelling(d));
      int64_t c;
      gval v;
      if (clang_isConstQualifiedType(ty) && cursor_eval_int(d, &c)) {
        bind_set(&b->g->binds, name, c, BIND_CONST);
        v = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
      } else {
        gval *st = gb_lookup(b, gb_fmt(b, "g:%s", name));
        v = named_int(b, name, st, 0);
      }
      free(name);
      return v;
    }
    if (!is_global_var(d) && clang_isConstQualifiedType(ty) && !is_pointer_type(ty)) {
      /* const locals with constant initialisers bind like globals */
      int64_t c;
      char *name = string_and_dispose(clang_getCursorSpelling(d));
      if (f && f->keep_names && cursor_eval_int(d, &c)) {
        bind_set(&b->g->binds, name, c, BIND_CONST);
        gval v = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
        free(name);
        return v;
      }
      free(name);
    }
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    return read_lvalue(b, f, key, ty, text, ok);
  }
  case CXCursor_MemberRefExpr:
  case CXCursor_ArraySubscriptExpr: {
    if (k == CXCursor_ArraySubscriptExpr) const_table(b, e);
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, e, &text, &ok);
    return read_lvalue(b, f, key, clang_getCursorType(e), text, ok);
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator:
    return eval_binary(b, f, e);
  case CXCursor_UnaryOperator:
    return eval_unary(b, f, e);
  case CXCursor_CallExpr:
    return eval_call(b, f, e);
  case CXCursor_CXXNewExpr:
    return eval_new(b, f, e);
  case CXCursor_CXXDeleteExpr:
    eval_delete(b, f, e);
    return none_val();
  case CXCursor_CXXThisExpr: {
    const char *obj = this_of(b, f);
    if (!obj) return none_val();
    gval v = none_val();
    v.k = GV_ADDR;
    v.path = obj;
    v.text = gb_str(b, "this");
    return v;
  }
  case CXCursor_ParenExpr: {
    CXCursor ch[1];
    if (cursor_children(e, ch, 1) != 1) return none_val();
    gval v = gb_eval(b, f, ch[0]);
    return v;
  }
  case CXCursor_ConditionalOperator: {
    CXCursor ch[3];
    if (cursor_children(e, ch, 3) != 3) return none_val();
    gval c = gb_eval(b, f, ch[0]);
    int64_t cv;
    if (int_value_const(b, &c, &cv)) return gb_eval(b, f, ch[cv ? 1 : 2]);
    gval x = gb_eval(b, f, ch[1]);
    gval y = gb_eval(b, f, ch[2]);
    if (is_record_type(clang_getCursorType(e)) && x.k == GV_ADDR && y.k == GV_ADDR)
      return select_struct(b, f, e, ch[0], &c, &x, &y);
    return select_value(b, f, e, ch[0], &c, &x, &y);
  }
  default:
    break;
  }
  CXCursor bx, by;
  if (is_binary_conditional(e, &bx, &by)) return eval_binary_conditional(b, f, bx, by);
  if (is_cast_like(k)) {
    CXCursor in = cursor_strip_casts(e);
    if (clang_equalCursors(in, e)) {
      /* a leaf such as an implicit default argument: fold if constant;
       * an expression libclang does not expose (GNU `a ?: b`, a designated
       * initialiser, va_arg) is no wrapper: its value is not one of its
       * children's, but the calls in them still run */
      int64_t c;
      if (cursor_eval_int(e, &c)) return gb_int(b, sym_const(b->a, c), NULL, 0);
      eval_children(b, f, e);
      return none_val();
    }
    gval v = gb_eval(b, f, in);
    /* integral casts keep the value; (float)x is no longer an integer */
    CXType t = clang_getCanonicalType(clang_getCursorType(e));
    if (v.k == GV_INT && (t.kind == CXType_Float || t.kind == CXType_Double)) v.k = GV_NONE;
    if (k == CXCursor_CStyleCastExpr && v.text && v.k == GV_INT) {
      /* keep (size_t) widening casts in the text: they matter for overflow */
      v.text = gb_text(b, e);
      v.prec = 0;
    }
    return v;
  }
  /* Anything else (lambdas, new, init lists used as values): walk children
   * for side effects such as nested calls. */
  eval_children(b, f, e);
  return none_val();
}

/* ---- local context (as written at the op site) ---- */

sym *gb_eval_local(gb *b, CXCursor e) {
  e = cursor_strip_casts(e);
  enum CXCursorKind k = clang_getCursorKind(e);
  int64_t c;
  switch (k) {
  case CXCursor_IntegerLiteral:
  case CXCursor_CharacterLiteral: {
    if (!cursor_eval_int(e, &c)) return sym_unknown(b->a);
    char *text = gb_text(b, e);
    if (is_identifier_text(text)) return sym_var(b->a, text);
    return sym_const(b->a, c);
  }
  case CXCursor_UnaryExpr:
    return cursor_eval_int(e, &c) ? sym_const(b->a, c) : sym_unknown(b->a);
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(e);
    if (clang_getCursorKind(d) == CXCursor_EnumConstantDecl)
      return sym_const(b->a, clang_getEnumConstantDeclValue(d));
    return sym_var(b->a, gb_text(b, e));
  }
  case CXCursor_MemberRefExpr:
  case CXCursor_ArraySubscriptExpr:
    return sym_var(b->a, gb_text(b, e));
  case CXCursor_BinaryOperator: {
    CXCursor ch[2];
    if (cursor_children(e, ch, 2) != 2) return sym_unknown(b->a);
    sym *l = gb_eval_local(b, ch[0]), *r = gb_eval_local(b, ch[1]);
    switch (clang_getCursorBinaryOperatorKind(e)) {
    case CXBinaryOperator_Add: return sym_add(b->a, l, r);
    case CXBinaryOperator_Sub: return sym_sub(b->a, l, r);
    case CXBinaryOperator_Mul: return sym_mul(b->a, l, r);
    case CXBinaryOperator_Div: return sym_div(b->a, l, r);
    default: return cursor_eval_int(e, &c) ? sym_const(b->a, c) : sym_unknown(b->a);
    }
  }
  default:
    return cursor_eval_int(e, &c) ? sym_const(b->a, c) : sym_unknown(b->a);
  }
}

/* ---- calls ---- */

static int is_user_function(gb *b, CXCursor def) {
  if (clang_Cursor_isNull(def) || !clang_isCursorDefinition(def)) return 0;
  if (clang_Location_isInSystemHeader(clang_getCursorLocation(def))) return 0;
  /* __global__ and __device__-only functions are device code */
  int host = 1;
  CXCursor *ch;
  int n = cursor_children_all(def, &ch);
  for (int i = 0; i < n; i++) {
    enum CXCursorKind k = clang_getCursorKind(ch[i]);
    if (k == CXCursor_CUDAGlobalAttr || k == CXCursor_CUDADeviceAttr) host = 0;
  }
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_CUDAHostAttr) host = 1;
  free(ch);
  return host;
}

static int host_allocator(const char *name) {
  return strcmp(name, "malloc") == 0 || strcmp(name, "calloc") == 0 ||
         strcmp(name, "realloc") == 0 || strcmp(name, "aligned_alloc") == 0 ||
         strcmp(name, "mallocCheck") == 0 || strcmp(name, "malloc_check") == 0;
}

/* The store key of the descriptor variable passed as argument i of call
 * (`d`, `this->d`, a reference parameter bound to a field, `&layout`). */
static const char *descriptor_key(gb *b, gb_frame *f, CXCursor call, int i) {
  CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
  CXCursor s = cursor_strip_casts(a);
  if (clang_getCursorKind(s) == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(s) == CXUnaryOperator_AddrOf) {
    gval av = gb_eval(b, f, s);
    return av.k == GV_ADDR ? av.path : NULL;
  }
  return gb_lvalue(b, f, a, NULL, NULL);
}

/* Stores a descriptor setter's result into the descriptor variable. */
static void descriptor_call(gb *b, gb_frame *f, CXCursor call, const char *name, int nargs) {
  libcall_arg args[32];
  if (nargs > 32) return;
  for (int i = 0; i < nargs; i++) {
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
    gval v = gb_eval(b, f, a);
    args[i].value = v.k == GV_INT ? v.s : sym_unknown(b->a);
    args[i].text = gb_text(b, a);
  }
  int desc = -1, dense = 1;
  sym *bytes = NULL;
  if (libcall_descriptor_info(name, args, nargs, b->a, &desc, &bytes, &dense) != 0 || desc < 0 ||
      desc >= nargs)
    return;
  gval d = none_val();
  d.k = GV_DESC;
  d.s = bytes ? bytes : sym_unknown(b->a);
  d.dense = dense;
  const char *key = descriptor_key(b, f, call, desc);
  if (!key) return;
  gb_store(b, key, d);
  /* Note [descriptor parameters]: the setter's integers (n, c, h, w; a
   * convolution's pads, strides, dilations) are kept beside the
   * descriptor as "KEY.@dI", their count as "KEY.@nd", so that a query
   * (cudnnGetConvolution2dForwardOutputDim) can compute the shapes a
   * program reads back from cuDNN; a setter keeping none clears them. */
  sym *params[LIBCALL_QUERY_MAX * 2];
  int np = libcall_descriptor_params(name, args, nargs, params, LIBCALL_QUERY_MAX * 2);
  if (np < 0 || np > LIBCALL_QUERY_MAX * 2) np = 0;
  gb_store(b, gb_fmt(b, "%s.@nd", key), gb_int(b, sym_const(b->a, np), NULL, 0));
  for (int i = 0; i < np; i++) gb_store(b, gb_fmt(b, "%s.@d%d", key, i), gb_int(b, params[i], NULL, 0));
}

/* A descriptor query (cudnnGetConvolution2dForwardOutputDim(conv, x, w,
 * &n, &c, &h, &w)): the integers it writes, computed from the parameters
 * the setters kept (Note [descriptor parameters]).  What cannot be
 * computed is forgotten, as after any opaque call. */
static void descriptor_query(gb *b, gb_frame *f, CXCursor call, const char *name, int nargs) {
  int da[LIBCALL_QUERY_MAX], oa[LIBCALL_QUERY_MAX], nd = 0, no = 0;
  if (libcall_query_args(name, da, &nd, oa, &no) != 0) return;
  sym *pv[LIBCALL_QUERY_MAX][LIBCALL_QUERY_MAX * 2];
  sym *const *params[LIBCALL_QUERY_MAX];
  int np[LIBCALL_QUERY_MAX];
  for (int i = 0; i < nd; i++) {
    params[i] = pv[i];
    np[i] = 0;
    const char *key = da[i] < nargs ? descriptor_key(b, f, call, da[i]) : NULL;
    gval *cnt = key ? gb_lookup(b, gb_fmt(b, "%s.@nd", gb_resolve_alias(b, key))) : NULL;
    int64_t c = 0;
    if (!cnt || cnt->k != GV_INT || !sym_get_const(cnt->s, &c) || c < 0 ||
        c > LIBCALL_QUERY_MAX * 2)
      continue;
    for (int k = 0; k < (int)c; k++) {
      gval *v = gb_lookup(b, gb_fmt(b, "%s.@d%d", gb_resolve_alias(b, key), k));
      pv[i][k] = v && v->k == GV_INT ? v->s : sym_unknown(b->a);
    }
    np[i] = (int)c;
  }
  sym *out[LIBCALL_QUERY_MAX];
  if (libcall_query_eval(name, params, np, b->a, out) != 0) return;
  for (int i = 0; i < no; i++) {
    if (oa[i] >= nargs) continue;
    gval p = gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)oa[i]));
    if (p.k != GV_ADDR) continue;
    gb_store(b, p.path, sym_is_unknown(out[i]) ? none_val() : gb_int(b, out[i], NULL, 0));
  }
}

/* Note [one op per call site]: an error-check macro that evaluates its
 * argument twice (`#define CHECK(s) do { if ((s) != 0) { report(s);
 * exit(1); } } while (0)`) puts the same call in the AST twice.  At run
 * time the second one only runs on the error path, so it is one op (one
 * allocation, one walk of a user function), never two.  A call is
 * identified by where it is spelled and where it is expanded (a macro
 * body spelled once but expanded in two places is two calls), the frame,
 * and the frame's setup-loop iteration (an unrolled loop runs it again). */
static int seen_before(gb *b, gb_frame *f, CXCursor e) {
  CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(e));
  gb_seen_call k;
  memset(&k, 0, sizeof k);
  clang_getFileLocation(loc, &k.file, NULL, NULL, &k.off);
  clang_getExpansionLocation(loc, &k.exp_file, NULL, NULL, &k.exp_off);
  if (k.file == k.exp_file && k.off == k.exp_off) return 0; /* not in a macro */
  k.frame = f ? f->id : -1;
  k.iter = f ? f->iter : 0;
  int n = b->n_seen < GB_SEEN_CALLS ? b->n_seen : GB_SEEN_CALLS;
  for (int i = 0; i < n; i++) {
    const gb_seen_call *s = &b->seen[i];
    if (s->off == k.off && s->exp_off == k.exp_off && s->frame == k.frame && s->iter == k.iter &&
        s->file == k.file && s->exp_file == k.exp_file)
      return 1;
  }
  b->seen[b->n_seen++ % GB_SEEN_CALLS] = k;
  return 0;
}

/* Note [C++ objects]: a method runs with "fN:this" holding the address of
 * its object (a store path), so `y_`, `this->y_` and `p.w` inside it name
 * the object's fields; constructors run for declared objects, member
 * initialisers first.  The object of `obj.m()` or `ptr->m()` is the
 * lvalue's path or the pointer's target; a call `m()` inside a method
 * passes its own `this`. */
static const char *method_object(gb *b, gb_frame *f, CXCursor call) {
  CXCursor ch[1];
  if (cursor_children(call, ch, 1) < 1) return NULL;
  CXCursor callee = cursor_strip_casts(ch[0]);
  if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr) return NULL;
  CXCursor ob[1];
  if (cursor_children(callee, ob, 1) < 1) return this_of(b, f); /* implicit this */
  if (clang_getCursorKind(cursor_strip_casts(ob[0])) == CXCursor_CXXThisExpr) return this_of(b, f);
  if (is_pointer_type(clang_getCursorType(ob[0]))) {
    gval v = gb_eval(b, f, ob[0]);
    return v.k == GV_ADDR ? v.path : NULL;
  }
  return gb_lvalue(b, f, ob[0], NULL, NULL);
}

/* ---- C++ heap objects and smart pointers ---- */

/* Note [heap objects]: `new T(args)` is a fresh host object whose store
 * path is "hN:(*m)", named after the variable the result is stored to
 * (b->new_name; "hN[0]" when there is none), and T's user constructor runs
 * with that path as `this`, so `m->forward(x)` finds the members it set.
 * `new T[n]` is "hN:acts[0]", indexed like a malloc'd array: `new float *[L]`
 * filled by one cudaMalloc per element is a pointer array (Note [pointer
 * arrays]).  `delete p` runs T's user destructor on the object (its
 * cudaFree calls are recorded frees).  Not followed: the constructors and
 * destructors of the elements of `new T[n]` beyond the first, placement
 * new, and destructors run at the end of a scope.
 *
 * Note [smart pointers]: std::unique_ptr<T> and std::shared_ptr<T> are
 * modelled as the raw pointer they hold: a smart pointer's store entry
 * holds the held value itself (the heap object's address, or the device
 * pointer of a shared_ptr<float> owning a cudaMalloc'd buffer), and get(),
 * operator-> and operator* read it.  Construction from a raw pointer or
 * another smart pointer (copy, std::move), make_unique/make_shared (a heap
 * object, its constructor chosen by the number of arguments), assignment,
 * reset, release and swap are followed.  Ownership is not: a custom
 * deleter (`[](float *q) { cudaFree(q); }`) runs when the last owner goes,
 * which the interpreter does not follow (the rewriter still replaces its
 * cudaFree: it edits every call).  What cannot be followed holds a pointer
 * of unknown origin, reported where an op uses it. */

/* std::unique_ptr<...> or std::shared_ptr<...> (libstdc++ or libc++). */
static int is_smart_ptr(CXType t) {
  char *sp = string_and_dispose(clang_getTypeSpelling(clang_getCanonicalType(t)));
  const char *s = sp ? sp : "";
  if (strncmp(s, "const ", 6) == 0) s += 6;
  int r = 0;
  if (strncmp(s, "std::", 5) == 0) {
    s += 5;
    if (strncmp(s, "__1::", 5) == 0) s += 5;
    r = strncmp(s, "unique_ptr<", 11) == 0 || strncmp(s, "shared_ptr<", 11) == 0;
  }
  free(sp);
  return r;
}

/* A smart pointer of type t whose held value is not known. */
static gval smart_unknown(gb *b, CXType t) {
  gval v = none_val();
  CXType pt = clang_Type_getTemplateArgumentAsType(clang_getCanonicalType(t), 0);
  if (!is_record_type(pt)) { /* a buffer: unresolved where an op uses it */
    v.k = GV_DEVPTR;
    v.base = sym_const(b->a, 0);
    v.delta = sym_unknown(b->a);
  }
  return v;
}

/* std::move(x) / std::forward<T>(x): x. */
static CXCursor strip_move(CXCursor e) {
  CXCursor s = cursor_strip_casts(e);
  if (clang_getCursorKind(s) != CXCursor_CallExpr || clang_Cursor_getNumArguments(s) != 1) return s;
  char *n = gb_callee_name(s);
  int mv = n && (strcmp(n, "move") == 0 || strcmp(n, "forward") == 0) &&
           clang_Location_isInSystemHeader(clang_getCursorLocation(gb_callee_decl(s)));
  free(n);
  return mv ? cursor_strip_casts(clang_Cursor_getArgument(s, 0)) : s;
}

/* The pointer a smart-pointer expression holds: its store entry when it is
 * an lvalue (key set to it), else (a temporary: make_unique, a constructor,
 * a function returning one) its value. */
static gval smart_held(gb *b, gb_frame *f, CXCursor e, const char **key_out) {
  CXCursor s = strip_move(e);
  enum CXCursorKind k = clang_getCursorKind(s);
  if (key_out) *key_out = NULL;
  if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr ||
      k == CXCursor_UnaryOperator) {
    const char *text;
    int ok;
    const char *key = gb_lvalue(b, f, s, &text, &ok);
    gval *st = key ? gb_lookup(b, key) : NULL;
    gval v = st && st->k != GV_ALIAS ? *st : smart_unknown(b, clang_getCursorType(s));
    if (key_out) *key_out = key;
    v.text = text ? gb_fmt(b, "%s.get()", text) : NULL;
    v.text_ok = ok;
    v.prec = 0;
    return v;
  }
  return gb_eval(b, f, e);
}

/* Does e make a heap object to be stored (`new T`, make_unique,
 * `unique_ptr<T>(new T)`)?  Its target then names it (b->new_name). */
static int makes_heap_object(CXCursor e) {
  CXCursor s = cursor_strip_casts(e);
  enum CXCursorKind k = clang_getCursorKind(s);
  if (k == CXCursor_CXXNewExpr) return 1;
  if (k != CXCursor_CallExpr) return 0;
  CXCursor ref = clang_getCursorReferenced(s);
  if (clang_getCursorKind(ref) == CXCursor_Constructor)
    return is_smart_ptr(clang_getCursorType(s)) && clang_Cursor_getNumArguments(s) >= 1 &&
           clang_getCursorKind(cursor_strip_casts(clang_Cursor_getArgument(s, 0))) == CXCursor_CXXNewExpr;
  char *n = gb_callee_name(s);
  int r = n && (strcmp(n, "make_unique") == 0 || strcmp(n, "make_shared") == 0);
  free(n);
  return r;
}

/* A fresh heap object (Note [heap objects]); array: `new T[n]`. */
static gval heap_object(gb *b, int array) {
  const char *nm = b->new_name;
  b->new_name = NULL;
  gval v = none_val();
  v.k = GV_ADDR;
  int id = b->next_frame++;
  if (nm && *nm) /* named: its tensors read `(*m).w_`, `acts[2]` */
    v.path = array ? gb_fmt(b, "h%d:%s[0]", id, nm) : gb_fmt(b, "h%d:(*%s)", id, nm);
  else
    v.path = gb_fmt(b, "h%d[0]", id);
  return v;
}

/* Arguments of call bound to def's parameters, the call's argument `skip`
 * first: a reference parameter is the argument's lvalue (an alias), a
 * smart pointer passed by value the pointer it holds, others the value.
 * Returns how many were bound. */
static int bind_call_args(gb *b, gb_frame *f, CXCursor call, CXCursor def, int skip, gval *args,
                          int max) {
  int n = clang_Cursor_getNumArguments(call);
  int np = clang_Cursor_isNull(def) ? 0 : clang_Cursor_getNumArguments(def);
  int na = n - skip < max ? n - skip : max;
  if (na < 0) na = 0;
  for (int i = 0; i < na; i++) {
    CXCursor ac = clang_Cursor_getArgument(call, (unsigned)(i + skip));
    CXType pt = i < np ? clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i))
                       : clang_getCursorType(ac);
    const char *key = NULL, *text = NULL;
    int ok = 0;
    if (i < np && (pt.kind == CXType_LValueReference || pt.kind == CXType_RValueReference))
      key = gb_lvalue(b, f, ac, &text, &ok);
    if (!key) {
      args[i] = i < np && is_smart_ptr(pt) ? smart_held(b, f, ac, NULL) : gb_eval(b, f, ac);
      /* a temporary object bound to a reference (`relu(w1 * x)`): the
       * parameter names the object the call returned */
      if (i < np && (pt.kind == CXType_LValueReference || pt.kind == CXType_RValueReference) &&
          args[i].k == GV_ADDR && is_record_type(clang_getPointeeType(pt)) && !is_smart_ptr(pt))
        args[i].k = GV_ALIAS;
      continue;
    }
    args[i] = none_val();
    args[i].k = GV_ALIAS;
    args[i].path = key;
    args[i].index = b->lv_index;
    args[i].text = text;
    args[i].text_ok = ok;
  }
  return na;
}

/* The user constructor of record type t taking nargs arguments (make_unique
 * forwards its arguments to one; the first of that arity), or a null cursor. */
static CXCursor constructor_for(CXType t, int nargs) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  CXCursor *ch, r = clang_getNullCursor();
  int n = cursor_children_all(decl, &ch);
  for (int i = 0; i < n; i++)
    if (clang_getCursorKind(ch[i]) == CXCursor_Constructor &&
        !clang_CXXConstructor_isCopyConstructor(ch[i]) &&
        !clang_CXXConstructor_isMoveConstructor(ch[i]) &&
        clang_Cursor_getNumArguments(ch[i]) == nargs) {
      r = ch[i];
      break;
    }
  free(ch);
  return r;
}

/* Runs T's user destructor on the object at path (`delete p`). */
static void run_destructor(gb *b, gb_frame *f, CXCursor at, CXType t, const char *path) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  CXCursor *ch;
  int n = cursor_children_all(decl, &ch);
  for (int i = 0; i < n; i++) {
    if (clang_getCursorKind(ch[i]) != CXCursor_Destructor) continue;
    CXCursor def = program_definition(b->t, ch[i]);
    if (is_user_function(b, def)) {
      b->this_path = path;
      gb_run_function(b, def, f, at, NULL, 0, NULL);
      b->this_path = NULL;
    }
    break;
  }
  free(ch);
}

/* `new T(args)`, `new T[n]` (Note [heap objects]). */
static GB_NOINLINE gval eval_new(gb *b, gb_frame *f, CXCursor e) {
  /* an array new has its '[' before any '(' or '{' (`new float *[L]`) */
  const char *text = gb_text(b, e);
  const char *br = text ? strpbrk(text, "[({") : NULL;
  gval v = heap_object(b, br && *br == '[');
  CXCursor *ch;
  int n = cursor_children_all(e, &ch);
  for (int i = 0; i < n; i++) {
    if (!clang_isExpression(clang_getCursorKind(ch[i]))) continue;
    CXCursor s = cursor_strip_casts(ch[i]);
    int ctor = clang_getCursorKind(s) == CXCursor_CallExpr &&
               clang_getCursorKind(clang_getCursorReferenced(s)) == CXCursor_Constructor;
    b->this_path = ctor ? v.path : NULL;
    gb_eval(b, f, ch[i]);
    b->this_path = NULL;
  }
  free(ch);
  return v;
}

/* `delete p`, `delete[] p`. */
static GB_NOINLINE void eval_delete(gb *b, gb_frame *f, CXCursor e) {
  CXCursor p = cursor_last_expr_child(e); /* the operand: its only child */
  if (clang_Cursor_isNull(p)) return;
  gval v = gb_eval(b, f, p);
  CXType pt = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(p)));
  if (v.k == GV_ADDR && is_record_type(pt)) run_destructor(b, f, e, pt, v.path);
}

/* make_unique<T>(args) / make_shared<T>(args): a heap object, T's
 * constructor run on it; the value is the pointer the result holds. */
static gval make_smart(gb *b, gb_frame *f, CXCursor e) {
  CXType t = clang_Type_getTemplateArgumentAsType(clang_getCanonicalType(clang_getCursorType(e)), 0);
  int n = clang_Cursor_getNumArguments(e);
  gval v = heap_object(b, !is_record_type(t));
  if (!is_record_type(t)) {
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    return v; /* a host scalar or array */
  }
  CXCursor ctor = constructor_for(t, n);
  CXCursor def = clang_Cursor_isNull(ctor) ? ctor : program_definition(b->t, ctor);
  if (!is_user_function(b, def)) {
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    if (n > 0 || !clang_Cursor_isNull(ctor)) {
      char *ts = string_and_dispose(clang_getTypeSpelling(t));
      gb_note(b, e, "no user constructor of '%s' taking %d argument%s was found for this call: "
              "the members it sets are not followed", ts, n, n == 1 ? "" : "s");
      free(ts);
    }
    return v;
  }
  gval args[64];
  int na = bind_call_args(b, f, e, def, 0, args, 64);
  b->this_path = v.path;
  gb_run_function(b, def, f, e, args, na, NULL);
  b->this_path = NULL;
  return v;
}

/* Default member initialisers (`size_t top = 0;` in the class): every
 * constructor applies them to the members its initialiser list leaves
 * out; applied first here, the list and the body then override them.
 * Member objects and bit-field widths are not initialisers to apply. */
static void default_members(gb *b, gb_frame *f, const char *obj, CXType t) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
  if (clang_Cursor_isNull(decl) || clang_Location_isInSystemHeader(clang_getCursorLocation(decl)))
    return;
  CXCursor *fl;
  int n = cursor_children_all(decl, &fl);
  for (int i = 0; i < n; i++) {
    if (clang_getCursorKind(fl[i]) != CXCursor_FieldDecl || clang_Cursor_isBitField(fl[i])) continue;
    CXType ft = clang_getCursorType(fl[i]);
    if (is_record_type(ft) && !is_smart_ptr(ft)) continue;
    /* the initialiser follows the type's spelling, however long */
    CXCursor init = cursor_last_expr_child(fl[i]);
    if (clang_Cursor_isNull(init)) continue;
    char *field = string_and_dispose(clang_getCursorSpelling(fl[i]));
    gval v = is_smart_ptr(ft) ? smart_held(b, f, init, NULL) : gb_eval(b, f, init);
    write_lvalue(b, gb_fmt(b, "%s.%s", obj, field), NULL, v);
    free(field);
  }
  free(fl);
}

/* A smart pointer's constructor (the object, when declared, is obj). */
static gval smart_construct(gb *b, gb_frame *f, CXCursor e, const char *obj) {
  int n = clang_Cursor_getNumArguments(e);
  gval held = gb_int(b, sym_const(b->a, 0), NULL, 0); /* empty: nullptr */
  if (n >= 1) {
    CXCursor a0 = clang_Cursor_getArgument(e, 0);
    CXType at = clang_getCursorType(a0);
    if (is_smart_ptr(at)) {
      const char *src = NULL;
      held = smart_held(b, f, a0, &src);
      /* a move leaves the source empty */
      CXCursor s = cursor_strip_casts(a0);
      if (src && !clang_equalCursors(s, strip_move(a0)))
        gb_store(b, src, gb_int(b, sym_const(b->a, 0), NULL, 0));
    } else if (is_pointer_type(at) || clang_getCanonicalType(at).kind == CXType_NullPtr) {
      held = gb_eval(b, f, a0);
    } else {
      gb_eval(b, f, a0);
      held = smart_unknown(b, clang_getCursorType(e));
      gb_note(b, e, "smart pointer constructed from a value tidal does not follow: the pointer "
              "it holds is unknown");
    }
    for (int i = 1; i < n; i++) { /* the deleter */
      CXCursor d = cursor_strip_casts(clang_Cursor_getArgument(e, (unsigned)i));
      if (clang_getCursorKind(d) == CXCursor_UnaryOperator &&
          clang_getCursorUnaryOperatorKind(d) == CXUnaryOperator_AddrOf) {
        CXCursor ch[1];
        if (cursor_children(d, ch, 1) == 1) d = cursor_strip_casts(ch[0]);
      }
      char *dn = clang_getCursorKind(d) == CXCursor_DeclRefExpr
                     ? string_and_dispose(clang_getCursorSpelling(clang_getCursorReferenced(d)))
                     : NULL;
      /* the rewriter replaces calls of cudaFree, not the function passed
       * as a value: the deleter would hand tidal's memory to cudaFree */
      if (dn && strncmp(dn, "cudaFree", 8) == 0)
        gb_note(b, d, "%s passed as a deleter is not replaced by tidal_free: the memory it "
                "frees is tidal's (use a lambda calling %s, which is rewritten)", dn, dn);
      free(dn);
      gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    }
  }
  if (obj) write_lvalue(b, obj, NULL, held);
  return held;
}

/* A method of std::unique_ptr/std::shared_ptr (Note [smart pointers]): 1
 * and *out when e calls one. */
static int smart_method(gb *b, gb_frame *f, CXCursor e, CXCursor ref, gval *out) {
  int n = clang_Cursor_getNumArguments(e);
  int np = clang_Cursor_getNumArguments(ref);
  CXCursor obj;
  int first = 0;
  char *m = string_and_dispose(clang_getCursorSpelling(ref));
  if (strncmp(m, "operator", 8) == 0 && n == np + 1) {
    obj = clang_Cursor_getArgument(e, 0); /* operator calls list the object first */
    first = 1;
  } else {
    CXCursor ch[1], ob[1];
    if (cursor_children(e, ch, 1) < 1 || clang_getCursorKind(cursor_strip_casts(ch[0])) != CXCursor_MemberRefExpr ||
        cursor_children(cursor_strip_casts(ch[0]), ob, 1) < 1) {
      free(m);
      return 0;
    }
    obj = ob[0];
  }
  /* shared_ptr's get() is its base class's: the object is cast to it */
  if (!is_smart_ptr(clang_getCursorType(obj)) && !is_smart_ptr(clang_getCursorType(cursor_strip_casts(obj)))) {
    free(m);
    return 0;
  }
  const char *key = NULL;
  gval held = smart_held(b, f, obj, &key);
  *out = none_val();
  if (strcmp(m, "get") == 0) {
    *out = held;
    out->text = gb_text(b, e);
  } else if (strcmp(m, "operator->") == 0) {
    *out = held;
    const char *t = NULL;
    int ok = 0;
    if (key) gb_lvalue(b, f, strip_move(obj), &t, &ok);
    out->text = t; /* `m->n_` as written */
    out->text_ok = ok;
  } else if (strcmp(m, "operator*") == 0) {
    if (held.k == GV_ADDR) *out = held; /* an object: read by address */
  } else if (strcmp(m, "release") == 0) {
    *out = held;
    if (key) gb_store(b, key, gb_int(b, sym_const(b->a, 0), NULL, 0));
  } else if (strcmp(m, "reset") == 0 || strcmp(m, "operator=") == 0) {
    gval nv = gb_int(b, sym_const(b->a, 0), NULL, 0);
    if (n > first) {
      CXCursor a = clang_Cursor_getArgument(e, (unsigned)first);
      if (is_smart_ptr(clang_getCursorType(a))) {
        const char *src = NULL;
        nv = smart_held(b, f, a, &src);
        if (src && !clang_equalCursors(cursor_strip_casts(a), strip_move(a)))
          gb_store(b, src, gb_int(b, sym_const(b->a, 0), NULL, 0));
      } else {
        nv = gb_eval(b, f, a);
      }
    }
    if (key) write_lvalue(b, key, NULL, nv);
  } else if (strcmp(m, "swap") == 0 && n > first) {
    const char *k2 = NULL;
    gval other = smart_held(b, f, clang_Cursor_getArgument(e, (unsigned)first), &k2);
    if (key && k2) {
      gb_store(b, key, other);
      gb_store(b, k2, held);
    } else {
      if (key) gb_store(b, key, smart_unknown(b, clang_getCursorType(obj)));
      if (k2) gb_store(b, k2, smart_unknown(b, clang_getCursorType(obj)));
    }
  } else {
    /* use_count, operator bool, ...: the held pointer is unchanged */
    for (int i = first; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    *out = gb_int(b, sym_unknown(b->a), NULL, 0);
  }
  free(m);
  return 1;
}

/* `*p` of a smart pointer to an object, as an lvalue: the object's path. */
static const char *smart_deref_path(gb *b, gb_frame *f, CXCursor e, const char **text, int *ok) {
  CXCursor ref = clang_getCursorReferenced(e);
  if (clang_getCursorKind(ref) != CXCursor_CXXMethod) return NULL;
  gval v;
  char *m = string_and_dispose(clang_getCursorSpelling(ref));
  int deref = strcmp(m, "operator*") == 0;
  free(m);
  if (!deref || !smart_method(b, f, e, ref, &v) || v.k != GV_ADDR) return NULL;
  *text = v.text ? gb_fmt(b, "(*%s)", v.text) : NULL;
  *ok = v.text_ok;
  return gb_resolve_alias(b, v.path);
}

static void init_store(gb *b, gb_frame *f, const char *key, const char *name, CXType ty,
                       CXCursor init, int depth);

static GB_NOINLINE gval eval_call(gb *b, gb_frame *f, CXCursor e) {
  if (seen_before(b, f, e)) return none_val();
  /* libclang shows C++ constructions as calls: a copy of a struct
   * (`ActivationTensors acts = model->acts;`) is its one argument. */
  CXCursor ref = clang_getCursorReferenced(e);
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_Constructor) {
    int n = clang_Cursor_getNumArguments(e);
    /* A user constructor of a declared object (`Relu relu(4096);`): run it
     * with `this` the object, so the sizes and buffers it sets are seen
     * (Note [C++ objects]). */
    const char *obj = b->this_path;
    b->this_path = NULL;
    if (is_smart_ptr(clang_getCursorType(e))) return smart_construct(b, f, e, obj);
    if (obj && is_std_vector(clang_getCursorType(e))) {
      /* std::vector<T> v(count[, value]): its size() is count */
      gval cnt = none_val();
      for (int i = 0; i < n; i++) {
        gval v = gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
        if (i == 0 && v.k == GV_INT &&
            !is_record_type(clang_getCursorType(clang_Cursor_getArgument(e, 0))))
          cnt = v;
      }
      gb_store(b, gb_fmt(b, "%s.@size", obj), cnt);
      return none_val();
    }
    CXCursor cdef = program_definition(b->t, ref);
    if (obj && !clang_CXXConstructor_isCopyConstructor(ref) &&
        !clang_CXXConstructor_isMoveConstructor(ref))
      default_members(b, f, obj, clang_getCursorType(e));
    if (obj && !clang_CXXConstructor_isCopyConstructor(ref) &&
        !clang_CXXConstructor_isMoveConstructor(ref) && is_user_function(b, cdef)) {
      gval args[64];
      int na = bind_call_args(b, f, e, cdef, 0, args, 64); /* `Model(const Config &c)` */
      b->this_path = obj;
      gb_run_function(b, cdef, f, e, args, na, NULL);
      b->this_path = NULL;
      return none_val();
    }
    if (n == 1 && is_record_type(clang_getCursorType(e)))
      return gb_eval(b, f, clang_Cursor_getArgument(e, 0));
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    return none_val();
  }
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_CXXMethod) {
    gval sv;
    if (smart_method(b, f, e, ref, &sv)) return sv;
  }
  /* v.size() of a std::vector whose construction gave its count */
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_CXXMethod &&
      is_std_vector(clang_getCursorType(clang_getCursorSemanticParent(ref)))) {
    char *m = string_and_dispose(clang_getCursorSpelling(ref));
    int is_size = strcmp(m, "size") == 0;
    free(m);
    const char *obj = method_object(b, f, e);
    if (is_size) {
      gval *sz = obj ? gb_lookup(b, gb_fmt(b, "%s.@size", gb_resolve_alias(b, obj))) : NULL;
      return sz ? *sz : none_val();
    }
    /* anything else (push_back, resize, assign) may change the size */
    if (obj) gb_store(b, gb_fmt(b, "%s.@size", gb_resolve_alias(b, obj)), none_val());
  }
  /* C++ spells a struct assignment `b->a = tensor_alloc(n)` as a call of
   * the implicit (defaulted) operator=: the same alias as the C assignment. */
  if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_CXXMethod &&
      clang_Cursor_getNumArguments(e) == 2 && clang_CXXMethod_isDefaulted(ref)) {
    char *op = string_and_dispose(clang_getCursorSpelling(ref));
    int is_assign = strcmp(op, "operator=") == 0;
    free(op);
    if (is_assign) {
      CXCursor lhs = clang_Cursor_getArgument(e, 0), rhs = clang_Cursor_getArgument(e, 1);
      /* `t[i] = {&w, n};` (C++11 braced assignment): the fields one by
       * one, as the declaration `Slot e = {&w, n};` stores them */
      if (clang_getCursorKind(cursor_strip_casts(rhs)) == CXCursor_InitListExpr) {
        const char *text = NULL;
        int ok = 0;
        const char *key = gb_lvalue(b, f, lhs, &text, &ok);
        if (key) {
          init_store(b, f, key, text ? text : key, clang_getCursorType(lhs), rhs, 0);
          return none_val();
        }
      }
      return assign(b, f, lhs, rhs, gb_eval(b, f, rhs), CXBinaryOperator_Invalid);
    }
  }
  char *name = gb_callee_name(e);
  gval ret = none_val();
  if (!name) goto generic;
  if ((strcmp(name, "make_unique") == 0 || strcmp(name, "make_shared") == 0) &&
      is_smart_ptr(clang_getCursorType(e))) {
    ret = make_smart(b, f, e);
    goto out;
  }
  const libcall_info *li = libcall_find(name);
  if (li && (li->flags & (LIBCALL_ALLOC | LIBCALL_FREE))) {
    if (b->h->alloc_call(b, f, e, name)) {
      /* the analysis follows the run where allocation succeeds:
       * `if (err != cudaSuccess) t.data = NULL;` is then not taken */
      ret = gb_int(b, sym_const(b->a, 0), NULL, 0);
      goto out;
    }
  }
  if (li && (li->flags & LIBCALL_DESCRIPTOR_SETTER)) {
    descriptor_call(b, f, e, name, clang_Cursor_getNumArguments(e));
    goto out;
  }
  if (li && (li->flags & LIBCALL_DESCRIPTOR_QUERY)) {
    descriptor_query(b, f, e, name, clang_Cursor_getNumArguments(e));
    goto out;
  }
  if (b->h->op_site(b, f, e)) {
    if (b->in_once) b->once_sites++;
    goto out;
  }
  if (host_allocator(name)) {
    /* evaluate the size for side effects; the result is a fresh host array */
    int n = clang_Cursor_getNumArguments(e);
    for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
    ret.k = GV_ADDR;
    ret.path = gb_fmt(b, "h%d[0]", b->next_frame++);
    goto out;
  }
  {
    CXCursor decl = gb_callee_decl(e);
    CXCursor def = program_definition(b->t, decl); /* in any input */
    int n = clang_Cursor_getNumArguments(e);
    if (n < 0) n = 0;
    gval args[64];
    int np = clang_Cursor_isNull(def) ? 0 : clang_Cursor_getNumArguments(def);
    /* An operator call (a lambda `launch(p.w, g.w, 150)`, a functor) lists
     * the object as argument 0: the parameters bind the ones after it. */
    int skip = !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_CXXMethod &&
               n == np + 1;
    if (skip) gb_eval(b, f, clang_Cursor_getArgument(e, 0));
    /* C++ reference parameters (`void alloc(P &p)`, `float *&q`): the
     * parameter is the argument's lvalue, so writes through it land there */
    int na = bind_call_args(b, f, e, def, skip, args, 64);
    if (is_user_function(b, def) && !clang_Cursor_isNull(def)) {
      if (clang_getCursorKind(def) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(def)) {
        b->this_path = method_object(b, f, e);
        if (clang_CXXMethod_isVirtual(decl))
          gb_note(b, e, "virtual call: only the definition for the object's static type is "
                  "followed; overrides in derived classes are not");
      }
      gb_run_function(b, def, f, e, args, na, &ret);
      b->this_path = NULL;
    } else {
      /* a pure virtual method has no body for the static type: say so, or
       * the ops of its overrides would vanish without a word */
      if (!clang_Cursor_isNull(decl) && clang_getCursorKind(decl) == CXCursor_CXXMethod &&
          clang_CXXMethod_isPureVirtual(decl))
        gb_note(b, e, "call of a pure virtual method: overrides in derived classes are not "
                "followed, ops below them are not in the graph");
      /* An opaque call may write through the addresses it is given
       * (cudaGetDeviceCount(&n)): forget integers stored there. */
      for (int i = 0; i < na; i++) {
        if (args[i].k != GV_ADDR) continue;
        gval *st = gb_lookup(b, args[i].path);
        if (st && st->k == GV_INT && !st->ind) gb_store(b, args[i].path, none_val());
      }
    }
    goto out;
  }
generic: {
  int n = clang_Cursor_getNumArguments(e);
  for (int i = 0; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(e, (unsigned)i));
}
out:
  free(name);
  return ret;
}

static void walk_decl(gb *b, gb_frame *f, CXCursor vd);

/* Global structs initialised at file scope (`config_t config = {.n_embd
 * = 768, ...}`) and global objects (`static Pool pool;`: default member
 * initialisers, then the constructor) in any input: their fields hold
 * those values when main() starts, as the program's own reads will see
 * them. */
static enum CXChildVisitResult global_init_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  gb *b = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
  if (k != CXCursor_VarDecl || !clang_isCursorDefinition(c) ||
      !is_record_type(clang_getCursorType(c)) || !program_view_of(b->t, c))
    return CXChildVisit_Continue;
  CXCursor *ch;
  int n = cursor_children_all(c, &ch), has_init = 0;
  for (int i = 0; i < n; i++) {
    CXCursor s = cursor_strip_casts(ch[i]);
    if (clang_getCursorKind(s) == CXCursor_InitListExpr) has_init = 1;
    /* an object whose constructor runs before main (`static Pool pool;`) */
    if (clang_getCursorKind(s) == CXCursor_CallExpr &&
        clang_getCursorKind(clang_getCursorReferenced(s)) == CXCursor_Constructor)
      has_init = 1;
  }
  free(ch);
  if (has_init) walk_decl(b, NULL, c);
  return CXChildVisit_Continue;
}

void gb_init_globals(gb *b) {
  pass_tu *const *units;
  int n = program_units(b->t, &units);
  for (int u = 0; u < n; u++)
    clang_visitChildren(clang_getTranslationUnitCursor(units[u]->tu), global_init_visitor, b);
}

int gb_run_function(gb *b, CXCursor fn, gb_frame *caller, CXCursor call, const gval *args,
                    int nargs, gval *ret) {
  if (b->n_stack >= GB_MAX_CALL_DEPTH) {
    /* Not followed: say so, or ops below this call would vanish silently. */
    if (!clang_Cursor_isNull(call))
      gb_note(b, call, "call chain deeper than %d functions: this call is not followed, "
              "ops below it are not in the graph", GB_MAX_CALL_DEPTH);
    return -1;
  }
  for (int i = 0; i < b->n_stack; i++)
    if (clang_equalCursors(b->stack[i], fn)) return -1; /* recursion: walked once */
  gb_frame fr;
  memset(&fr, 0, sizeof fr);
  fr.id = b->next_frame++;
  fr.fn = fn;
  fr.caller = caller;
  fr.depth = caller ? caller->depth + 1 : 0;
  fr.call_index = -1;
  fr.ret = none_val();
  char *fname = string_and_dispose(clang_getCursorSpelling(fn));
  CXCursor lp = clang_getCursorSemanticParent(b->train_loop);
  (void)lp;
  fr.keep_names = !caller || strcmp(fname, "main") == 0;
  if (!clang_Cursor_isNull(b->train_loop)) {
    /* the function lexically containing the training loop keeps names */
    CXCursor p = b->train_loop;
    for (int guard = 0; guard < 256 && !clang_Cursor_isNull(p); guard++) {
      enum CXCursorKind pk = clang_getCursorKind(p);
      if (pk == CXCursor_FunctionDecl || pk == CXCursor_CXXMethod) break;
      p = clang_getCursorSemanticParent(p);
    }
    if (!clang_Cursor_isNull(p) && clang_equalCursors(p, fn)) fr.keep_names = 1;
  }
  /* Bind parameters to the caller's argument values. */
  int np = clang_Cursor_getNumArguments(fn);
  for (int i = 0; i < np; i++) {
    CXCursor pd = clang_Cursor_getArgument(fn, (unsigned)i);
    char *pname = string_and_dispose(clang_getCursorSpelling(pd));
    if (*pname) {
      const char *key = gb_fmt(b, "f%d:%s", fr.id, pname);
      gval v = i < nargs ? args[i] : none_val();
      CXType pt = clang_getCursorType(pd);
      if (i >= nargs) {
        v = read_lvalue(b, &fr, NULL, pt, gb_str(b, pname), 0);
      } else if (is_record_type(pt) && !is_smart_ptr(pt) && v.k == GV_ADDR) {
        v.k = GV_ALIAS; /* struct passed by value */
      } else if (!caller && v.k == GV_NONE) {
        v = read_lvalue(b, &fr, NULL, pt, gb_str(b, pname), 1);
      }
      gb_store(b, key, v);
    }
    free(pname);
  }
  /* The object of a method or constructor (Note [C++ objects]). */
  const char *obj = b->this_path;
  b->this_path = NULL;
  if (obj) {
    gval tv = none_val();
    tv.k = GV_ADDR;
    tv.path = obj;
    gb_store(b, gb_fmt(b, "f%d:this", fr.id), tv);
    if (clang_getCursorKind(fn) == CXCursor_Constructor) {
      /* member initialisers `: n_(n), w_(nullptr)`: a MemberRef, then its value */
      CXCursor *mi;
      int nk = cursor_children_all(fn, &mi);
      for (int i = 0; i + 1 < nk; i++) {
        if (clang_getCursorKind(mi[i]) != CXCursor_MemberRef ||
            !clang_isExpression(clang_getCursorKind(mi[i + 1])))
          continue;
        char *field = string_and_dispose(clang_getCursorSpelling(mi[i]));
        b->this_path = gb_fmt(b, "%s.%s", obj, field); /* a member object's constructor */
        CXType ft = clang_getCursorType(clang_getCursorReferenced(mi[i]));
        gval v = none_val();
        if (ft.kind == CXType_LValueReference || ft.kind == CXType_RValueReference) {
          /* a reference member (`FullyConnectedLayer &ref_fc1`) names its initialiser */
          const char *key = gb_lvalue(b, &fr, mi[i + 1], NULL, NULL);
          if (key) {
            v.k = GV_ALIAS;
            v.path = key;
          }
        } else if (is_smart_ptr(ft)) {
          /* `layer_(new Layer(n))`, `buf_(std::move(b))` (Note [smart pointers]) */
          if (makes_heap_object(mi[i + 1])) b->new_name = member_text(b, obj, field);
          v = smart_held(b, &fr, mi[i + 1], NULL);
        } else {
          if (makes_heap_object(mi[i + 1])) b->new_name = member_text(b, obj, field);
          v = gb_eval(b, &fr, mi[i + 1]);
          if (is_record_type(ft) && v.k == GV_ADDR) v.k = GV_ALIAS; /* Note [struct copies] */
        }
        b->this_path = NULL;
        b->new_name = NULL;
        gb_store(b, gb_fmt(b, "%s.%s", obj, field), v);
        free(field);
      }
      free(mi);
    }
  }
  /* Record the call on the path when inside the training loop. */
  int pushed = 0;
  if (b->mode == GB_GRAPH && caller && b->n_path < GB_MAX_CALL_DEPTH &&
      !clang_Cursor_isNull(call)) {
    graph_call *gc = &b->path[b->n_path];
    memset(gc, 0, sizeof *gc);
    gc->function = fname;
    fname = NULL;
    gb_location(b, call, &gc->file, &gc->line, &gc->col);
    gc->stmt = b->have_stmt ? gb_range(b, b->cur_stmt, 1) : gb_range(b, call, 0);
    b->path_cursor[b->n_path] = call;
    fr.call_index = b->n_path;
    b->n_path++;
    pushed = 1;
  }
  b->stack[b->n_stack++] = fn;
  CXCursor saved_stmt = b->cur_stmt;
  int saved_have = b->have_stmt;
  b->have_stmt = 0;
  CXCursor body = cursor_fn_body(fn);
  if (!clang_Cursor_isNull(body)) gb_walk_stmt(b, &fr, body);
  b->cur_stmt = saved_stmt;
  b->have_stmt = saved_have;
  b->n_stack--;
  if (pushed) {
    b->n_path--;
    free(b->path[b->n_path].function);
    free(b->path[b->n_path].file);
  }
  free(fname);
  if (ret) *ret = fr.ret;
  return 0;
}

/* ---- statements ---- */

static void forget_carried(gb *b, gb_frame *f, CXCursor s, const char *skip_key, CXCursor init);


/* Note [designated initialisers]: libclang shows `.f = v`, `.f.g = v` and
 * `[k] = v` in an initialiser list as an UnexposedExpr whose children are
 * the designators (MemberRefs, or the index expression) and then the
 * value.  Such an element names where it goes; the elements after it
 * continue from there (C11 6.7.9), so a list written out of declaration
 * order (`{.n_layer = 12, .vocab = 50257}`) lands field by field. */

/* The leading MemberRefs of a designated struct element (0 for a plain
 * element); *value: the element's value. */
static int field_designators(CXCursor el, CXCursor *value, CXCursor **kids) {
  *value = el;
  *kids = NULL;
  if (clang_getCursorKind(el) != CXCursor_UnexposedExpr) return 0;
  int n = cursor_children_all(el, kids);
  int m = 0;
  while (m < n && clang_getCursorKind((*kids)[m]) == CXCursor_MemberRef) m++;
  if (m == 0 || m + 1 != n || !clang_isExpression(clang_getCursorKind((*kids)[m]))) {
    free(*kids);
    *kids = NULL;
    return 0;
  }
  *value = (*kids)[m];
  return m;
}

/* The index of a designated array element `[k] = v` (-1 for a plain
 * element); *value: the element's value. */
static int64_t index_designator(CXCursor el, CXCursor *value) {
  *value = el;
  CXCursor ch[2];
  int64_t k;
  if (clang_getCursorKind(el) != CXCursor_UnexposedExpr || cursor_children(el, ch, 2) != 2 ||
      !clang_isExpression(clang_getCursorKind(ch[1])) || !cursor_eval_int(ch[0], &k) || k < 0)
    return -1;
  *value = ch[1];
  return k;
}

/* Stores an initialiser into key (written `name` in the source):
 * aggregate initialisers element by element and field by field, nested
 * (`Spec t[] = {{(void **)&a->x, n}, ...}`: a table of addresses a carving
 * loop stores through), designators followed (Note [designated
 * initialisers]), other values as evaluated (a struct copy aliases, Note
 * [struct copies]).  Every element is read, however many. */
static void init_store(gb *b, gb_frame *f, const char *key, const char *name, CXType ty,
                       CXCursor init, int depth) {
  CXCursor si = cursor_strip_casts(init);
  int list = depth < 8 && clang_getCursorKind(si) == CXCursor_InitListExpr;
  CXCursor *el = NULL, *fl = NULL;
  int m = list ? cursor_children_all(si, &el) : 0;
  if (list && is_array_type(ty)) {
    CXType et = clang_getArrayElementType(clang_getCanonicalType(ty));
    int64_t at = 0;
    for (int i = 0; i < m; i++, at++) {
      CXCursor v;
      int64_t k = index_designator(el[i], &v);
      if (k >= 0) at = k;
      init_store(b, f, gb_fmt(b, "%s[%lld]", key, (long long)at),
                 gb_fmt(b, "%s[%lld]", name, (long long)at), et, v, depth + 1);
    }
  } else if (list && is_record_type(ty)) {
    /* aggregate init of a struct: fields in declaration order */
    CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(ty));
    int nf = cursor_children_all(decl, &fl), fi = 0;
    for (int i = 0; i < m; i++) {
      CXCursor v, *ds;
      int nd = field_designators(el[i], &v, &ds);
      if (nd > 0) {
        /* `.f.g = v`: the path the designators spell; positions go on after f */
        char *top = string_and_dispose(clang_getCursorSpelling(ds[0]));
        for (fi = 0; fi < nf; fi++) {
          if (clang_getCursorKind(fl[fi]) != CXCursor_FieldDecl) continue;
          char *fname = string_and_dispose(clang_getCursorSpelling(fl[fi]));
          int same = fname && top && strcmp(fname, top) == 0;
          free(fname);
          if (same) break;
        }
        free(top);
        const char *k = key, *t = name;
        for (int d = 0; d < nd; d++) {
          char *fname = string_and_dispose(clang_getCursorSpelling(ds[d]));
          k = gb_fmt(b, "%s.%s", k, fname);
          t = gb_fmt(b, "%s.%s", t, fname);
          free(fname);
        }
        CXType ft = clang_getCursorType(clang_getCursorReferenced(ds[nd - 1]));
        free(ds);
        if (fi < nf) fi++;
        init_store(b, f, k, t, ft, v, depth + 1);
        continue;
      }
      while (fi < nf && clang_getCursorKind(fl[fi]) != CXCursor_FieldDecl) fi++;
      if (fi >= nf) break;
      CXType ft = clang_getCursorType(fl[fi]);
      char *fname = string_and_dispose(clang_getCursorSpelling(fl[fi++]));
      init_store(b, f, gb_fmt(b, "%s.%s", key, fname), gb_fmt(b, "%s.%s", name, fname), ft, el[i],
                 depth + 1);
      free(fname);
    }
  } else {
    /* `Relu relu(4096);`: a user constructor runs on the object (Note [C++ objects]) */
    if (is_record_type(ty)) b->this_path = key;
    if (makes_heap_object(init)) b->new_name = name; /* Note [heap objects] */
    int smart = is_smart_ptr(ty);
    gval v = smart ? smart_held(b, f, init, NULL) : gb_eval(b, f, init);
    b->this_path = NULL;
    b->new_name = NULL;
    if (is_record_type(ty) && !smart && v.k == GV_ADDR) v.k = GV_ALIAS;
    write_lvalue(b, key, name, v);
  }
  free(el);
  free(fl);
}

static void walk_decl(gb *b, gb_frame *f, CXCursor vd) {
  char *name = string_and_dispose(clang_getCursorSpelling(vd));
  const char *key = var_key(b, f, vd, name);
  CXType ty = clang_getCursorType(vd);
  /* the initialiser follows the type's spelling, however long */
  CXCursor init = cursor_last_expr_child(vd);
  const char *text = gb_str(b, name);
  int keep = f && f->keep_names;
  (void)keep;
  const char *ref = NULL, *rtext = NULL;
  int rok = 0;
  if (!clang_Cursor_isNull(init) &&
      (ty.kind == CXType_LValueReference || ty.kind == CXType_RValueReference))
    ref = gb_lvalue(b, f, init, &rtext, &rok);
  if (ref) {
    /* `Block &blk = model.h[l];`: the name is the element itself, so writes
     * through it land there and reads see what setup stored (not a copy) */
    gval a = none_val();
    a.k = GV_ALIAS;
    a.path = ref;
    a.index = b->lv_index;
    a.text = rtext;
    a.text_ok = rok;
    gb_store(b, key, a);
  } else if (!clang_Cursor_isNull(init)) {
    init_store(b, f, key, text, ty, init, 0);
  } else if (gb_lookup(b, key)) {
    /* a declaration without initialiser re-entered (loop body): forget */
    gb_store(b, key, none_val());
  }
  free(name);
}

/* Parts of a for statement: libclang omits absent parts, so they are told
 * apart by position relative to the header's semicolons. */
typedef struct for_parts {
  CXCursor init, cond, inc, body;
  CXCursor cvar; /* the condition's variable (Note [condition variables]) */
  int has_init, has_cond, has_inc, has_cvar;
} for_parts;

static void for_split(gb *b, CXCursor s, for_parts *p) {
  memset(p, 0, sizeof *p);
  /* five children when the condition declares a variable
   * (`for (...; int r = n - i; ...)`: its VarDecl, then the condition) */
  CXCursor *ch;
  int n = cursor_children_all(s, &ch);
  if (n < 1) {
    free(ch);
    return;
  }
  p->body = ch[n - 1];
  /* the two ';' of the header, from its tokens */
  CXSourceRange ext = clang_getCursorExtent(s);
  CXToken *toks = NULL;
  unsigned nt = 0;
  unsigned semi[2] = {0, 0};
  int ns = 0, depth = 0;
  unsigned body_off;
  clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(p->body)), NULL, NULL, NULL,
                             &body_off);
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(s); /* any input's */
  clang_tokenize(tu, ext, &toks, &nt);
  for (unsigned i = 0; i < nt && ns < 2; i++) {
    unsigned off;
    clang_getExpansionLocation(clang_getTokenLocation(tu, toks[i]), NULL, NULL, NULL, &off);
    if (off >= body_off) break;
    char *sp = string_and_dispose(clang_getTokenSpelling(tu, toks[i]));
    if (strcmp(sp, "(") == 0) depth++;
    else if (strcmp(sp, ")") == 0) depth--;
    else if (strcmp(sp, ";") == 0 && depth == 1) semi[ns++] = off;
    free(sp);
  }
  if (toks) clang_disposeTokens(tu, toks, nt);
  for (int i = 0; i < n - 1; i++) {
    unsigned off;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(ch[i])), NULL, NULL, NULL,
                               &off);
    if (ns == 2 && off < semi[0]) {
      p->init = ch[i];
      p->has_init = 1;
    } else if (ns == 2 && off < semi[1] && clang_getCursorKind(ch[i]) == CXCursor_VarDecl) {
      p->cvar = ch[i];
      p->has_cvar = 1;
    } else if (ns == 2 && off < semi[1]) {
      p->cond = ch[i];
      p->has_cond = 1;
    } else if (ns == 2) {
      p->inc = ch[i];
      p->has_inc = 1;
    } else if (i == 0 && n == 4) {
      p->init = ch[0];
      p->has_init = 1;
    } else if (i == 1 && n == 4) {
      p->cond = ch[1];
      p->has_cond = 1;
    } else if (i == 2 && n == 4) {
      p->inc = ch[2];
      p->has_inc = 1;
    }
  }
  free(ch);
}

/* Recognises `for (v = lo; v < hi; v++)`-like headers.  Returns the
 * variable's key and fills lo/hi/step (hi exclusive in the step's
 * direction); NULL when the shape is not recognised. */
static const char *for_shape(gb *b, gb_frame *f, const for_parts *p, const char **var, gval *lo,
                             gval *hi, int *step) {
  if (!p->has_init || !p->has_cond || !p->has_inc) return NULL;
  const char *key = NULL, *text = NULL;
  int ok = 0;
  CXCursor init = p->init;
  if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
    CXCursor vd[2];
    if (cursor_children(init, vd, 2) != 1) return NULL;
    walk_decl(b, f, vd[0]);
    char *name = string_and_dispose(clang_getCursorSpelling(vd[0]));
    key = var_key(b, f, vd[0], name);
    text = gb_str(b, name);
    free(name);
  } else {
    CXCursor s = cursor_strip_casts(init);
    if (clang_getCursorKind(s) != CXCursor_BinaryOperator ||
        clang_getCursorBinaryOperatorKind(s) != CXBinaryOperator_Assign)
      return NULL;
    gb_eval(b, f, s);
    CXCursor ch[2];
    cursor_children(s, ch, 2);
    key = gb_lvalue(b, f, ch[0], &text, &ok);
  }
  if (!key) return NULL;
  gval *lv = gb_lookup(b, key);
  *lo = lv ? *lv : none_val();
  /* step */
  CXCursor inc = cursor_strip_casts(p->inc);
  *step = 0;
  if (clang_getCursorKind(inc) == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind u = clang_getCursorUnaryOperatorKind(inc);
    if (u == CXUnaryOperator_PostInc || u == CXUnaryOperator_PreInc) *step = 1;
    if (u == CXUnaryOperator_PostDec || u == CXUnaryOperator_PreDec) *step = -1;
  } else if (clang_getCursorKind(inc) == CXCursor_CompoundAssignOperator) {
    CXCursor ch[2];
    int64_t c;
    if (cursor_children(inc, ch, 2) == 2 && cursor_eval_int(ch[1], &c) && c != 0) {
      enum CXBinaryOperatorKind bo = clang_getCursorBinaryOperatorKind(inc);
      if (bo == CXBinaryOperator_AddAssign) *step = (int)c;
      if (bo == CXBinaryOperator_SubAssign) *step = (int)-c;
    }
  }
  if (!*step) return NULL;
  /* condition: v < hi, v <= hi, v > hi, v >= hi, v != hi */
  CXCursor cond = cursor_strip_casts(p->cond);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator) return NULL;
  CXCursor ch[2];
  if (cursor_children(cond, ch, 2) != 2) return NULL;
  const char *ck = gb_lvalue(b, f, ch[0], NULL, NULL);
  if (!ck || strcmp(ck, key) != 0) return NULL;
  gval h = gb_eval(b, f, ch[1]);
  if (h.k != GV_INT) return NULL;
  switch (clang_getCursorBinaryOperatorKind(cond)) {
  case CXBinaryOperator_LT:
  case CXBinaryOperator_NE:
  case CXBinaryOperator_GT:
    break;
  case CXBinaryOperator_LE:
    h.s = sym_add(b->a, h.s, sym_const(b->a, 1));
    break;
  case CXBinaryOperator_GE:
    h.s = sym_sub(b->a, h.s, sym_const(b->a, 1));
    break;
  default:
    return NULL;
  }
  *hi = h;
  *var = text;
  return key;
}

/* A graph loop's body, walked once with the loop on b->loops (the ops
 * inside record it); a condition variable (Note [condition variables]) is
 * declared first, as every iteration does. */
static void walk_graph_loop_body(gb *b, gb_frame *f, int id, CXCursor cvar, CXCursor body) {
  b->loops[b->n_loops].id = id;
  b->loops[b->n_loops].frame = f;
  if (b->n_loops < 63) b->n_loops++;
  if (!clang_Cursor_isNull(cvar)) walk_decl(b, f, cvar);
  gb_walk_stmt(b, f, body);
  if (b->n_loops) b->n_loops--;
}

static void walk_for(gb *b, gb_frame *f, CXCursor s) {
  for_parts p;
  for_split(b, s, &p);
  if (b->mode == GB_GRAPH) {
    const char *var = NULL;
    gval lo, hi;
    int step = 0;
    const char *key = for_shape(b, f, &p, &var, &lo, &hi, &step);
    if (!key && p.has_init) {
      if (clang_getCursorKind(p.init) == CXCursor_DeclStmt) gb_walk_stmt(b, f, p.init);
      else gb_eval(b, f, p.init);
    }
    int id = b->h->graph_loop(b, f, s, p.body, key ? var : NULL, key ? lo.s : NULL,
                         key ? hi.s : NULL, step);
    forget_carried(b, f, s, key, p.has_init ? p.init : clang_getNullCursor());
    /* the induction variable stays symbolic inside the body */
    if (key) {
      gval iv = gb_int(b, sym_var(b->a, var), var, f->is_loop_frame);
      iv.ind = 1;
      gb_store(b, key, iv);
    }
    walk_graph_loop_body(b, f, id, p.has_cvar ? p.cvar : clang_getNullCursor(), p.body);
    return;
  }
  const char *var;
  gval lo, hi;
  int step;
  const char *key = for_shape(b, f, &p, &var, &lo, &hi, &step);
  int64_t l0, h0;
  if (key && int_value_const(b, &lo, &l0) && int_value_const(b, &hi, &h0)) {
    int64_t trips = step > 0 ? (h0 - l0 + step - 1) / step : (l0 - h0 + (-step) - 1) / (-step);
    if (trips <= 0) return;
    /* Unroll only while the nest stays small and the work budget lasts:
     * carving and size loops are short; data-initialisation loops are not
     * worth running (walked once instead, their variable unknown). */
    if (trips * b->unroll_product <= GB_MAX_SETUP_UNROLL && b->steps < GB_MAX_STEPS) {
      int64_t saved_product = b->unroll_product;
      b->unroll_product *= trips;
      for (int64_t i = 0, v = l0; i < trips && b->steps < GB_MAX_STEPS; i++, v += step) {
        gval iv = gb_int(b, sym_const(b->a, v), gb_fmt(b, "%lld", (long long)v), 1);
        iv.ind = 1;
        gb_store(b, key, iv);
        f->iter++; /* the body's calls run again (Note [one op per call site]) */
        if (p.has_cvar) walk_decl(b, f, p.cvar);
        gb_walk_stmt(b, f, p.body);
      }
      b->unroll_product = saved_product;
      return;
    }
  }
  if (!key && p.has_init) {
    if (clang_getCursorKind(p.init) == CXCursor_DeclStmt) gb_walk_stmt(b, f, p.init);
    else gb_eval(b, f, p.init);
  }
  if (key) {
    gval iv = gb_int(b, sym_unknown(b->a), NULL, 0);
    iv.ind = 1;
    gb_store(b, key, iv);
  }
  if (p.has_cvar) walk_decl(b, f, p.cvar);
  gb_walk_stmt(b, f, p.body);
}

/* Loop-carried values: see Note [loop-carried values]. */
typedef struct carried_ud {
  gb *b;
  gb_frame *f;
  const char *skip;   /* the loop's recognised induction variable (its own rule) */
  CXCursor skip_part; /* a for statement's init: runs once, not carried */
} carried_ud;

/* 1 if e is a variable, or a field reached through variables and fields
 * only: its store key can be computed without evaluating a call (which
 * would record an op). */
static int plain_lvalue(CXCursor e) {
  for (int guard = 0; guard < 16; guard++) {
    e = cursor_strip_casts(e);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_DeclRefExpr) return 1;
    if (k != CXCursor_MemberRefExpr) return 0;
    CXCursor ch[1];
    if (cursor_children(e, ch, 1) != 1) return 0;
    e = ch[0];
  }
  return 0;
}

static void forget_value(carried_ud *cd, CXCursor target) {
  gb *b = cd->b;
  CXType t = clang_getCanonicalType(clang_getCursorType(target));
  int is_int = (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
  if (!is_int && t.kind != CXType_Pointer) return;
  const char *text;
  int ok;
  const char *key = gb_lvalue(b, cd->f, target, &text, &ok);
  if (!key || (cd->skip && strcmp(key, cd->skip) == 0)) return;
  gval *st = gb_lookup(b, key);
  if (is_int) {
    if (st && st->carried) return; /* already forgotten by an enclosing loop */
    gval v = gb_int(b, sym_unknown(b->a), text, ok);
    v.ind = 1; /* named_int: never bound as a constant */
    v.carried = 1;
    gb_store(b, key, v);
    /* a constant found while it held its entry value names no constant */
    if (text && ok) bind_forget_const(&b->g->binds, text);
    return;
  }
  if (!st) return; /* never assigned: read as a pointer of unknown origin anyway */
  gval v = *st;
  if (v.k == GV_DEVPTR) {
    v.delta = sym_unknown(b->a);
  } else if (v.k == GV_ADDR) {
    const char *lb = strrchr(v.path, '[');
    v.path = lb ? gb_fmt(b, "%.*s[?]", (int)(lb - v.path), v.path) : gb_fmt(b, "%s+?", v.path);
    v.index = NULL; /* which element is not known */
  } else {
    return;
  }
  v.carried = 1;
  v.text = text; /* the entry value's text no longer names it */
  v.text_ok = ok;
  v.prec = 0;
  gb_store(b, key, v);
}

static enum CXChildVisitResult carried_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  carried_ud *cd = d;
  if (!clang_Cursor_isNull(cd->skip_part) && clang_equalCursors(c, cd->skip_part))
    return CXChildVisit_Continue;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
  CXCursor target = clang_getNullCursor();
  if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    CXCursor ch[2];
    if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign && cursor_children(c, ch, 2) == 2)
      target = ch[0];
  } else if (k == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    CXCursor ch[1];
    if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec && cursor_children(c, ch, 1) == 1)
      target = ch[0];
  }
  if (!clang_Cursor_isNull(target) && plain_lvalue(target)) forget_value(cd, cursor_strip_casts(target));
  return CXChildVisit_Recurse;
}

/* Forgets what loop s carries from one iteration to the next, except the
 * induction variable skip_key (NULL if none) and the init part of a for. */
static void forget_carried(gb *b, gb_frame *f, CXCursor s, const char *skip_key, CXCursor init) {
  carried_ud cd = {b, f, skip_key, init};
  clang_visitChildren(s, carried_visitor, &cd);
}

/* Note [state changed by calls]: the syntactic scan of Note [loop-carried
 * values] sees what the loop body itself assigns, not what the functions
 * it calls assign: a caching allocator's `top += bytes` inside `pool.get()`
 * (called by a Matrix constructor, called by `operator*`) moves every
 * later iteration's blocks, yet the one walk reads its entry value and
 * puts each iteration's temporaries at the first iteration's offsets -
 * where the weights were carved before the loop, so a plan could take the
 * weights for dead.  So the body is first walked dry: with handlers that
 * record nothing (b->quiet), noting every store key written outside once
 * branches.  A key that held a value before the dry walk and holds a
 * different one after it is state carried from one iteration to the next
 * by some call; the store is put back as it was, such keys are forgotten
 * as Note [loop-carried values] forgets (integers unknown, pointers
 * keeping their allocation with an unknown offset, marked carried), and
 * the body is walked for real.  Keys written with the value they held
 * (`model->batch_size = B` every step) stay.  Only when the body calls a
 * user function (the syntactic scan covers the rest); state created
 * inside the iteration and carried between the iterations of an inner loop
 * by calls is not seen. */
typedef struct user_call_scan {
  gb *b;
  int found;
} user_call_scan;

static enum CXChildVisitResult user_call_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  user_call_scan *u = d;
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    CXCursor decl = gb_callee_decl(c);
    if (!clang_Cursor_isNull(decl) && is_user_function(u->b, program_definition(u->b->t, decl))) {
      u->found = 1;
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

static int gval_same(const gval *x, const gval *y) {
  if (x->k != y->k) return 0;
  switch (x->k) {
  case GV_INT:
  case GV_DESC:
    return x->s == y->s || (x->s && y->s && sym_equal(x->s, y->s));
  case GV_DEVPTR:
    return x->alloc == y->alloc && x->region == y->region &&
           (x->base == y->base || (x->base && y->base && sym_equal(x->base, y->base))) &&
           (x->delta == y->delta || (x->delta && y->delta && sym_equal(x->delta, y->delta))) &&
           x->family == y->family; /* a family read again is a new one: conservative */
  case GV_ADDR:
  case GV_ALIAS:
    return x->path == y->path || (x->path && y->path && !strcmp(x->path, y->path));
  default:
    return 1;
  }
}

/* A value some call changes between iterations: unknown from here on. */
static void carry_key(gb *b, const char *key) {
  gval *st = gb_lookup(b, key);
  if (!st || st->carried) return;
  gval v = *st;
  if (v.k == GV_INT) {
    /* the name's binding stays: setup's reads (a block carved before the
     * loop) used the value it held then, the loop reads this unknown */
    v = gb_int(b, sym_unknown(b->a), st->text, st->text_ok);
    v.ind = 1;
  } else if (v.k == GV_DEVPTR) {
    v.delta = sym_unknown(b->a);
  } else if (v.k == GV_ADDR) {
    const char *lb = strrchr(v.path, '[');
    v.path = lb ? gb_fmt(b, "%.*s[?]", (int)(lb - v.path), v.path) : gb_fmt(b, "%s+?", v.path);
  } else {
    return;
  }
  v.carried = 1;
  gb_store(b, key, v);
}

static void dry_walk(gb *b, gb_frame *f, CXCursor body) {
  user_call_scan u = {b, 0};
  clang_visitChildren(body, user_call_visitor, &u);
  if (!b->quiet || !u.found) return;
  graph *g = b->g;
  /* what the dry walk may change, saved */
  gb_store_copy saved;
  if (gb_store_save(b, &saved) != 0) return;
  gb_seen_call seen[GB_SEEN_CALLS];
  memcpy(seen, b->seen, sizeof seen);
  int n_seen = b->n_seen, once_sites = b->once_sites;
  int n_loops = g->n_loops, n_branches = g->n_branches, n_notes = g->n_notes;
  const gb_handlers *h = b->h;
  b->h = b->quiet;
  b->dry = 1;
  b->n_dry_keys = 0;
  gb_walk_stmt(b, f, body);
  b->dry = 0;
  b->h = h;
  /* keys that existed before and now hold another value */
  size_t n_changed = 0;
  const char **changed = malloc((b->n_dry_keys + 1) * sizeof *changed);
  for (size_t i = 0; changed && i < b->n_dry_keys; i++) {
    const char *key = b->dry_keys[i];
    const gval *now = gb_lookup(b, key);
    const gval *old = gb_store_copy_lookup(&saved, key);
    if (old && now && !gval_same(old, now)) changed[n_changed++] = key;
  }
  /* put everything back */
  gb_store_restore(b, &saved);
  memcpy(b->seen, seen, sizeof seen);
  b->n_seen = n_seen;
  b->once_sites = once_sites;
  for (int i = n_loops; i < g->n_loops; i++) {
    free(g->loops[i].var);
    free(g->loops[i].file);
  }
  g->n_loops = n_loops;
  for (int i = n_branches; i < g->n_branches; i++) {
    free(g->branches[i].cond);
    free(g->branches[i].function);
    free(g->branches[i].file);
  }
  g->n_branches = n_branches;
  for (int i = n_notes; i < g->n_notes; i++) {
    free(g->notes[i].file);
    free(g->notes[i].message);
  }
  g->n_notes = n_notes;
  for (size_t i = 0; i < n_changed; i++) carry_key(b, changed[i]);
  free(changed);
}

/* Note [while counter]: `int step = 0; while (step < n) { if (step == 0)
 * {...} ...; step++; }`.  A while loop has no induction variable: its
 * counter is loop-carried (unknown inside the body), so `step == 0` could
 * not be told from any other test and its setup ran every iteration.  The
 * counter is recognised when the body's last statement increments it by
 * one (`step++`, `++step`, `step += 1`, `step = step + 1`), nothing else
 * in the body assigns it, and its value on entry is a constant: then the
 * first iteration is the one with that value.  It stays unknown otherwise
 * (nothing about later iterations is assumed), and a test of it inside a
 * called function (through a parameter) is not recognised. */
typedef struct assign_count {
  gb *b;
  gb_frame *f;
  const char *key;
  int n;
} assign_count;

static enum CXChildVisitResult assign_count_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  assign_count *ac = d;
  enum CXCursorKind k = clang_getCursorKind(c);
  CXCursor ch[2], target = clang_getNullCursor();
  if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
      clang_getCursorBinaryOperatorKind(c) >= CXBinaryOperator_Assign &&
      clang_getCursorBinaryOperatorKind(c) <= CXBinaryOperator_OrAssign && cursor_children(c, ch, 2) == 2)
    target = ch[0];
  else if (k == CXCursor_UnaryOperator &&
           ((clang_getCursorUnaryOperatorKind(c) >= CXUnaryOperator_PostInc &&
             clang_getCursorUnaryOperatorKind(c) <= CXUnaryOperator_PreDec) ||
            clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf) &&
           cursor_children(c, ch, 1) == 1)
    target = ch[0]; /* &step escapes: a callee may assign it */
  if (!clang_Cursor_isNull(target) && plain_lvalue(target)) {
    const char *key = gb_lvalue(ac->b, ac->f, cursor_strip_casts(target), NULL, NULL);
    if (key && strcmp(key, ac->key) == 0) ac->n++;
  }
  return CXChildVisit_Recurse;
}

/* The counter of while-loop body `body` (Note [while counter]): its store
 * key and entry value, or NULL. */
static const char *while_counter(gb *b, gb_frame *f, CXCursor body, int64_t *first) {
  CXCursor last = body;
  if (clang_getCursorKind(body) == CXCursor_CompoundStmt) {
    last = cursor_last_child(body); /* a body of any length */
    if (clang_Cursor_isNull(last)) return NULL;
  }
  last = cursor_strip_casts(last);
  CXCursor ch[2], target;
  enum CXCursorKind k = clang_getCursorKind(last);
  int64_t one;
  if (k == CXCursor_UnaryOperator &&
      (clang_getCursorUnaryOperatorKind(last) == CXUnaryOperator_PostInc ||
       clang_getCursorUnaryOperatorKind(last) == CXUnaryOperator_PreInc) &&
      cursor_children(last, ch, 1) == 1) {
    target = ch[0];
  } else if (k == CXCursor_CompoundAssignOperator &&
             clang_getCursorBinaryOperatorKind(last) == CXBinaryOperator_AddAssign &&
             cursor_children(last, ch, 2) == 2 && cursor_eval_int(ch[1], &one) && one == 1) {
    target = ch[0];
  } else if (k == CXCursor_BinaryOperator &&
             clang_getCursorBinaryOperatorKind(last) == CXBinaryOperator_Assign &&
             cursor_children(last, ch, 2) == 2) {
    /* step = step + 1 */
    CXCursor rhs = cursor_strip_casts(ch[1]), rc[2];
    if (clang_getCursorKind(rhs) != CXCursor_BinaryOperator ||
        clang_getCursorBinaryOperatorKind(rhs) != CXBinaryOperator_Add || cursor_children(rhs, rc, 2) != 2 ||
        !cursor_eval_int(rc[1], &one) || one != 1)
      return NULL;
    const char *a = gb_lvalue(b, f, cursor_strip_casts(ch[0]), NULL, NULL);
    const char *c = plain_lvalue(rc[0]) ? gb_lvalue(b, f, cursor_strip_casts(rc[0]), NULL, NULL) : NULL;
    if (!a || !c || strcmp(a, c) != 0) return NULL;
    target = ch[0];
  } else {
    return NULL;
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(target));
  if (!(t.kind >= CXType_Bool && t.kind <= CXType_Int128) || !plain_lvalue(target)) return NULL;
  const char *key = gb_lvalue(b, f, cursor_strip_casts(target), NULL, NULL);
  gval *v = key ? gb_lookup(b, key) : NULL;
  if (!v || v->carried || !int_value_const(b, v, first)) return NULL;
  assign_count ac = {b, f, key, 0};
  clang_visitChildren(body, assign_count_visitor, &ac);
  return ac.n == 1 ? key : NULL;
}

static void walk_train_loop(gb *b, gb_frame *f, CXCursor s) {
  graph *g = b->g;
  b->reached_loop = 1;
  f->is_loop_frame = 1;
  f->keep_names = 1;
  b->loop_frame = f;
  b->h->setup_done(b);
  b->mode = GB_GRAPH;
  CXCursor first = cursor_first_child(s), last = cursor_last_child(s);
  if (!clang_Cursor_isNull(last)) {
    g->loop_body = gb_range(b, last, 1);
    if (clang_getCursorKind(s) == CXCursor_ForStmt) {
      for_parts p;
      for_split(b, s, &p);
      const char *var = NULL;
      gval lo, hi;
      int step = 0;
      const char *step_key = for_shape(b, f, &p, &var, &lo, &hi, &step);
      if (step_key && lo.k == GV_INT && lo.s && hi.s) {
        /* the step counter: symbolic, in scope; its range lets unroll.c
         * follow accesses that move with it (Note [stepped accesses]) */
        gval iv = gb_int(b, sym_var(b->a, var), var, 1);
        iv.ind = 1;
        int64_t l0;
        if (int_value_const(b, &lo, &l0)) {
          b->train_var = var; /* `if (step == lo)` is the first iteration */
          b->train_lo = l0;
        }
        g->train_var = strdup(var);
        g->train_lo = lo.s;
        g->train_hi = hi.s;
        g->train_step = step;
        gb_store(b, step_key, iv);
      } else if (p.has_init) {
        step_key = NULL;
        /* the step counter: symbolic, in scope */
        if (clang_getCursorKind(p.init) == CXCursor_DeclStmt) {
          CXCursor vd[1];
          if (cursor_children(p.init, vd, 1) == 1) {
            char *name = string_and_dispose(clang_getCursorSpelling(vd[0]));
            gval iv = gb_int(b, sym_var(b->a, name), gb_str(b, name), 1);
            iv.ind = 1;
            step_key = var_key(b, f, vd[0], name);
            CXCursor *init;
            int ni = cursor_children_all(vd[0], &init);
            for (int i = 0; i < ni; i++)
              if (clang_isExpression(clang_getCursorKind(init[i])) &&
                  cursor_eval_int(init[i], &b->train_lo))
                b->train_var = gb_str(b, name); /* `if (step == lo)` is the first iteration */
            free(init);
            gb_store(b, step_key, iv);
            free(name);
          }
        }
      }
      forget_carried(b, f, s, step_key, p.has_init ? p.init : clang_getNullCursor());
      if (p.has_cvar) { /* Note [condition variables] */
        dry_walk(b, f, p.cvar);
        walk_decl(b, f, p.cvar);
      }
      dry_walk(b, f, p.body);
      gb_walk_stmt(b, f, p.body);
    } else {
      CXCursor body = clang_getCursorKind(s) == CXCursor_DoStmt ? first : last;
      if (clang_getCursorKind(s) == CXCursor_DoStmt) g->loop_body = gb_range(b, body, 1);
      /* before forget_carried: the counter's entry value */
      b->train_key = while_counter(b, f, body, &b->train_lo);
      forget_carried(b, f, s, NULL, clang_getNullCursor());
      /* `while (Batch *bt = loader.next())`: each iteration declares it
       * first (Note [condition variables]); its calls' state is carried */
      if (clang_getCursorKind(s) == CXCursor_WhileStmt &&
          clang_getCursorKind(first) == CXCursor_VarDecl) {
        dry_walk(b, f, first);
        walk_decl(b, f, first);
      }
      dry_walk(b, f, body);
      gb_walk_stmt(b, f, body);
    }
  }
  b->mode = GB_AFTER;
}

/* Note [once and periodic]: not every `if` inside the iteration is
 * "either arm, any iteration".  Two shapes are common in real trainers and
 * matter for the plan:
 *  - once: lazy initialisation (`if (o->m == NULL) { cudaMalloc(&o->m, n);
 *    cudaMemset(o->m, 0, n); }`, `if (first) { ...; first = 0; }`, `if
 *    (step == 0)` on the training loop's counter at its first value).  Taken
 *    as running every iteration, its memset looks like an exact overwrite
 *    before each update, and the plan drops the optimizer moments after the
 *    update: state lost every step.  So the branch is interpreted as setup
 *    (mode GB_SETUP): its allocations are persistent, carved regions are
 *    collected (handlers.h once_done), its op sites are not ops of the
 *    iteration (the rewriter still instruments them, as it does setup's),
 *    and the graph lists it (graph_branch, kind once).  branches.c knows the
 *    shapes: the branch must itself make its test fail next time.
 *  - periodic: `if (step % N == 0) { evaluate(); }`.  Its ops are graph ops
 *    with graph_op.branch set and phase periodic: they still count as uses
 *    (a drop never crosses them), but their writes are never taken to
 *    overwrite anything (unroll.c), since on most steps they do not run.
 *    A `%` over an inner loop's variable (`l % 2`) is not periodic. */
static int sym_mentions(const sym *s, const char *name) {
  if (!s) return 0;
  if (sym_get_kind(s) == SYM_VAR) return strcmp(sym_var_name(s), name) == 0;
  return sym_mentions(sym_lhs(s), name) || sym_mentions(sym_rhs(s), name);
}

static int record_branch(gb *b, gb_frame *f, CXCursor s, CXCursor cond, graph_branch_kind kind) {
  graph *g = b->g;
  char *file;
  unsigned line, col;
  gb_location(b, s, &file, &line, &col);
  for (int i = 0; i < g->n_branches; i++)
    if (g->branches[i].kind == kind && g->branches[i].line == line &&
        g->branches[i].col == col && strcmp(g->branches[i].file, file) == 0) {
      free(file);
      return i; /* the same statement reached through another call path */
    }
  int id = graph_add_branch(g);
  if (id < 0) {
    free(file);
    return -1;
  }
  graph_branch *br = &g->branches[id];
  br->id = id;
  br->kind = kind;
  br->file = file;
  br->line = line;
  br->col = col;
  br->stmt = gb_range(b, s, 0);
  br->cond = frontend_cursor_text(b->t, cond);
  br->function = string_and_dispose(clang_getCursorSpelling(f->fn));
  return id;
}

static void walk_once(gb *b, gb_frame *f, CXCursor s, CXCursor cond, CXCursor then_s) {
  int id = record_branch(b, f, s, cond, GRAPH_BRANCH_ONCE);
  int first_alloc = b->g->n_allocs, sites = b->once_sites;
  gb_mode saved = b->mode;
  b->mode = GB_SETUP;
  b->in_once++;
  gb_walk_stmt(b, f, then_s);
  b->in_once--;
  b->mode = saved;
  b->h->once_done(b, f, first_alloc);
  if (id >= 0) {
    b->g->branches[id].n_allocs += b->g->n_allocs - first_alloc;
    b->g->branches[id].n_sites += b->once_sites - sites;
  }
}

/* The shape of a graph-mode if (branches.c), confirmed with values. */
static branch_shape graph_branch_shape(gb *b, gb_frame *f, CXCursor cond, CXCursor then_s,
                                       int known) {
  CXCursor var = clang_getNullCursor();
  int64_t k = 0;
  branch_shape sh = branch_classify(b->t, cond, then_s, &var, &k);
  if (sh == BRANCH_EQ_CONST) {
    /* `step == 0`: the training loop's counter at its first value */
    gval v = gb_eval(b, f, var);
    int first = b->train_var && v.k == GV_INT && v.s && sym_get_kind(v.s) == SYM_VAR &&
                strcmp(sym_var_name(v.s), b->train_var) == 0 && k == b->train_lo;
    if (!first && b->train_key && k == b->train_lo && plain_lvalue(var)) {
      /* a while loop's counter (Note [while counter]) */
      const char *vk = gb_lvalue(b, f, cursor_strip_casts(var), NULL, NULL);
      first = vk && strcmp(vk, b->train_key) == 0;
    }
    return first ? BRANCH_ONCE : BRANCH_EVERY;
  }
  if (sh == BRANCH_PERIODIC) {
    if (known) return BRANCH_EVERY;
    gval v = gb_eval(b, f, var);
    int64_t c;
    if (int_value_const(b, &v, &c)) return BRANCH_EVERY;
    /* a `%` over an inner loop's variable alternates within one iteration */
    for (int i = 0; i < b->n_loops; i++) {
      const char *lv = b->g->loops[b->loops[i].id].var;
      if (lv && v.k == GV_INT && sym_mentions(v.s, lv)) return BRANCH_EVERY;
    }
  }
  return sh;
}

/* Note [clamp branch]: `if (start + cur > n) cur = n - start;` (the short
 * last batch of an epoch) or `if (v > m) v = m;` inside the iteration.  Its
 * condition depends on the step, so both arms are walked, and walking the
 * then-arm after nothing leaves `cur = n - start`: at the first step the
 * whole epoch's remaining samples, an extent many times the batch.  When
 * the arm lowers v by exactly the amount the condition says it exceeds
 * (E - v == Y - X for `X > Y` or `X >= Y`, `Y < X`, `Y <= X`), the value
 * after the if is min(v, E): exact, not a bound.  The identity is checked
 * by evaluating both sides with the names at three arbitrary values. */
static enum CXChildVisitResult call_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
  *(int *)d = 1;
  return CXChildVisit_Break;
}

/* 1 if e calls something (evaluating it again could record an op twice). */
static int has_call(CXCursor e) {
  int r = clang_getCursorKind(e) == CXCursor_CallExpr;
  if (!r) clang_visitChildren(e, call_visitor, &r);
  return r;
}

static int probe_value_fn(void *ud, const char *name, int64_t *out) {
  size_t h = *(const size_t *)ud;
  for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  *out = (int64_t)(h % 100003u) + 7;
  return 1;
}

/* 1 if s is 0 whatever its names hold (probed at three points). */
static int sym_zero_everywhere(const sym *s) {
  static const size_t seeds[3] = {0x9e3779b9u, 0x85ebca6bu, 0xc2b2ae35u};
  for (int i = 0; i < 3; i++) {
    int64_t v;
    if (sym_is_unknown(s) || sym_eval(s, probe_value_fn, (void *)&seeds[i], &v) != 0 || v != 0)
      return 0;
  }
  return 1;
}

/* The clamp shape (Note [clamp branch]): the key of v, its value before
 * the branch in *old and the clamp E in *lim; NULL if not that shape. */
static const char *clamp_shape(gb *b, gb_frame *f, CXCursor cond, CXCursor then_s, gval *old,
                               gval *lim) {
  CXCursor st = then_s;
  if (clang_getCursorKind(st) == CXCursor_CompoundStmt) {
    CXCursor one[2];
    if (cursor_children(st, one, 2) != 1) return NULL;
    st = one[0];
  }
  st = cursor_strip_casts(st);
  CXCursor as[2], cs[2];
  if (clang_getCursorKind(st) != CXCursor_BinaryOperator ||
      clang_getCursorBinaryOperatorKind(st) != CXBinaryOperator_Assign || cursor_children(st, as, 2) != 2)
    return NULL;
  cond = cursor_strip_casts(cond);
  if (clang_getCursorKind(cond) != CXCursor_BinaryOperator || cursor_children(cond, cs, 2) != 2)
    return NULL;
  enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
  CXCursor x, y; /* the condition as x > y or x >= y */
  if (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE) {
    x = cs[0];
    y = cs[1];
  } else if (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE) {
    x = cs[1];
    y = cs[0];
  } else {
    return NULL;
  }
  CXType t = clang_getCanonicalType(clang_getCursorType(as[0]));
  if (!(t.kind >= CXType_Bool && t.kind <= CXType_Int128) || !plain_lvalue(as[0]) ||
      has_call(as[1]) || has_call(x) || has_call(y))
    return NULL;
  const char *key = gb_lvalue(b, f, cursor_strip_casts(as[0]), NULL, NULL);
  if (!key) return NULL;
  gval *sv = gb_lookup(b, key);
  if (!sv || sv->k != GV_INT || sv->carried || sym_is_unknown(sv->s)) return NULL;
  gval xv = gb_eval(b, f, x), yv = gb_eval(b, f, y), ev = gb_eval(b, f, as[1]);
  if (xv.k != GV_INT || yv.k != GV_INT || ev.k != GV_INT || !xv.s || !yv.s || !ev.s) return NULL;
  /* the value v is read as inside the condition: named or substituted */
  gval vv = gb_eval(b, f, as[0]);
  if (vv.k != GV_INT || !vv.s) return NULL;
  sym *diff = sym_sub(b->a, sym_sub(b->a, ev.s, vv.s), sym_sub(b->a, yv.s, xv.s));
  if (!sym_zero_everywhere(diff)) return NULL;
  *old = *sv;
  *lim = ev;
  return key;
}

/* Note [arms that return]: both arms of an `if` whose condition is not
 * known are walked, and their effects stay in the store.  An arm that ends
 * the function (`if (init(&m) != 0) { free_model(&m); return 1; }`, or one
 * calling exit/abort) is different: nothing after the `if` runs when it is
 * taken, so what follows sees the state of the path that did not take it.
 * Keeping such an arm's writes would make the code after it read a freed,
 * NULLed buffer as NULL - an optional argument, no access, so a plan could
 * evict a buffer the program uses.  Its ops are still recorded; its store
 * writes are taken back (store.c's undo log) once it has been walked. */

/* 1 if statement s always ends the function: a return, a call of exit or
 * abort, or a block whose last statement does. */
static int ends_function(CXCursor s) {
  for (int guard = 0; guard < 64; guard++) {
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_ReturnStmt) return 1;
    if (k == CXCursor_CompoundStmt) {
      s = cursor_last_child(s); /* a block of any length */
      if (clang_Cursor_isNull(s)) return 0;
      continue;
    }
    CXCursor e = cursor_strip_casts(s);
    if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
    char *name = gb_callee_name(e);
    int r = name && (strcmp(name, "exit") == 0 || strcmp(name, "abort") == 0 ||
                     strcmp(name, "_Exit") == 0 || strcmp(name, "quick_exit") == 0);
    free(name);
    return r;
  }
  return 0;
}

/* One arm of an if; may: the other arm may run instead (the condition is
 * not known), so an arm that ends the function leaves no writes behind. */
static void walk_arm(gb *b, gb_frame *f, CXCursor arm, int may) {
  if (!may || !ends_function(arm)) {
    gb_walk_stmt(b, f, arm);
    return;
  }
  size_t mark = gb_undo_begin(b);
  gb_walk_stmt(b, f, arm);
  gb_undo_end(b, mark);
}

/* Note [integers set in an arm]: when the condition is not known, either
 * arm may run, but the store keeps the value the last walked arm wrote:
 * `if (start > 0) m = 0;` made every later extent in m zero, so the bytes
 * the other path touches were never declared.  An integer an arm changed
 * (to a value other than the one it had before the if) is therefore
 * unknown afterwards: its extents are unknown (the whole allocation from
 * the offset, with a warning), never too small.  The clamp shape (Note
 * [clamp branch]) stores its min() after this.  Pointers keep the last
 * arm's value (their accesses are resolved by the allocation, not sized
 * by it).  The writes stay; the undo log only lists them (it is kept for
 * an enclosing arm that returns). */
static void forget_arm_integers(gb *b, size_t mark) {
  size_t end = b->n_undo;
  for (size_t i = mark; i < end; i++) {
    const gb_undo *u = &b->undo[i];
    gval *cur = gb_lookup(b, u->key);
    if (!cur || cur->k != GV_INT || !cur->s) continue;
    if (u->had && u->v.k == GV_INT && u->v.s &&
        sym_zero_everywhere(sym_sub(b->a, cur->s, u->v.s)))
      continue; /* the same value as before the if */
    cur->s = sym_unknown(b->a);
    cur->text = NULL;
    cur->text_ok = 0;
  }
  b->undo_depth--;
  if (b->undo_depth == 0) b->n_undo = mark;
}

/* Note [condition variables]: `if (int n = rows(b))`, `if (float *p =
 * lookup(k))`, `switch (int k = g())`, `while (T *p = next())`, `for (..; int r =
 * n - i; ..)`.  libclang gives the declared variable as a bare VarDecl child of the statement
 * (an if's C++17 init statement is a DeclStmt instead), which the walk
 * used to skip: the variable was never stored, so an allocation sized by
 * it stayed symbolic ('n' unbound) and a pointer from it was not traced to
 * its cudaMalloc.  It is declared as any local is (walk_decl: the
 * initialiser evaluated, its calls followed), and the condition, which
 * reads it, is then evaluated on its value: known, it prunes the arm that
 * cannot run; unknown, both arms are walked as before.  A loop's variable
 * is declared anew each iteration, so it is walked inside the loop, after
 * the loop-carried values are forgotten (and, for the training loop, after
 * a dry walk of its initialiser, Note [state changed by calls]): a value
 * that depends on the iteration is unknown there, never the first
 * iteration's. */

/* ch: the n children of if statement s. */
static void walk_if_parts(gb *b, gb_frame *f, CXCursor s, const CXCursor *ch, int n) {
  if (n < 2) return;
  /* children: [init] [condvar] cond then [else] - cond is the first
   * expression.  The init is a DeclStmt, the condition variable a bare
   * VarDecl (Note [condition variables]); cond then reads its value. */
  int ci = 0;
  while (ci < n && !clang_isExpression(clang_getCursorKind(ch[ci]))) {
    enum CXCursorKind dk = clang_getCursorKind(ch[ci]);
    if (dk == CXCursor_DeclStmt || dk == CXCursor_VarDecl) gb_walk_stmt(b, f, ch[ci]);
    ci++;
  }
  if (ci >= n) return;
  gval c = gb_eval(b, f, ch[ci]);
  int64_t cv;
  /* a condition fixed for this call path (a NULL argument, a constant)
   * prunes the branch; anything depending on the iteration walks both */
  int known = int_value_const(b, &c, &cv);
  if (b->mode == GB_GRAPH && ci + 1 < n && (!known || cv)) {
    branch_shape sh = graph_branch_shape(b, f, ch[ci], ch[ci + 1], known);
    if (sh == BRANCH_ONCE) {
      walk_once(b, f, s, ch[ci], ch[ci + 1]);
      if (ci + 2 < n && !known) gb_walk_stmt(b, f, ch[ci + 2]);
      return;
    }
    if (sh == BRANCH_PERIODIC) {
      int id = record_branch(b, f, s, ch[ci], GRAPH_BRANCH_PERIODIC);
      int saved = b->cur_branch;
      b->cur_branch = id;
      gb_walk_stmt(b, f, ch[ci + 1]);
      b->cur_branch = saved;
      if (ci + 2 < n) gb_walk_stmt(b, f, ch[ci + 2]);
      return;
    }
  }
  gval old, lim;
  const char *clamp = NULL;
  if (b->mode == GB_GRAPH && !known && ci + 2 == n) clamp = clamp_shape(b, f, ch[ci], ch[ci + 1], &old, &lim);
  size_t mark = 0;
  if (!known) mark = gb_undo_begin(b); /* Note [integers set in an arm] */
  if (ci + 1 < n && (!known || cv)) walk_arm(b, f, ch[ci + 1], !known);
  if (ci + 2 < n && (!known || !cv)) walk_arm(b, f, ch[ci + 2], !known);
  if (!known) forget_arm_integers(b, mark);
  if (clamp) { /* Note [clamp branch] */
    gval v = old;
    v.s = sym_min(b->a, old.s, lim.s);
    v.text = old.text && lim.text ? gb_fmt(b, "(%s < %s ? %s : %s)", old.text, lim.text, old.text,
                                           lim.text) : NULL;
    v.text_ok = v.text && old.text_ok && lim.text_ok;
    v.prec = 0;
    v.ind = 0;
    gb_store(b, clamp, v);
  }
}

/* Five children with an init statement and a condition variable
 * (`if (T x = ...; int y = ...) ... else ...`): all are read. */
static void walk_if(gb *b, gb_frame *f, CXCursor s) {
  CXCursor *ch;
  int n = cursor_children_all(s, &ch);
  walk_if_parts(b, f, s, ch, n);
  free(ch);
}

/* A block's statements in order.  Its own function so that the cursor
 * array stays out of gb_walk_stmt's frame, which every nesting level of
 * an unbraced if/for/while pays (base/stack.h). */
static void walk_compound(gb *b, gb_frame *f, CXCursor s) {
  CXCursor ch[64];
  int n = cursor_children(s, ch, 64);
  CXCursor *all = ch;
  CXCursor *heap = NULL;
  if (n > 64) {
    heap = malloc((size_t)n * sizeof *heap);
    if (!heap) return;
    cursor_children(s, heap, n);
    all = heap;
  }
  for (int i = 0; i < n; i++) {
    b->cur_stmt = all[i];
    b->have_stmt = 1;
    gb_walk_stmt(b, f, all[i]);
    b->cur_stmt = all[i];
    b->have_stmt = 1;
  }
  free(heap);
}

/* `for (auto &l : layers)`: the element is not followed; inside the
 * iteration it is a graph loop of unknown trip count, like a while.
 * Its own function so that the cursor array stays out of gb_walk_stmt's
 * frame, as walk_compound's. */
static void walk_range_for(gb *b, gb_frame *f, CXCursor s) {
  CXCursor *ch;
  int n = cursor_children_all(s, &ch);
  if (n < 1) {
    free(ch);
    return;
  }
  for (int i = 0; i + 1 < n; i++)
    if (clang_isExpression(clang_getCursorKind(ch[i]))) gb_eval(b, f, ch[i]);
  CXCursor body = ch[n - 1];
  free(ch);
  if (b->mode == GB_GRAPH) {
    int id = b->h->graph_loop(b, f, s, body, NULL, NULL, NULL, 0);
    forget_carried(b, f, s, NULL, clang_getNullCursor());
    walk_graph_loop_body(b, f, id, clang_getNullCursor(), body);
  } else {
    gb_walk_stmt(b, f, body);
  }
}

void gb_walk_stmt(gb *b, gb_frame *f, CXCursor s) {
  b->steps++;
  if (stack_too_deep(s, "statement")) return;
  /* Statement cursors reached along different paths differ in their
   * parent data: compare kind and extent instead of clang_equalCursors. */
  if (!clang_Cursor_isNull(b->train_loop) && b->mode == GB_SETUP &&
      clang_getCursorKind(s) == clang_getCursorKind(b->train_loop) &&
      clang_equalRanges(clang_getCursorExtent(s), clang_getCursorExtent(b->train_loop))) {
    walk_train_loop(b, f, s);
    return;
  }
  enum CXCursorKind k = clang_getCursorKind(s);
  if (clang_isExpression(k)) {
    gb_eval(b, f, s);
    return;
  }
  switch (k) {
  case CXCursor_CompoundStmt:
    walk_compound(b, f, s);
    return;
  case CXCursor_VarDecl: /* a condition variable (Note [condition variables]) */
    walk_decl(b, f, s);
    return;
  case CXCursor_DeclStmt: { /* `size_t a = .., b = .., ...`: every declarator */
    CXCursor *ch;
    int n = cursor_children_all(s, &ch);
    for (int i = 0; i < n; i++)
      if (clang_getCursorKind(ch[i]) == CXCursor_VarDecl) walk_decl(b, f, ch[i]);
    free(ch);
    return;
  }
  case CXCursor_ForStmt:
    walk_for(b, f, s);
    return;
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt: {
    /* do: body, condition; while: [condition variable] condition, body */
    CXCursor first = cursor_first_child(s), last = cursor_last_child(s);
    if (clang_Cursor_isNull(first)) return;
    CXCursor body = k == CXCursor_DoStmt ? first : last;
    /* `do { ... } while (0)` (check macros) runs once: not a loop */
    int64_t cv = 1;
    CXCursor cond = k == CXCursor_DoStmt ? last : first;
    if (!clang_equalCursors(first, last) && clang_isExpression(clang_getCursorKind(cond)) &&
        cursor_eval_int(cond, &cv) && cv == 0) {
      if (k == CXCursor_DoStmt) gb_walk_stmt(b, f, body);
      return;
    }
    /* `while (T *p = next())`: declared anew each iteration, before the body */
    CXCursor cv_decl = k == CXCursor_WhileStmt && clang_getCursorKind(first) == CXCursor_VarDecl
                           ? first : clang_getNullCursor();
    if (b->mode == GB_GRAPH) {
      int id = b->h->graph_loop(b, f, s, body, NULL, NULL, NULL, 0);
      forget_carried(b, f, s, NULL, clang_getNullCursor());
      walk_graph_loop_body(b, f, id, cv_decl, body);
    } else {
      if (!clang_Cursor_isNull(cv_decl)) walk_decl(b, f, cv_decl);
      gb_walk_stmt(b, f, body);
    }
    return;
  }
  case CXCursor_CXXForRangeStmt:
    walk_range_for(b, f, s);
    return;
  case CXCursor_IfStmt:
    walk_if(b, f, s);
    return;
  case CXCursor_ReturnStmt: {
    CXCursor ch[1];
    if (cursor_children(s, ch, 1) == 1) f->ret = gb_eval(b, f, ch[0]);
    return;
  }
  case CXCursor_BreakStmt:
  case CXCursor_ContinueStmt:
  case CXCursor_NullStmt:
  case CXCursor_GotoStmt:
    return;
  default: { /* every child, however many (a try with its handlers, a switch's cases) */
    CXCursor *ch;
    int n = cursor_children_all(s, &ch);
    for (int i = 0; i < n; i++) gb_walk_stmt(b, f, ch[i]);
    free(ch);
    return;
  }
  }
}
