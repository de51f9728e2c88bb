/* cxstring.h - libclang strings as malloc'd C strings.
 *
 * Every stage reads names and file paths out of libclang; the CXString they
 * come in must be disposed exactly once, so they go through this helper. */
#ifndef TIDAL_PASS_CXSTRING_H
#define TIDAL_PASS_CXSTRING_H

#include <clang-c/CXString.h>

/* A malloc'd copy of s ("" for a null string); s is disposed. */
char *string_and_dispose(CXString s);

#endif
