/* textfile.h - small text files read with limits (profiles, cost files).
 *
 * A file given to tidal may be anything: a directory, /dev/zero, a binary
 * file, a huge log.  textfile_read refuses what cannot be a small text
 * file before it is used: not a regular file or a pipe, larger than a
 * bound, a NUL or other control byte (the line is named).  text_quote
 * renders bytes for a message, so binary input is never echoed raw. */
#ifndef TIDAL_PASS_TEXTFILE_H
#define TIDAL_PASS_TEXTFILE_H

#include <stddef.h>

/* Reads path whole into *text (NUL-terminated, caller frees; *len bytes),
 * at most max_bytes.  Refused, with a "PATH[:LINE]: error: ..." diagnostic
 * and -1: a missing or unreadable file, a directory or device (a FIFO or
 * pipe is read), more than max_bytes, a NUL byte or a control byte other
 * than tab, CR and LF.  `what` names the file's kind in messages
 * ("profile"). */
int textfile_read(const char *path, const char *what, size_t max_bytes, char **text, size_t *len);

/* s[0..n) for a message: printable ASCII as is, other bytes as \xNN, cut
 * with "..." to fit cap (at least 8).  Returns out. */
char *text_quote(const char *s, size_t n, char *out, size_t cap);

#endif
