/* cxstring.c - see cxstring.h. */
#include <stdlib.h>
#include <string.h>

#include "base/cxstring.h"

char *string_and_dispose(CXString s) {
  const char *c = clang_getCString(s);
  char *r = strdup(c ? c : "");
  clang_disposeString(s);
  return r;
}
