/* output.h - writing a command's output atomically.
 *
 * Output goes to a temporary file beside the destination and is renamed
 * over it only once complete, so a failed run never leaves a half-written
 * (or any new) output file.  With no path, output goes to stdout. */
#ifndef TIDAL_PASS_OUTPUT_H
#define TIDAL_PASS_OUTPUT_H

#include <stdio.h>
#include <stddef.h>

typedef struct output_file {
  FILE *fp;        /* write here */
  char *path;      /* final destination, NULL for stdout */
  char *tmp_path;  /* the temporary being written, NULL for stdout */
} output_file;

/* Opens the temporary (or stdout when path is NULL or "-").  Returns 0, or
 * prints "tidal: error: ..." and returns TIDAL_EXIT_BAD_INPUT. */
int output_open(output_file *out, const char *path);
/* Flushes, closes and renames into place.  Returns 0, or prints an error,
 * removes the temporary and returns TIDAL_EXIT_BAD_INPUT. */
int output_commit(output_file *out);
/* Closes and removes the temporary; the destination is untouched.  Safe
 * after a failed open, and a no-op after commit. */
void output_abort(output_file *out);

/* Writes len bytes of data to path (stdout when NULL) via the above. */
int output_write_all(const char *path, const char *data, size_t len);

#endif
