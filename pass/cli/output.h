/* output.h - writing a command's output safely.
 *
 * A regular file (or a new path) is written to a temporary beside it and
 * renamed over it only once complete, so a failed run never leaves a
 * half-written (or any new) output file.  Stdout ("-" or no -o), a
 * character or block device (/dev/null) and a FIFO cannot be renamed over:
 * their output is collected in memory and streamed to them by
 * output_commit, so a failed run writes nothing there either, and the node
 * stays what it was.  Anything else is refused before any work is done
 * (output_check): a directory, a symbolic link to a file (the link would be
 * replaced), a socket, and any file the command reads (output_protect)
 * under any name: the same path, another spelling, a link, a folder output
 * whose file lands on an input. */
#ifndef TIDAL_PASS_OUTPUT_H
#define TIDAL_PASS_OUTPUT_H

#include <stdio.h>
#include <stddef.h>

typedef struct output_file {
  FILE *fp;        /* write here */
  char *path;      /* final destination, NULL for stdout */
  char *tmp_path;  /* the temporary being written, NULL when streaming */
  char *buf;       /* streaming: what was written (open_memstream) */
  size_t buf_n;
} output_file;

/* Records a file the command reads (an input, a header the parse
 * included, a trace, a cost file): every later output_check and
 * output_open refuses a path that is the same file (device and inode, so
 * any spelling or hard link), naming it.  A path that does not exist is
 * not recorded (nothing to destroy).  Process-wide: tidal runs one command
 * per process. */
void output_protect(const char *path);

/* Refuses an output path tidal must not write: prints
 * "OUT: error: ..." and returns TIDAL_EXIT_BAD_INPUT, else 0.
 * output_open checks again; this lets a command refuse before its
 * analysis runs, and a folder output check every file before writing
 * any. */
int output_check(const char *path);

/* Opens the temporary, or the in-memory stream for stdout (path NULL or
 * "-"), devices and FIFOs.  Returns 0, or prints "tidal: error: ..." and
 * returns TIDAL_EXIT_BAD_INPUT. */
int output_open(output_file *out, const char *path);
/* Renames the complete temporary into place, or writes the collected
 * output to the stream.  Returns 0, or prints an error, removes the
 * temporary and returns TIDAL_EXIT_BAD_INPUT. */
int output_commit(output_file *out);
/* Closes and removes the temporary; the destination is untouched.  Safe
 * after a failed open, and a no-op after commit. */
void output_abort(output_file *out);

/* Writes len bytes of data to path (stdout when NULL) via the above. */
int output_write_all(const char *path, const char *data, size_t len);

#endif
