/* rewrite_lines.c - line numbers, indentation and #line directives.
 *
 * Policy (docs/rewrite.md, "#line"): inserted text that spans lines is
 * followed by `#line L "path"` and whitespace up to the original column, so
 * the original byte after it keeps its line and column for nvcc errors and
 * debuggers.  Single-line insertions need nothing: they shift no line.
 * Code inside an inserted block is attributed to the line it was inserted
 * at (a `#line` before the block would repeat that number anyway). */
#include <stdlib.h>
#include <string.h>

#include "rewrite/rewrite.h"

int rw_lines_init(rw_lines *l, const char *src, size_t n, const char *path) {
  memset(l, 0, sizeof *l);
  l->src = src;
  l->n = n;
  unsigned count = 1;
  for (size_t i = 0; i < n; i++)
    if (src[i] == '\n') count++;
  l->starts = malloc(count * sizeof *l->starts);
  rw_buf p = {0};
  for (const char *c = path; *c; c++) {
    if (*c == '"' || *c == '\\') rw_buf_putn(&p, "\\", 1);
    rw_buf_putn(&p, c, 1);
  }
  l->path_c = rw_buf_take(&p);
  if (!l->starts || !l->path_c) {
    rw_lines_free(l);
    return -1;
  }
  unsigned k = 0;
  l->starts[k++] = 0;
  for (size_t i = 0; i < n; i++)
    if (src[i] == '\n') l->starts[k++] = (unsigned)i + 1;
  l->count = count;
  return 0;
}

void rw_lines_free(rw_lines *l) {
  free(l->starts);
  free(l->path_c);
  memset(l, 0, sizeof *l);
}

unsigned rw_line_of(const rw_lines *l, unsigned off) {
  unsigned lo = 0, hi = l->count; /* last start <= off */
  while (hi - lo > 1) {
    unsigned mid = lo + (hi - lo) / 2;
    if (l->starts[mid] <= off)
      lo = mid;
    else
      hi = mid;
  }
  return lo + 1;
}

void rw_indent(const rw_lines *l, unsigned off, rw_buf *b) {
  unsigned start = l->starts[rw_line_of(l, off) - 1];
  for (unsigned i = start; i < off && i < l->n; i++)
    rw_buf_putn(b, l->src[i] == '\t' ? "\t" : " ", 1);
}

void rw_line_indent(const rw_lines *l, unsigned off, rw_buf *b) {
  unsigned start = l->starts[rw_line_of(l, off) - 1];
  unsigned i = start;
  while (i < l->n && (l->src[i] == ' ' || l->src[i] == '\t')) i++;
  rw_buf_putn(b, l->src + start, i - start);
}

void rw_line_restore(const rw_lines *l, unsigned off, rw_buf *b) {
  rw_buf_printf(b, "\n#line %u \"%s\"\n", rw_line_of(l, off), l->path_c);
  /* No padding when only the line break follows: no trailing blanks. */
  if (off < l->n && l->src[off] != '\n' && l->src[off] != '\r') rw_indent(l, off, b);
}
