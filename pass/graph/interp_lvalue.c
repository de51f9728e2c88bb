/* interp_lvalue.c - lvalues: the store key an lvalue expression names
 * (`acts.ln1`, `p->w[l]`, `*model`, a method's `y_`), its loop-context
 * text, and reading and writing the value stored there.
 *
 * A key is a path into the store (store.c): "f3:acts.ln1", "g:B",
 * "h7[0]", "X[?]" for an element at an index that is not constant (the
 * index is left in b->lv_index for elements.c).  Reading a key that holds
 * nothing gives a name (main's variables, Note [accumulators]) or an
 * unknown; reading a struct copy follows its alias (Note [struct copies],
 * interp_expr.c). */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

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

/* 1 if the variable at key keeps its name when read (globals, main's and
 * the loop function's variables): its integers read as `model.config.C`. */
int gb_key_keeps_names(gb_frame *f, const char *key) {
  int fid = key_frame(key);
  if (fid < 0) return 1;
  gb_frame *kf = frame_by_id(f, fid);
  return kf && kf->keep_names;
}

const char *gb_var_key(gb *b, gb_frame *f, CXCursor decl, const char *name) {
  if (gb_is_global_var(decl)) return gb_fmt(b, "g:%s", name);
  /* locals of the function being walked; a decl of another function (a
   * lambda capture, say) is keyed to the innermost frame anyway */
  return gb_fmt(b, "f%d:%s", f ? f->id : 0, name);
}

/* The object of the method frame f runs (Note [C++ objects]), or NULL. */
const char *gb_this_of(gb *b, gb_frame *f) {
  if (!f) return NULL;
  gval *tv = gb_lookup(b, gb_fmt(b, "f%d:this", f->id));
  return tv && tv->k == GV_ADDR ? tv->path : NULL;
}

static const char *index_path(gb *b, const char *base, gval idx) {
  int64_t c;
  if (idx.k == GV_INT && gb_int_value_const(b, &idx, &c))
    return gb_fmt(b, "%s[%lld]", base, (long long)c);
  return gb_fmt(b, "%s[?]", base);
}

/* A member of the object at path, named after the object as its owner
 * wrote it (`context.m_ws`, not "f3:context.m_ws"). */
const char *gb_member_text(gb *b, const char *obj, const char *field) {
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
    const char *key = gb_var_key(b, f, d, name);
    int global = gb_is_global_var(d);
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
      if (cursor_is_pointer_type(clang_getCursorType(cursor_strip_casts(base))) ||
          cursor_is_pointer_type(clang_getCursorType(base))) {
        gval bv = gb_eval(b, f, base);
        if (bv.k == GV_ADDR) {
          /* the member may itself hold a struct copy (`blk->t` assigned a
           * struct a helper returned): its fields are the copy's */
          res = gb_resolve_alias(b, gb_fmt(b, "%s.%s", gb_resolve_alias(b, bv.path), field));
          *idx_out = bv.index;
          if (bv.text && bv.text[0] == '&' && !strpbrk(bv.text + 1, " +-*/()&"))
            *text = gb_fmt(b, "%s.%s", bv.text + 1, field);
          else if (bv.text)
            *text = gb_fmt(b, "%s->%s", gb_paren(b, bv.text, bv.prec, 0), field);
          *text_ok = bv.text_ok;
        } else if (bv.text) {
          *text = gb_fmt(b, "%s->%s", gb_paren(b, bv.text, bv.prec, 0), field);
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
      const char *obj = gb_this_of(b, f);
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
    if (gb_is_array_expr(ch[0])) {
      const char *bt;
      int bok;
      sym *bidx = NULL;
      const char *bk = lvalue_at(b, f, ch[0], &bt, &bok, &bidx);
      if (bk) res = gb_resolve_alias(b, index_path(b, bk, idx));
      int64_t c0;
      int is_sym = !(idx.k == GV_INT && gb_int_value_const(b, &idx, &c0));
      *idx_out = subscript_index(bidx, bk && strstr(bk, "[?]") != NULL, element_index(&idx),
                                 is_sym);
      int64_t ic;
      if (bt && (b->mode == GB_SETUP || idx.ind) && !idx.carried &&
          gb_int_value_const(b, &idx, &ic))
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
        int is_const = idx.k == GV_INT && gb_int_value_const(b, &idx, &c);
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
      if (bv.text && idx.text)
        *text = gb_fmt(b, "%s[%s]", gb_paren(b, bv.text, bv.prec, 0), idx.text);
      *text_ok = bv.text_ok && idx.text_ok;
    }
    return res;
  }
  if (k == CXCursor_UnaryOperator &&
      clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref) {
    CXCursor ch[1];
    if (cursor_children(e, ch, 1) != 1) return NULL;
    gval pv = gb_eval(b, f, ch[0]);
    if (pv.text && pv.text[0] == '&' && gb_is_plain_lvalue_text(pv.text + 1)) {
      *text = pv.text + 1; /* *&x is x: a name a person can --bind */
      *text_ok = pv.text_ok;
    } else if (pv.text) {
      *text = gb_fmt(b, "*%s", gb_paren(b, pv.text, pv.prec, 0));
      *text_ok = pv.text_ok;
    }
    if (pv.k == GV_ADDR) *idx_out = pv.index;
    return pv.k == GV_ADDR ? gb_resolve_alias(b, pv.path) : NULL;
  }
  if (k == CXCursor_CallExpr && gb_vector_element_call(e, NULL)) /* `layers_[i]` */
    return gb_vector_element_lvalue(b, f, e, text, text_ok, idx_out);
  if (k == CXCursor_CallExpr) return gb_smart_deref_path(b, f, e, text, text_ok); /* `*model` */
  return NULL;
}

/* Note [array parameters]: a parameter declared as an array (`float
 * **targets[]`, `size_t sizes[21]`) is a pointer (C11 6.7.6.3p7), but
 * libclang reports its declared array type, also for the expressions that
 * name it.  Read as an array it would decay to its own address ("f4:targets")
 * instead of the caller's array it holds, and `*(targets[i]) = p` would store
 * nowhere: llm.c's malloc_and_point(float **targets[], ...) carves that way. */
int gb_is_array_expr(CXCursor e) {
  e = cursor_strip_casts(e);
  if (clang_getCursorKind(e) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(e);
    /* a reference to an array (`Spec (&t)[21]`) is the caller's array */
    if (clang_getCursorKind(d) == CXCursor_ParmDecl && gb_is_array_type(clang_getCursorType(d)))
      return 0;
  }
  return gb_is_array_type(clang_getCursorType(e));
}

static gval read_lvalue_as(gb *b, gb_frame *f, const char *key, CXType ty, int decayed,
                           const char *text, int text_ok);

/* Reads the value at key (an lvalue of type ty written as text). */
GB_NOINLINE gval gb_read_lvalue(gb *b, gb_frame *f, const char *key, CXType ty, const char *text,
                                int text_ok) {
  return read_lvalue_as(b, f, key, ty, 0, text, text_ok);
}

/* Reads a parameter declared as an array: the pointer it holds (Note
 * [array parameters]). */
GB_NOINLINE gval gb_read_array_param(gb *b, gb_frame *f, const char *key, CXType ty,
                                     const char *text, int text_ok) {
  return read_lvalue_as(b, f, key, ty, 1, text, text_ok);
}

static gval read_lvalue_as(gb *b, gb_frame *f, const char *key, CXType ty, int decayed,
                           const char *text, int text_ok) {
  gval *st = key ? gb_lookup(b, key) : NULL;
  /* the index of the key's "[?]", when gb_lvalue just made the key */
  sym *index = key && b->lv_key == key ? b->lv_index : NULL;
  int is_ptr = decayed || cursor_is_pointer_type(ty);
  if (!decayed && (gb_is_record_type(ty) || gb_is_array_type(ty))) {
    /* structs and arrays are read by address: copies alias, arrays decay */
    gval v = gb_none_val();
    if (key) {
      v.k = GV_ADDR;
      v.path = gb_is_array_type(ty) ? gb_fmt(b, "%s[0]", key) : key;
      v.index = index;
    }
    v.text = text;
    v.text_ok = text_ok;
    return v;
  }
  /* Does the path live in a frame whose variables keep their names? */
  int keep = key && gb_key_keeps_names(f, key);
  /* an element at a loop index: from the elements setup stored (elements.c) */
  gval ev;
  if (!st && index && gb_element_read(b, key, index, is_ptr, &ev)) {
    ev.text = text; /* the element's own text was written in setup */
    ev.text_ok = text_ok;
    ev.prec = 0;
    st = &ev;
  }
  if (is_ptr) {
    gval v = st ? *st : gb_none_val();
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
    gval v = gb_named_int(b, text, st, 0);
    /* Note [accumulators]: a constant is read as its name, bound to the
     * value.  A stored value written in terms of that name (`off + 64`,
     * from `off += 64`) then becomes the name: left as it was, every
     * later read would evaluate it against the name's newest binding and
     * add 64 again. */
    if (st && st->k == GV_INT && !st->ind && v.k == GV_INT && v.s && sym_get_kind(v.s) == SYM_VAR &&
        strcmp(sym_var_name(v.s), text) == 0 && gb_sym_mentions(st->s, text))
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
void gb_write_lvalue(gb *b, const char *key, const char *text, gval v) {
  if (!key) return;
  if (v.k == GV_DEVPTR && b->mode == GB_SETUP) b->h->pointer_stored(b, key, text, &v);
  gb_store(b, key, v);
}

/* 1 if e is a variable, or a field reached through variables and fields
 * only: its store key can be computed without evaluating a call (which
 * would record an op). */
int gb_plain_lvalue(CXCursor e) {
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
