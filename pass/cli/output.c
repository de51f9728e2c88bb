/* output.c - safe output files (output.h).
 *
 * Regular files: the temporary lives in the destination's directory
 * (rename(2) is atomic only within one file system), named
 * "<dest>.tmp.XXXXXX" by mkstemp with <dest> shortened so the name fits
 * NAME_MAX (a 250-character output name must work), and is removed on
 * every failure path.  An existing destination is only replaced by a
 * complete new one.
 *
 * Anything that is not a regular file is never renamed over: renaming a
 * file over /dev/null replaces the device node (as root, the system's), and
 * over a symbolic link replaces the link.  Devices and FIFOs are streams,
 * written once the output is complete; links to files, directories and
 * sockets are refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "cli/output.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

static const char tmp_suffix[] = ".tmp.XXXXXX";

static int is_stream(mode_t m) { return S_ISCHR(m) || S_ISBLK(m) || S_ISFIFO(m); }

/* Note [protected files]
 * The files a command reads, by device and inode: a path is the same file
 * whatever its spelling ("./", "..", an absolute path, a symbolic or hard
 * link), and a folder output (`rewrite -o ./`) computes each file's path
 * itself, so comparing names would miss cases that destroy an input. */
typedef struct protected_file {
  dev_t dev;
  ino_t ino;
  char *name; /* as the command named it, for the message */
} protected_file;

static protected_file *protected_files;
static int n_protected, cap_protected;
static int protect_failed; /* out of memory recording one: refuse every existing output */

void output_protect(const char *path) {
  struct stat st;
  if (!path || !strcmp(path, "-") || stat(path, &st) != 0) return;
  /* devices and FIFOs are not destroyed by writing (they are streamed to) */
  if (!S_ISREG(st.st_mode)) return;
  for (int i = 0; i < n_protected; i++)
    if (protected_files[i].dev == st.st_dev && protected_files[i].ino == st.st_ino) return;
  if (n_protected == cap_protected) {
    int nc = cap_protected ? cap_protected * 2 : 64;
    protected_file *np = realloc(protected_files, (size_t)nc * sizeof *np);
    if (!np) {
      protect_failed = 1;
      return;
    }
    protected_files = np;
    cap_protected = nc;
  }
  char *name = strdup(path);
  if (!name) {
    protect_failed = 1;
    return;
  }
  protected_files[n_protected++] = (protected_file){st.st_dev, st.st_ino, name};
}

int output_check(const char *path) {
  struct stat ls, ts;
  if (!path || !strcmp(path, "-")) return 0;
  if (!*path) {
    diag_error(NULL, 0, 0, "-o needs a file name");
    return TIDAL_EXIT_BAD_INPUT;
  }
  if (lstat(path, &ls) != 0) return 0; /* a new file (or an error open reports) */
  int followed = stat(path, &ts) == 0;
  if (protect_failed && followed && S_ISREG(ts.st_mode)) {
    diag_error(path, 0, 0, "out of memory recording the input files; an existing file is not "
               "replaced");
    return TIDAL_EXIT_BAD_INPUT;
  }
  for (int i = 0; followed && i < n_protected; i++)
    if (protected_files[i].dev == ts.st_dev && protected_files[i].ino == ts.st_ino) {
      diag_error(path, 0, 0, "the output is the input file '%s'; tidal only reads its input "
                 "(choose another -o)", protected_files[i].name);
      return TIDAL_EXIT_BAD_INPUT;
    }
  if (S_ISREG(ls.st_mode) || is_stream(ls.st_mode)) return 0;
  if (S_ISLNK(ls.st_mode)) {
    if (followed && is_stream(ts.st_mode)) return 0; /* /dev/stdout, a link to a FIFO */
    diag_error(path, 0, 0, "the output is a symbolic link; tidal replaces only regular files "
               "(name the link's target instead)");
    return TIDAL_EXIT_BAD_INPUT;
  }
  diag_error(path, 0, 0, "the output is %s, not a regular file",
             S_ISDIR(ls.st_mode) ? "a directory" : "a socket or other special file");
  return TIDAL_EXIT_BAD_INPUT;
}

/* The streaming form: the whole output in memory, written at commit. */
static int open_stream(output_file *out, const char *path) {
  if (path) {
    out->path = strdup(path);
    if (!out->path) {
      diag_error(NULL, 0, 0, "out of memory");
      return TIDAL_EXIT_BAD_INPUT;
    }
  }
  out->fp = open_memstream(&out->buf, &out->buf_n);
  if (!out->fp) {
    diag_error(path ? path : "<stdout>", 0, 0, "cannot buffer the output: %s", strerror(errno));
    output_abort(out);
    return TIDAL_EXIT_BAD_INPUT;
  }
  return 0;
}

int output_open(output_file *out, const char *path) {
  memset(out, 0, sizeof *out);
  if (!path || !strcmp(path, "-")) return open_stream(out, NULL);
  if (output_check(path) != 0) return TIDAL_EXIT_BAD_INPUT;
  struct stat st;
  if (stat(path, &st) == 0 && is_stream(st.st_mode)) return open_stream(out, path);
  size_t n = strlen(path);
  const char *slash = strrchr(path, '/');
  size_t dir_n = slash ? (size_t)(slash - path) + 1 : 0;
  size_t base_n = n - dir_n;
  if (base_n > NAME_MAX - (sizeof tmp_suffix - 1)) base_n = NAME_MAX - (sizeof tmp_suffix - 1);
  out->path = malloc(n + 1);
  out->tmp_path = malloc(dir_n + base_n + sizeof tmp_suffix);
  if (!out->path || !out->tmp_path) {
    diag_error(NULL, 0, 0, "out of memory");
    goto fail;
  }
  memcpy(out->path, path, n + 1);
  memcpy(out->tmp_path, path, dir_n + base_n);
  memcpy(out->tmp_path + dir_n + base_n, tmp_suffix, sizeof tmp_suffix);
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

static int write_fd(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int commit_stream(output_file *out) {
  const char *name = out->path ? out->path : "<stdout>";
  int err = ferror(out->fp);
  if (fclose(out->fp) != 0) err = 1;
  out->fp = NULL;
  if (err) {
    diag_error(name, 0, 0, "buffering the output failed: %s", strerror(errno));
    goto fail;
  }
  int fd = out->path ? open(out->path, O_WRONLY | O_NOCTTY) : STDOUT_FILENO;
  if (fd < 0) {
    diag_error(name, 0, 0, "cannot open the output: %s", strerror(errno));
    goto fail;
  }
  /* stdout may hold text printed before (a FILE buffer): keep the order. */
  if (!out->path) fflush(stdout);
  int wr = write_fd(fd, out->buf, out->buf_n);
  int saved = errno;
  if (out->path && close(fd) != 0 && wr == 0) wr = -1, saved = errno;
  if (wr != 0) {
    diag_error(name, 0, 0, "writing the output failed: %s", strerror(saved));
    goto fail;
  }
  output_abort(out);
  return 0;
fail:
  output_abort(out);
  return TIDAL_EXIT_BAD_INPUT;
}

int output_commit(output_file *out) {
  if (!out->tmp_path) return commit_stream(out);
  int err = ferror(out->fp);
  if (fclose(out->fp) != 0) err = 1;
  out->fp = NULL;
  if (err) {
    diag_error(out->path, 0, 0, "writing the output failed: %s", strerror(errno));
    goto fail;
  }
  /* The destination may have changed since open (a link made meanwhile):
   * never rename over anything but a regular file. */
  struct stat st;
  if (lstat(out->path, &st) == 0 && !S_ISREG(st.st_mode)) {
    diag_error(out->path, 0, 0, "the output is no longer a regular file; not replaced");
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
  if (out->fp) fclose(out->fp);
  out->fp = NULL;
  if (out->tmp_path) unlink(out->tmp_path);
  free(out->tmp_path);
  free(out->path);
  free(out->buf);
  out->tmp_path = out->path = out->buf = NULL;
  out->buf_n = 0;
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
