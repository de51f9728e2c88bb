/* sitehomes.c - pointer values an op site passes that no TIDAL_AT reaches
 * (graph_site.args_array, array_wrapped, homes, unnamed in graph.h).
 * sites.c calls it for each op call, after siteacc.c has made the call's
 * accesses and arguments.
 *
 * Note [pointer values at a site]
 * A relocatable allocation's stable address is not mapped (Note
 * [relocatable allocations], relocatable.c): every pointer value that
 * reaches a kernel must be an access the site declares - passed through
 * TIDAL_AT, or sent home by tidal_home before the op when it reaches the
 * op another way (site_homes in rewrite.c) - or be sent home here.  The
 * accesses cover the pointer arguments; what they miss is what a kernel
 * is given inside a value: the pointer fields of a struct argument (the
 * graph declares them only for launches the training loop reaches, and
 * never the elements of an array inside the struct) and, for
 * cudaLaunchKernel, every parameter, whose values sit in the argument
 * array.  So for each kernel parameter that holds pointers, each pointer
 * it holds - a pointer parameter through the array, `*(T **)(args)[i]`, a
 * struct's fields at any depth, `p.a` or `(*(S *)(args)[i]).a`, the
 * elements of arrays in it, `p.w[3]` - that no access of the call
 * declares becomes a home: the rewriter emits tidal_home for it before
 * TIDAL_OP_BEGIN, which the runtime makes exact (NULL and memory that is
 * not tidal's are no-ops, so a field holding neither costs nothing), and
 * again after it, which keeps the allocation resident until the op ends:
 * no access restores what was swapped out of it (homes_in_op in
 * rewrite.c, Note [home residency] in runtime/memory/homehold.c).
 * What cannot be named so - a struct written as an expression with side
 * effects (`make_pair(a, b)`: evaluating it again would repeat them), an
 * array of more than MAX_ARRAY_HOMES pointers, an anonymous member, a
 * struct nested deeper than MAX_DEPTH - is `unnamed`, and then no
 * allocation is relocatable (relocatable.c).  A pointer parameter the
 * kernel never dereferences (mode none) is left alone, as for <<<...>>>
 * launches; a kernel that stores a pointer it is passed is not looked for
 * (docs/limitations.md).
 *
 * Note [argument arrays]
 * cudaLaunchKernel(func, grid, block, args, shmem, stream) reads each
 * kernel argument from the address args[i] holds, so the rewriter cannot
 * wrap an argument in TIDAL_AT where it is written.  When args is one
 * whole argument it may edit and evaluating it again is harmless (pure,
 * no call), the site is array_wrapped: after TIDAL_OP_BEGIN the rewriter
 * declares, for each pointer parameter i the site declares an access
 * through (array_param), `T *tidal_kN_i = TIDAL_AT(*(T **)(args)[i]);`,
 * and a copy of the array, `void *tidal_argsN[n] = {..., &tidal_kN_i,
 * ..., (args)[j], ...}`, with every other element as it was; the call is
 * passed the copy.  The program's own variables and array are untouched,
 * and the launch reads its argument values when it is called (the copy
 * lives until the statement ends).  A struct parameter's fields stay
 * homes: the copy would need each field declared, which only launches the
 * loop reaches have; a parameter pointing to pointers goes home as it does
 * for a <<<...>>> launch (graph_site_arg_wrapped).  Not when args is written
 * in a macro's body: its text at the op would be the macro's invocation,
 * and what the body names need not exist before the statement; such a
 * site is `unnamed`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "graph/opsites.h"
#include "graph/sites.h"

#define MAX_ARRAY_HOMES 64 /* elements of one array inside a struct named one by one */
#define MAX_DEPTH 6        /* nested structs and arrays followed */

typedef struct homes_ctx {
  graph_site *site;
  int call;        /* the statement's op call number */
  const char *who; /* "kernel 'k' parameter 'p'", for `unnamed` */
  int oom;
} homes_ctx;

static char *dup_printf(const char *f, const char *a, const char *b, int i) {
  size_t n = strlen(f) + strlen(a) + strlen(b) + 24;
  char *s = malloc(n);
  if (s) snprintf(s, n, f, a, b, i);
  return s;
}

static void set_unnamed(homes_ctx *x, const char *what) {
  if (x->site->unnamed) return; /* the first reason is enough */
  x->site->unnamed = dup_printf("%s: %s", x->who, what, 0);
  if (!x->site->unnamed) x->oom = 1;
}

/* 1 if the call's accesses declare ptr already (then rewrite.c's
 * site_homes sends it home, or the array copy passes it through TIDAL_AT). */
static int declared(const homes_ctx *x, const char *ptr) {
  for (int i = 0; i < x->site->n_acc; i++)
    if (x->site->acc[i].call == x->call && x->site->acc[i].ptr && !strcmp(x->site->acc[i].ptr, ptr))
      return 1;
  return 0;
}

static void add_home(homes_ctx *x, char *ptr) {
  if (!ptr) {
    x->oom = 1;
    return;
  }
  int dup = declared(x, ptr);
  for (int i = 0; i < x->site->n_homes && !dup; i++) dup = !strcmp(x->site->homes[i], ptr);
  char **v = dup ? NULL : realloc(x->site->homes, (size_t)(x->site->n_homes + 1) * sizeof *v);
  if (dup || !v) {
    if (!dup) x->oom = 1;
    free(ptr);
    return;
  }
  x->site->homes = v;
  v[x->site->n_homes++] = ptr;
}

/* 1 for a pointer that cannot be tidal memory: to a function, or to an
 * incomplete record (a library handle). */
static int never_tidal(CXType ty) { return site_opaque_ptr(ty); }

/* 1 if a value of type ty holds a pointer that may be tidal memory: as
 * site_type_holds_ptrs, base classes' fields included. */
static int holds(CXType ty, int depth) {
  ty = clang_getCanonicalType(ty);
  if (depth > MAX_DEPTH + 1) return 1; /* too deep to tell: leaves() says so */
  switch (ty.kind) {
  case CXType_Pointer:
    return !never_tidal(ty);
  case CXType_ConstantArray:
  case CXType_IncompleteArray:
  case CXType_VariableArray:
  case CXType_DependentSizedArray:
    return holds(clang_getArrayElementType(ty), depth + 1);
  case CXType_Record: {
    CXCursor *ch;
    int n = cursor_children_all(clang_getTypeDeclaration(ty), &ch), found = 0;
    for (int i = 0; i < n && !found; i++) {
      enum CXCursorKind k = clang_getCursorKind(ch[i]);
      if (k == CXCursor_FieldDecl || k == CXCursor_CXXBaseSpecifier)
        found = holds(clang_getCursorType(ch[i]), depth + 1);
    }
    if (n > 0) free(ch);
    return found || n < 0; /* out of memory: as if it did */
  }
  default:
    return 0;
  }
}

/* Every pointer a value of type ty, written `base` (a postfix expression),
 * holds (Note [pointer values at a site]). */
static void leaves(homes_ctx *x, CXType ty, const char *base, int depth) {
  ty = clang_getCanonicalType(ty);
  if (x->oom || !holds(ty, depth)) return;
  if (ty.kind == CXType_Pointer) {
    add_home(x, dup_printf("%s%s", base, "", 0));
    return;
  }
  if (depth >= MAX_DEPTH) {
    set_unnamed(x, "pointers nested too deep to name");
    return;
  }
  if (ty.kind == CXType_ConstantArray) {
    long long n = clang_getNumElements(ty);
    if (n < 0 || n > MAX_ARRAY_HOMES) {
      set_unnamed(x, "an array of too many pointers to name one by one");
      return;
    }
    for (int i = 0; i < (int)n && !x->oom; i++) {
      char *el = dup_printf("%s%s[%d]", base, "", i);
      if (!el) {
        x->oom = 1;
        return;
      }
      leaves(x, clang_getArrayElementType(ty), el, depth + 1);
      free(el);
    }
    return;
  }
  if (ty.kind != CXType_Record) {
    set_unnamed(x, "pointers in a value the pass cannot name");
    return;
  }
  CXCursor decl = clang_getTypeDeclaration(ty);
  CXCursor *fl;
  int nf = cursor_children_all(decl, &fl);
  if (nf < 0) {
    x->oom = 1;
    return;
  }
  for (int i = 0; i < nf && !x->oom; i++) {
    if (clang_getCursorKind(fl[i]) == CXCursor_CXXBaseSpecifier) {
      leaves(x, clang_getCursorType(fl[i]), base, depth + 1); /* its fields, named as ours */
      continue;
    }
    if (clang_getCursorKind(fl[i]) != CXCursor_FieldDecl) continue;
    CXType ft = clang_getCursorType(fl[i]);
    if (!holds(ft, depth + 1)) continue;
    CXString sp = clang_getCursorSpelling(fl[i]);
    const char *name = clang_getCString(sp);
    if (!name || !*name || clang_Cursor_isAnonymousRecordDecl(clang_getTypeDeclaration(ft))) {
      set_unnamed(x, "pointers in an anonymous member");
    } else {
      char *fb = dup_printf("%s.%s", base, name, 0);
      if (fb) leaves(x, ft, fb, depth + 1);
      else x->oom = 1;
      free(fb);
    }
    clang_disposeString(sp);
  }
  free(fl);
}

/* 1 if s is a plain name or member chain (`p`, `cfg.pair`): a postfix
 * expression as it stands. */
static int member_chain(const char *s) {
  if (!s || !*s || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
    return 0;
  for (; *s; s++)
    if (!(*s == '_' || *s == '.' || (*s >= '0' && *s <= '9') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= 'a' && *s <= 'z')))
      return 0;
  return 1;
}

/* A kernel parameter p of the launch that holds pointers but is not
 * itself a pointer (a struct), passed as the argument expression a. */
static void struct_argument(homes_ctx *x, const pass_tu *t, CXCursor a, CXType ty) {
  char *text = site_stmt_text(t, x->site, a);
  if (!text) {
    set_unnamed(x, "a struct holding device pointers written in a macro's body");
  } else if (!site_pure(a)) {
    set_unnamed(x, "a struct holding device pointers written as an expression with side effects");
  } else {
    char *base = member_chain(text) ? strdup(text) : dup_printf("(%s)%s", text, "", 0);
    if (base) leaves(x, ty, base, 0);
    else x->oom = 1;
    free(base);
  }
  free(text);
}

/* cudaLaunchKernel's parameters, each through the array args (whose text
 * is arr: pure, checked by the caller). */
static void array_parameters(homes_ctx *x, CXCursor kd, const kernel_info *ki, const char *arr) {
  int nk = clang_Cursor_getNumArguments(kd);
  for (int p = 0; p < ki->n_params && p < nk && !x->oom; p++) {
    const kernel_param *kp = &ki->params[p];
    CXCursor pd = clang_Cursor_getArgument(kd, (unsigned)p);
    CXType ty = clang_getCanonicalType(clang_getCursorType(pd));
    char who[160];
    snprintf(who, sizeof who, "kernel '%.60s' parameter '%.60s'", ki->name ? ki->name : "?",
             kp->name ? kp->name : "?");
    x->who = who;
    if (kp->is_pointer) {
      /* as opsites.c and siteacc.c name it: declared there unless the
       * kernel never dereferences it */
      if (kp->mode != ACCESS_NONE && !never_tidal(ty))
        add_home(x, dup_printf("*(%s **)(%s)[%d]", kp->elem_type ? kp->elem_type : "void", arr, p));
    } else if (holds(ty, 0)) {
      CXString ts = clang_getTypeSpelling(clang_getCursorType(pd));
      char *base = dup_printf("(*(%s *)(%s)[%d])", clang_getCString(ts), arr, p);
      clang_disposeString(ts);
      if (base) leaves(x, ty, base, 0);
      else x->oom = 1;
      free(base);
    }
  }
}

int sitehomes_add(pass_tu *t, graph_site *site, int call_index, CXCursor call,
                  const kernel_info *ki, unsigned flags) {
  if (site->skip || !ki) return 0;
  homes_ctx x = {site, call_index, "", 0};
  char who[160];
  if (flags & SITEACC_ARGS_ARRAY) {
    if (call_index == 0) site->args_array = 1;
    CXCursor kd = opsite_launched_kernel(call);
    if (clang_Cursor_isNull(kd) || clang_Cursor_getNumArguments(call) < 4) return 0;
    CXCursor arr = clang_Cursor_getArgument(call, 3);
    char *text = site_stmt_text(t, site, arr);
    snprintf(who, sizeof who, "kernel '%.60s'", ki->name ? ki->name : "?");
    x.who = who;
    if (!text) /* what a macro's body names need not exist before the statement */
      set_unnamed(&x, "its argument array is written in a macro's body");
    else if (!site_pure(arr)) /* relocatable.c says so too: pointers to pointers */
      set_unnamed(&x, "its argument array is written as an expression with side effects");
    else
      array_parameters(&x, kd, ki, text);
    /* a parameter pointing to pointers is not passed through TIDAL_AT, as
     * for <<<...>>> launches (graph_site_arg_wrapped): its allocation goes
     * home, the access an unwrapped one */
    for (int i = 0; i < site->n_acc; i++) {
      graph_site_access *ac = &site->acc[i];
      if (ac->call == call_index && ac->array_param >= 0 &&
          ac->array_param < clang_Cursor_getNumArguments(kd) &&
          site_points_to_ptrs(
              clang_getCursorType(clang_Cursor_getArgument(kd, (unsigned)ac->array_param))))
        ac->array_param = -1;
    }
    /* Note [argument arrays] */
    if (call_index == 0 && text && !x.oom && site->n_args >= 4 && site->args[3].wrappable &&
        site->args[3].pure)
      for (int i = 0; i < site->n_acc && !site->array_wrapped; i++)
        site->array_wrapped = site->acc[i].call == 0 && site->acc[i].array_param >= 0;
    if (site->array_wrapped) site->array_text = text;
    else free(text);
    return x.oom ? -1 : 0;
  }
  if (flags & SITEACC_DEPENDENT) return 0; /* a template's argument types are its parameters' */
  int n = clang_Cursor_getNumArguments(call);
  for (int p = 0; p < ki->n_params && p < n && !x.oom; p++) {
    if (ki->params[p].is_pointer) continue; /* an access, or never dereferenced */
    CXCursor a = clang_Cursor_getArgument(call, (unsigned)p);
    CXType ty = clang_getCanonicalType(clang_getCursorType(a));
    if (ty.kind == CXType_Pointer || !holds(ty, 0)) continue;
    snprintf(who, sizeof who, "kernel '%.60s' parameter '%.60s'", ki->name ? ki->name : "?",
             ki->params[p].name ? ki->params[p].name : "?");
    x.who = who;
    struct_argument(&x, t, a, ty);
  }
  return x.oom ? -1 : 0;
}
