/* cursor.c - small libclang cursor questions the kernel analyses share. */
#include "base/cursor.h"

#include <stdlib.h>

#include "base/cxstring.h"

int cursor_is_integer_type(CXType t) {
  t = clang_getCanonicalType(t);
  return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

char *cursor_member_name(CXCursor e) {
  char *s = string_and_dispose(clang_getCursorSpelling(e));
  if (s && *s) return s;
  free(s);
  s = NULL;
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(e);
  CXToken *toks = NULL;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(e), &toks, &n);
  if (n > 0) s = string_and_dispose(clang_getTokenSpelling(tu, toks[n - 1]));
  if (toks) clang_disposeTokens(tu, toks, n);
  return s;
}
