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

typedef struct pass_program pass_program;

/* The language a unit is parsed in, as the program's build compiles it
 * (docs/pass-frontend.md, "Which language each input is"). */
typedef enum pass_lang {
  PASS_LANG_CUDA = 0, /* .cu, .cuh: nvcc */
  PASS_LANG_C = 1,    /* .c: the host C compiler */
  PASS_LANG_CXX = 2   /* .cpp, .cc, .cxx, .C: the host C++ compiler */
} pass_lang;

/* One file tidal may read and rewrite: a parsed input (a translation unit
 * of its own) or a project header one of them includes (a view that
 * borrows that unit's tu: main_file is then the header). */
typedef struct pass_tu {
  CXIndex index;
  CXTranslationUnit tu;
  CXFile main_file;
  char *main_path;   /* as given on the command line */
  char *main_source; /* the main file's bytes (rewriter edits these) */
  size_t main_size;
  sym_arena *arena;  /* symbolic expressions for this TU */
  /* Whole-program input (docs/design.md, "Whole-program input"). */
  pass_program *prog; /* every input and header view; NULL only inside frontend.c */
  int file_index;     /* this file's index in the program (graph_range.file) */
  int is_unit;        /* 1: an input with a translation unit of its own */
  pass_lang lang;     /* the language its unit is parsed in (a view: its unit's) */
  int owns_tu, owns_arena;
} pass_tu;

/* The files of one program: prog->files[0..n_units) are the parsed
 * inputs, files[0] the one defining main() (or the first input); project
 * headers follow as the analysis meets them. */
struct pass_program {
  pass_tu **files;       /* grows (moves) when the analysis meets a header */
  int n_files, n_units, cap_files;
  pass_tu **units;       /* copy of files[0..n_units) that never moves (program_units) */
  int n_units_copied;
  CXFileUniqueID *ids;   /* per file, to compare files across translation units */
  sym_arena *arena;      /* shared by every unit */
  char *compat_dir;      /* files under these are not the project's */
  char *cuda_dir;
  struct program_def *defs; /* function definitions by USR (program.c) */
  int n_defs, cap_defs, defs_built;
};

typedef struct frontend_options {
  const char *input;             /* the .cu file (the first of inputs) */
  int n_inputs;                  /* several files forming one program; 0: just input */
  const char *const *inputs;
  const char *compdb_dir;        /* -p DIR, or NULL */
  int n_clang_args;              /* flags after "--" */
  const char *const *clang_args;
} frontend_options;

/* Parses every input (with -p and no input: every entry of
 * compile_commands.json) into one program.  Returns TIDAL_EXIT_OK and *out
 * (the program's first file, the unit defining main()), or prints
 * clang-style diagnostics and returns TIDAL_EXIT_BAD_INPUT (missing file,
 * not CUDA, host-code errors, bad -p) or TIDAL_EXIT_INTERNAL. */
int frontend_parse(const frontend_options *opt, pass_tu **out);
void frontend_dispose(pass_tu *t); /* the whole program; NULL is a no-op */

/* 1 if the cursor's expansion location is in t's main file (compared by
 * file identity, so a cursor of another unit in the same header counts). */
int frontend_in_main_file(const pass_tu *t, CXCursor c);

/* ---- program.c: the files of a whole program ---- */

/* The file view of f (a file of c's translation unit): an input, or a
 * project header (registered on first use); NULL for system headers, the
 * compat folder and the CUDA toolkit. */
pass_tu *program_view_of_file(const pass_tu *t, CXCursor c, CXFile f);
/* The view of the file c's expansion location is in, or NULL. */
pass_tu *program_view_of(const pass_tu *t, CXCursor c);
/* 1 if f (of any unit) is t's main file. */
int program_same_file(const pass_tu *t, CXFile f);
/* The definition of decl in any unit (clang_getCursorDefinition, then the
 * program's definitions by USR); a null cursor if there is none. */
CXCursor program_definition(const pass_tu *t, CXCursor decl);
/* The program's inputs: units[0..n) (the first is t's program's files[0]). */
int program_units(const pass_tu *t, pass_tu *const **units);
/* Calls fn with the name of every file the program's units read (each
 * input and everything it includes, system headers too), so a command can
 * refuse an output that would replace one of them. */
void program_each_file_read(const pass_tu *t, void (*fn)(void *ud, const char *path), void *ud);
void program_free(pass_program *p);
int program_add_unit(pass_program *p, pass_tu *u); /* frontend.c, while parsing */

/* The source text of a cursor's extent (malloc'd), from the main file
 * buffer when possible, else from tokens. */
char *frontend_cursor_text(const pass_tu *t, CXCursor c);

#endif
