/* textfile.c - see textfile.h.
 *
 * The file is opened with O_NONBLOCK so that a FIFO with no writer is not
 * waited on before its type is checked (the flag is cleared for reading),
 * and read in pieces up to the bound plus one byte, so /dev/zero or a huge
 * file costs at most the bound. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/textfile.h"

char *text_quote(const char *s, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char piece[5];
    if (c >= 0x20 && c < 0x7f) snprintf(piece, sizeof piece, "%c", c);
    else snprintf(piece, sizeof piece, "\\x%02x", c);
    size_t pn = strlen(piece);
    if (o + pn + 4 > cap) { /* room for "..." and the NUL */
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    memcpy(out + o, piece, pn);
    o += pn;
  }
  out[o] = '\0';
  return out;
}

int textfile_read(const char *path, const char *what, size_t max_bytes, char **text, size_t *len) {
  *text = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    diag_error(path, 0, 0, "cannot read the %s: %s", what, strerror(errno));
    return -1;
  }
  struct stat st;
  memset(&st, 0, sizeof st);
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    diag_error(path, 0, 0, "the %s is %s, not a text file", what,
               S_ISDIR(st.st_mode) ? "a directory" : "a device or other special file");
    close(fd);
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  char *buf = malloc(max_bytes + 2);
  if (!buf) {
    diag_error(path, 0, 0, "out of memory reading the %s", what);
    close(fd);
    return -1;
  }
  size_t n = 0;
  while (n <= max_bytes) {
    ssize_t r = read(fd, buf + n, max_bytes + 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      diag_error(path, 0, 0, "reading the %s failed: %s", what, strerror(errno));
      goto fail;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  if (n > max_bytes) {
    diag_error(path, 0, 0, "the %s is larger than %zu bytes: not a %s", what, max_bytes, what);
    goto fail;
  }
  unsigned line = 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)buf[i];
    if (c == '\n') line++;
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
      diag_error(path, line, 0, "a %s byte (0x%02x): the %s must be text",
                 c == 0 ? "NUL" : "control", c, what);
      goto fail;
    }
    if (c == 0x7f) {
      diag_error(path, line, 0, "a control byte (0x7f): the %s must be text", what);
      goto fail;
    }
  }
  close(fd);
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return 0;
fail:
  close(fd);
  free(buf);
  return -1;
}
