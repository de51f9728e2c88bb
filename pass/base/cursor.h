/* cursor.h - small libclang cursor questions the kernel analyses share
 * (kernels.c for modes and extents, split.c for elementwise proofs). */
#ifndef TIDAL_PASS_CURSOR_H
#define TIDAL_PASS_CURSOR_H

#include <clang-c/Index.h>

/* 1 for integer types (bool, char ... __int128, enums), through typedefs. */
int cursor_is_integer_type(CXType t);

/* The member a MemberRefExpr names, malloc'd (NULL if none).  clang's CUDA
 * builtins (threadIdx.x) are property references whose cursor spelling is
 * empty: then the last token of the expression. */
char *cursor_member_name(CXCursor e);

#endif
