/* trace_stream.c - see trace_stream.h.
 *
 * A byte scanner over the file (getc): outside the events it only tracks
 * strings and nesting to skip values it does not need; each event object
 * is copied, up to TRACE_EVENT_MAX_BYTES, into one buffer and parsed there.
 * Nothing is recursive, so nesting depth costs no stack. */
#include <stdlib.h>
#include <string.h>

#include "report/trace_stream.h"

typedef enum { S_START, S_KEYS, S_ARRAY, S_DONE } stream_state;

struct trace_stream {
  FILE *f;
  long long at;       /* bytes read so far, for messages */
  stream_state state;
  int first;          /* S_ARRAY: no element read yet */
  int truncated;
  char *buf;          /* one event's text */
};

static int next_byte(trace_stream *s) {
  int c = getc(s->f);
  if (c != EOF) s->at++;
  return c;
}

static int skip_ws(trace_stream *s) {
  int c;
  do c = next_byte(s);
  while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
  return c;
}

static int fail(trace_stream *s, char *err, size_t cap, const char *what) {
  snprintf(err, cap, "at byte %lld: %s", s->at, what);
  return -1;
}

/* After the opening quote: the string's first cap-1 bytes in key (NUL
 * terminated).  0, or EOF. */
static int read_string(trace_stream *s, char *key, size_t cap) {
  size_t n = 0;
  for (;;) {
    int c = next_byte(s);
    if (c == EOF) return EOF;
    if (c == '"') break;
    if (c == '\\') {
      if (n + 1 < cap) key[n++] = (char)c;
      c = next_byte(s);
      if (c == EOF) return EOF;
    }
    if (n + 1 < cap) key[n++] = (char)c;
  }
  key[n] = '\0';
  return 0;
}

/* Skips one value whose first byte is c.  Returns the byte after it (the
 * next non-space), or EOF. */
static int skip_value(trace_stream *s, int c) {
  long depth = 0;
  int in_str = 0;
  for (;; c = next_byte(s)) {
    if (c == EOF) return EOF;
    if (in_str) {
      if (c == '\\') {
        if (next_byte(s) == EOF) return EOF;
      } else if (c == '"') {
        in_str = 0;
        if (depth == 0) return skip_ws(s);
      }
      continue;
    }
    if (c == '"') in_str = 1;
    else if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') {
      if (depth == 0) return c; /* a scalar ended by its container */
      if (--depth == 0) return skip_ws(s);
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      return c == ',' ? c : skip_ws(s);
    }
  }
}

trace_stream *trace_stream_new(FILE *f, char *err, size_t cap) {
  trace_stream *s = calloc(1, sizeof *s);
  if (s) s->buf = malloc(TRACE_EVENT_MAX_BYTES + 1);
  if (!s || !s->buf) {
    if (s) free(s);
    snprintf(err, cap, "out of memory");
    return NULL;
  }
  s->f = f;
  s->state = S_START;
  return s;
}

int trace_stream_rewind(trace_stream *s, char *err, size_t cap) {
  if (fseek(s->f, 0, SEEK_SET) != 0) {
    snprintf(err, cap, "cannot read the trace a second time (not a regular file?)");
    return -1;
  }
  clearerr(s->f);
  s->at = 0;
  s->state = S_START;
  s->truncated = 0;
  return 0;
}

int trace_stream_truncated(const trace_stream *s) { return s->truncated; }

void trace_stream_free(trace_stream *s) {
  if (!s) return;
  free(s->buf);
  free(s);
}

/* From the opening '{' (already read): the object's text into s->buf. */
static int capture_event(trace_stream *s, size_t *len, char *err, size_t cap) {
  size_t n = 0;
  long depth = 1;
  int in_str = 0, esc = 0;
  s->buf[n++] = '{';
  while (depth > 0) {
    int c = next_byte(s);
    if (c == EOF) return 0; /* cut short inside an event: it is dropped */
    if (c == '\0') return fail(s, err, cap, "a NUL byte: not a JSON trace");
    if (n >= TRACE_EVENT_MAX_BYTES) {
      char what[96];
      snprintf(what, sizeof what, "an event larger than %d bytes: not a libtidal trace",
               TRACE_EVENT_MAX_BYTES);
      return fail(s, err, cap, what);
    }
    s->buf[n++] = (char)c;
    if (in_str) {
      if (esc) esc = 0;
      else if (c == '\\') esc = 1;
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '{' || c == '[') {
      depth++;
    } else if (c == '}' || c == ']') {
      depth--;
    }
  }
  s->buf[n] = '\0';
  *len = n;
  return 1;
}

int trace_stream_next(trace_stream *s, json_doc **ev, char *err, size_t cap) {
  *ev = NULL;
  int c;
  if (s->state == S_DONE) return 0;
  if (s->state == S_START) {
    c = skip_ws(s);
    if (c == EOF) return fail(s, err, cap, "the file is empty: not a trace");
    if (c == '[') {
      s->state = S_ARRAY;
      s->first = 1;
    } else if (c == '{') {
      s->state = S_KEYS;
    } else {
      return fail(s, err, cap, "not a trace: expected '{' or '['");
    }
  }
  while (s->state == S_KEYS) { /* the top-level object's members, up to "traceEvents" */
    c = skip_ws(s);
    if (c == '}' || c == EOF) break;
    if (c != '"') return fail(s, err, cap, "expected a member name");
    char key[32];
    if (read_string(s, key, sizeof key) == EOF || (c = skip_ws(s)) == EOF) break;
    if (c != ':') return fail(s, err, cap, "expected ':'");
    c = skip_ws(s);
    if (!strcmp(key, "traceEvents") && c == '[') {
      s->state = S_ARRAY;
      s->first = 1;
      break;
    }
    c = skip_value(s, c);
    if (c == EOF || c == '}') break;
    if (c != ',') return fail(s, err, cap, "expected ',' or '}'");
  }
  if (s->state == S_KEYS) {
    snprintf(err, cap, "not a trace: no \"traceEvents\" array");
    return -1;
  }
  /* S_ARRAY: the next element, after the '[' or a ',' */
  c = skip_ws(s);
  if (!s->first) {
    if (c == ']') {
      s->state = S_DONE;
      return 0;
    }
    if (c == EOF) {
      s->truncated = 1;
      s->state = S_DONE;
      return 0;
    }
    if (c != ',') return fail(s, err, cap, "expected ',' or ']' after an event");
    c = skip_ws(s);
  } else if (c == ']') {
    s->state = S_DONE;
    return 0;
  }
  s->first = 0;
  if (c == EOF) {
    s->truncated = 1;
    s->state = S_DONE;
    return 0;
  }
  if (c != '{') return fail(s, err, cap, "expected an event object");
  size_t len = 0;
  int r = capture_event(s, &len, err, cap);
  if (r < 0) return -1;
  if (r == 0) {
    s->truncated = 1;
    s->state = S_DONE;
    return 0;
  }
  char perr[160];
  json_doc *d = json_parse(s->buf, len, NULL, perr, sizeof perr);
  if (!d) {
    char what[200];
    snprintf(what, sizeof what, "in the event ending here: %s", perr);
    return fail(s, err, cap, what);
  }
  *ev = d;
  return 1;
}
