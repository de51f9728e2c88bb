/* diag.c - clang-style diagnostics on stderr.
 *
 * Format: "file:line:col: severity: message", "file: severity: ..." without
 * a line, "tidal: severity: ..." without a file, which is what editors and
 * lit's FileCheck patterns expect.  Only errors are counted; the count is
 * process-wide (the tool is single-threaded). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"
#include "base/progress.h"
#include "base/cxstring.h"

static int n_errors;

static void vreport(const char *sev, const char *file, unsigned line, unsigned col,
                    const char *fmt, va_list ap) {
  progress_clear_line();
  if (!file)
    fprintf(stderr, "tidal: ");
  else if (line && col)
    fprintf(stderr, "%s:%u:%u: ", file, line, col);
  else if (line)
    fprintf(stderr, "%s:%u: ", file, line);
  else
    fprintf(stderr, "%s: ", file);
  fprintf(stderr, "%s: ", sev);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void diag_error(const char *file, unsigned line, unsigned col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", file, line, col, fmt, ap);
  va_end(ap);
  n_errors++;
}

void diag_warning(const char *file, unsigned line, unsigned col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning", file, line, col, fmt, ap);
  va_end(ap);
}

void diag_note(const char *file, unsigned line, unsigned col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("note", file, line, col, fmt, ap);
  va_end(ap);
}

/* The spelling location: for a cursor inside a macro expansion this is
 * where the macro's text is, which is what a user can act on. */
static void vreport_at(const char *sev, CXCursor c, const char *fmt, va_list ap) {
  CXFile f;
  unsigned line = 0, col = 0;
  clang_getSpellingLocation(clang_getCursorLocation(c), &f, &line, &col, NULL);
  char *name = f ? string_and_dispose(clang_getFileName(f)) : NULL;
  vreport(sev, name ? name : "<unknown>", line, col, fmt, ap);
  free(name);
}

void diag_error_at(CXCursor c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport_at("error", c, fmt, ap);
  va_end(ap);
  n_errors++;
}

void diag_warning_at(CXCursor c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport_at("warning", c, fmt, ap);
  va_end(ap);
}

int diag_error_count(void) { return n_errors; }
