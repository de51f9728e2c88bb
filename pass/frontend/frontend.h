/* frontend.h - parsing a CUDA translation unit with libclang.
 *
 * Owns the CXIndex/CXTranslationUnit, the compat folder flags needed for
 * clang 19 to parse CUDA 13 headers, compile_commands.json lookup (-p), and
 * the scan of diagnostics (libclang reports success even after fatal
 * errors).  Errors in device code do not stop the analysis; errors in host
 * code that make it unanalyzable are reported clang-style and fail. */
#ifndef TIDAL_PASS_FRONTEND_H
#define TIDAL_PASS_FRONTEND_H

#include <clang-c/Index.h>
#include "base/cxstring.h"
#include "base/symexpr.h"

typedef struct pass_tu {
  CXIndex index;
  CXTranslationUnit tu;
  CXFile main_file;
  char *main_path;   /* as given on the command line */
  char *main_source; /* the main file's bytes (rewriter edits these) */
  size_t main_size;
  sym_arena *arena;  /* symbolic expressions for this TU */
} pass_tu;

typedef struct frontend_options {
  const char *input;             /* the .cu file */
  const char *compdb_dir;        /* -p DIR, or NULL */
  int n_clang_args;              /* flags after "--" */
  const char *const *clang_args;
} frontend_options;

/* Parses the input.  Returns TIDAL_EXIT_OK and *out, or prints clang-style
 * diagnostics and returns TIDAL_EXIT_BAD_INPUT (missing file, not CUDA,
 * host-code errors, bad -p) or TIDAL_EXIT_INTERNAL. */
int frontend_parse(const frontend_options *opt, pass_tu **out);
void frontend_dispose(pass_tu *t); /* NULL is a no-op */

/* 1 if the cursor's expansion location is in the main file. */
int frontend_in_main_file(const pass_tu *t, CXCursor c);

/* The source text of a cursor's extent (malloc'd), from the main file
 * buffer when possible, else from tokens. */
char *frontend_cursor_text(const pass_tu *t, CXCursor c);

#endif
