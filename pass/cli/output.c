/* output.c - atomic output files.
 *
 * The temporary lives in the destination's directory (rename(2) is atomic
 * only within one file system), named "<dest>.tmp.XXXXXX" by mkstemp, and
 * is removed on every failure path, so a failed command leaves neither a
 * partial output nor a stray temporary.  An existing destination is only
 * replaced by a complete new one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "cli/output.h"

int output_open(output_file *out, const char *path) {
  memset(out, 0, sizeof *out);
  if (!path || !strcmp(path, "-")) {
    out->fp = stdout;
    return 0;
  }
  size_t n = strlen(path);
  out->path = malloc(n + 1);
  out->tmp_path = malloc(n + sizeof ".tmp.XXXXXX");
  if (!out->path || !out->tmp_path) {
    diag_error(NULL, 0, 0, "out of memory");
    goto fail;
  }
  memcpy(out->path, path, n + 1);
  memcpy(out->tmp_path, path, n);
  memcpy(out->tmp_path + n, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
  int fd = mkstemp(out->tmp_path);
  if (fd < 0) {
    diag_error(path, 0, 0, "cannot create output file: %s", strerror(errno));
    free(out->tmp_path);
    out->tmp_path = NULL;
    goto fail;
  }
  /* mkstemp makes 0600; an output file should get the usual umask mode. */
  mode_t um = umask(0);
  umask(um);
  (void)fchmod(fd, 0666 & ~um);
  out->fp = fdopen(fd, "w");
  if (!out->fp) {
    diag_error(path, 0, 0, "cannot open output file: %s", strerror(errno));
    close(fd);
    goto fail;
  }
  return 0;
fail:
  output_abort(out);
  return TIDAL_EXIT_BAD_INPUT;
}

int output_commit(output_file *out) {
  if (!out->path) {
    if (out->fp && fflush(out->fp) != 0) {
      diag_error(NULL, 0, 0, "writing to stdout failed: %s", strerror(errno));
      return TIDAL_EXIT_BAD_INPUT;
    }
    out->fp = NULL;
    return 0;
  }
  int err = ferror(out->fp);
  if (fclose(out->fp) != 0) err = 1;
  out->fp = NULL;
  if (err) {
    diag_error(out->path, 0, 0, "writing the output failed: %s", strerror(errno));
    goto fail;
  }
  if (rename(out->tmp_path, out->path) != 0) {
    diag_error(out->path, 0, 0, "cannot replace the output file: %s", strerror(errno));
    goto fail;
  }
  free(out->tmp_path);
  free(out->path);
  out->tmp_path = out->path = NULL;
  return 0;
fail:
  output_abort(out);
  return TIDAL_EXIT_BAD_INPUT;
}

void output_abort(output_file *out) {
  if (out->fp && out->fp != stdout) fclose(out->fp);
  out->fp = NULL;
  if (out->tmp_path) unlink(out->tmp_path);
  free(out->tmp_path);
  free(out->path);
  out->tmp_path = out->path = NULL;
}

int output_write_all(const char *path, const char *data, size_t len) {
  output_file out;
  int rc = output_open(&out, path);
  if (rc) return rc;
  if (len && fwrite(data, 1, len, out.fp) != len) {
    diag_error(path ? path : "<stdout>", 0, 0, "writing the output failed: %s", strerror(errno));
    output_abort(&out);
    return TIDAL_EXIT_BAD_INPUT;
  }
  return output_commit(&out);
}
