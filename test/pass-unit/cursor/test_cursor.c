/* test_cursor.c - base/cursor.c on a translation unit parsed from memory:
 * function parameters (a function template's included), type questions
 * (object sizes, never asked of placeholder types; signedness; pointers).
 * Exit 0 when every check holds. */
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/cxstring.h"
#include "../check.h"

static const char SRC[] =
    "typedef unsigned long size_t;\n"
    "typedef int *intp;\n"
    "struct pair { double d; char c; };\n"
    "struct half { unsigned short x; operator float() const; };\n"
    "template <class T> void tmpl(T *out, const T *in, size_t n) {}\n"
    "void plain(float *a, int b) {}\n"
    "void none() {}\n"
    "float conv(half h) { return (float)h; }\n"
    "int g_int; unsigned g_uns; size_t g_size; bool g_bool; char16_t g_c16; long g_long;\n"
    "intp g_intp; int g_arr[3]; pair g_pair; double *g_dp; int &g_ref = g_int;\n"
    "pair *g_pp; void *g_vp;\n";

typedef struct found {
  const char *name;
  CXCursor c;
} found;

static enum CXChildVisitResult find_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  found *f = d;
  char *s = string_and_dispose(clang_getCursorSpelling(c));
  int hit = s && strcmp(s, f->name) == 0;
  free(s);
  if (hit) {
    f->c = c;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static CXCursor find(CXTranslationUnit tu, const char *name) {
  found f = {name, clang_getNullCursor()};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), find_visitor, &f);
  return f.c;
}

static CXType type_of(CXTranslationUnit tu, const char *name) {
  return clang_getCursorType(find(tu, name));
}

static int params(CXTranslationUnit tu, const char *fn, const char *first) {
  CXCursor *p;
  int n = cursor_fn_params(find(tu, fn), &p);
  if (n > 0 && first) {
    char *s = string_and_dispose(clang_getCursorSpelling(p[0]));
    CHECK(strcmp(s, first) == 0);
    free(s);
  }
  if (n > 0) CHECK(clang_getCursorKind(p[n - 1]) == CXCursor_ParmDecl);
  free(p);
  return n;
}

/* The MemberRefExpr of `h.operator float` inside conv's cast: of bound
 * member function type, which clang_Type_getSizeOf must never see. */
static enum CXChildVisitResult member_visitor(CXCursor c, CXCursor parent, CXClientData d) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_MemberRefExpr) {
    *(CXCursor *)d = c;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

int main(void) {
  CXIndex idx = clang_createIndex(0, 0);
  struct CXUnsavedFile f = {"t.cpp", SRC, sizeof SRC - 1};
  const char *args[] = {"-xc++", "-std=c++17"};
  CXTranslationUnit tu = clang_parseTranslationUnit(idx, "t.cpp", args, 2, &f, 1, CXTranslationUnit_None);
  CHECK(tu != NULL);
  if (!tu) return 1;

  /* Parameters: libclang counts -1 arguments for a template. */
  CHECK(clang_Cursor_getNumArguments(find(tu, "tmpl")) == -1);
  CHECK(params(tu, "tmpl", "out") == 3);
  CHECK(params(tu, "plain", "a") == 2);
  CHECK(params(tu, "none", NULL) == 0);

  /* Object sizes: 0 where there is none to ask for. */
  CHECK(cursor_type_bytes(type_of(tu, "g_int")) == 4);
  CHECK(cursor_type_bytes(type_of(tu, "g_pair")) == 16);
  CHECK(cursor_type_bytes(type_of(tu, "g_arr")) == 12);
  CHECK(cursor_type_bytes(type_of(tu, "g_ref")) == 0);
  CHECK(cursor_type_bytes(clang_getCursorResultType(find(tu, "none"))) == 0); /* void */
  CHECK(cursor_type_bytes(clang_getCursorType(find(tu, "none"))) == 0);       /* a function */
  CXCursor mref = clang_getNullCursor();
  clang_visitChildren(find(tu, "conv"), member_visitor, &mref);
  CHECK(!clang_Cursor_isNull(mref));
  CHECK(cursor_type_bytes(clang_getCursorType(mref)) == 0);
  CHECK(cursor_pointee_bytes(type_of(tu, "g_dp")) == 8);
  CHECK(cursor_pointee_bytes(type_of(tu, "g_ref")) == 4);
  CHECK(cursor_pointee_bytes(type_of(tu, "g_pp")) == 16);
  CHECK(cursor_pointee_bytes(type_of(tu, "g_vp")) == 0);
  CHECK(cursor_pointee_bytes(type_of(tu, "g_int")) == 0);

  /* Signedness, through typedefs. */
  CHECK(cursor_is_unsigned_type(type_of(tu, "g_uns")));
  CHECK(cursor_is_unsigned_type(type_of(tu, "g_size")));
  CHECK(cursor_is_unsigned_type(type_of(tu, "g_bool")));
  CHECK(cursor_is_unsigned_type(type_of(tu, "g_c16")));
  CHECK(!cursor_is_unsigned_type(type_of(tu, "g_int")));
  CHECK(!cursor_is_unsigned_type(type_of(tu, "g_long")));

  /* Pointers, through typedefs; arrays and references are not. */
  CHECK(cursor_is_pointer_type(type_of(tu, "g_intp")));
  CHECK(cursor_is_pointer_type(type_of(tu, "g_dp")));
  CHECK(!cursor_is_pointer_type(type_of(tu, "g_arr")));
  CHECK(!cursor_is_pointer_type(type_of(tu, "g_ref")));

  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(idx);
  if (failures) fprintf(stderr, "test_cursor: %d check(s) failed\n", failures);
  return failures != 0;
}
