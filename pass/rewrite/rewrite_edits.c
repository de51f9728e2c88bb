/* rewrite_edits.c - the rewriter's text buffer and edit buffer.
 *
 * An edit is an insertion at a main-file byte offset or a replacement of a
 * byte range.  Edits are kept unsorted while the rewriter collects them and
 * sorted once, by (offset, priority, order added), when applied: the output
 * depends only on the set of edits and the order they were added in, so the
 * same input always gives the same bytes.  Overlapping replacements, or an
 * insertion strictly inside a replaced range, are refused rather than
 * guessed at (the rewriter treats that as an internal error).  Also the two
 * small text helpers every emitter shares (comment text, access modes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/rewrite.h"

static int reserve(rw_buf *b, size_t extra) {
  if (b->oom) return -1;
  if (b->n + extra + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + extra + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

void rw_buf_putn(rw_buf *b, const char *s, size_t n) {
  if (reserve(b, n)) return;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

void rw_buf_puts(rw_buf *b, const char *s) { rw_buf_putn(b, s, strlen(s)); }

void rw_buf_printf(rw_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len < 0 || reserve(b, (size_t)len)) {
    b->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, (size_t)len + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)len;
}

char *rw_buf_take(rw_buf *b) {
  char *p = b->oom ? NULL : b->p;
  if (b->oom) free(b->p);
  if (!p && !b->oom) p = calloc(1, 1); /* never written: the empty string */
  b->p = NULL;
  b->n = b->cap = 0;
  b->oom = 0;
  return p;
}

void rw_buf_free(rw_buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

static void add(rw_edits *e, unsigned begin, unsigned end, int prio, const char *text) {
  if (e->oom) return;
  if (e->n == e->cap) {
    int cap = e->cap ? e->cap * 2 : 64;
    rw_edit *items = realloc(e->items, (size_t)cap * sizeof *items);
    if (!items) {
      e->oom = 1;
      return;
    }
    e->items = items;
    e->cap = cap;
  }
  char *copy = strdup(text);
  if (!copy) {
    e->oom = 1;
    return;
  }
  e->items[e->n++] = (rw_edit){begin, end, prio, e->seq++, copy};
}

void rw_edits_insert(rw_edits *e, unsigned off, int prio, const char *text) {
  add(e, off, off, prio, text);
}

void rw_edits_replace(rw_edits *e, unsigned begin, unsigned end, const char *text) {
  add(e, begin, end, RW_PRIO_REPLACE, text);
}

static int edit_cmp(const void *pa, const void *pb) {
  const rw_edit *a = pa, *b = pb;
  if (a->begin != b->begin) return a->begin < b->begin ? -1 : 1;
  if (a->prio != b->prio) return a->prio < b->prio ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int rw_edits_apply(rw_edits *e, const char *src, size_t n, rw_buf *out, unsigned *conflict) {
  if (e->oom) return -1;
  qsort(e->items, (size_t)e->n, sizeof *e->items, edit_cmp);
  size_t pos = 0; /* next source byte to copy */
  for (int i = 0; i < e->n; i++) {
    const rw_edit *ed = &e->items[i];
    if (ed->begin < pos || ed->end > n) { /* inside an earlier replacement */
      if (conflict) *conflict = ed->begin;
      return -1;
    }
    rw_buf_putn(out, src + pos, ed->begin - pos);
    rw_buf_puts(out, ed->text);
    pos = ed->end > ed->begin ? ed->end : ed->begin;
  }
  rw_buf_putn(out, src + pos, n - pos);
  return out->oom ? -1 : 0;
}

void rw_edits_free(rw_edits *e) {
  for (int i = 0; i < e->n; i++) free(e->items[i].text);
  free(e->items);
  memset(e, 0, sizeof *e);
}

/* Appends s to b with any comment terminator defused ("*" "/" -> "* /"),
 * for text that goes inside a comment. */
void rw_put_commented(rw_buf *b, const char *s) {
  for (; s && *s; s++) {
    rw_buf_putn(b, s, 1);
    if (s[0] == '*' && s[1] == '/') rw_buf_putn(b, " ", 1);
    if (s[0] == '\n') rw_buf_puts(b, " * ");
  }
}

/* TIDAL_WRITE promises the runtime that every byte is overwritten (it maps
 * an evicted chunk fresh, without its old data): only a write proven exact
 * may say so; any other write keeps the old bytes by declaring readwrite. */
const char *rw_mode_name(const graph_site_access *a) {
  if (a->mode == ACCESS_READ) return "TIDAL_READ";
  return a->mode == ACCESS_WRITE && a->exact ? "TIDAL_WRITE" : "TIDAL_READWRITE";
}
