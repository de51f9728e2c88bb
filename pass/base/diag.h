/* diag.h - clang-style diagnostics for the pass.
 *
 * Every user-facing problem is printed as "file:line:col: error: message"
 * (or "warning:"/"note:") on stderr, so editors and lit tests can point at
 * it.  Exit codes of the tidal tool: 0 success, 1 bad input, 2 internal. */
#ifndef TIDAL_PASS_DIAG_H
#define TIDAL_PASS_DIAG_H

#include <clang-c/Index.h>

enum { TIDAL_EXIT_OK = 0, TIDAL_EXIT_BAD_INPUT = 1, TIDAL_EXIT_INTERNAL = 2 };

#if defined(__GNUC__)
#define TIDAL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TIDAL_PRINTF(a, b)
#endif

/* file may be NULL ("tidal: error: ..."); line/col 0 are omitted. */
void diag_error(const char *file, unsigned line, unsigned col, const char *fmt, ...)
    TIDAL_PRINTF(4, 5);
void diag_warning(const char *file, unsigned line, unsigned col, const char *fmt, ...)
    TIDAL_PRINTF(4, 5);
void diag_note(const char *file, unsigned line, unsigned col, const char *fmt, ...)
    TIDAL_PRINTF(4, 5);
/* The same at a cursor's spelling location. */
void diag_error_at(CXCursor c, const char *fmt, ...) TIDAL_PRINTF(2, 3);
void diag_warning_at(CXCursor c, const char *fmt, ...) TIDAL_PRINTF(2, 3);

/* Number of errors printed so far. */
int diag_error_count(void);

#endif
