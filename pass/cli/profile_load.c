/* profile_load.c - reads a TIDAL_PROFILE file (libtidal's runtime/base/profile.c
 * writes it: measured op durations per op site on the CUDA backend) into
 * per-static-op durations for the cost model (`tidal replay --profile`).
 *
 * A profile line is "FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS<TAB>LABEL", and
 * in a version 2 file (first line "# tidal profile v2") "FILE:LINE<TAB>
 * COUNT<TAB>MEAN_SECONDS<TAB>LAUNCH_SECONDS<TAB>LABEL" (runtime/profile.c).  A
 * site of the rewritten program is an op statement of the original source,
 * so it matches the graph op written at that line of a file with the same
 * base name (the profile may come from a machine where the source sat in
 * another directory).  Ops without a matching line keep the roofline
 * estimate; the count of matched ops is returned for the report.
 *
 * Every value is checked before it is used (issue 23): a profile once
 * accepted inf, 1e9-second ops, hex and trailing junk, and the replay then
 * printed "inf" into its JSON.  Numbers are plain decimals (no sign, hex,
 * inf or nan), and a field is refused naming its line and column. */
#include "cli/profile_load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/textfile.h"

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* A plain decimal at s (digits, an optional fraction, an optional
 * exponent): its end, or NULL. */
static const char *decimal_end(const char *s) {
  const char *q = s;
  int digits = 0;
  while (*q >= '0' && *q <= '9') q++, digits++;
  if (*q == '.') {
    q++;
    while (*q >= '0' && *q <= '9') q++, digits++;
  }
  if (!digits) return NULL;
  if (*q == 'e' || *q == 'E') {
    const char *e = q + 1;
    if (*e == '+' || *e == '-') e++;
    if (!(*e >= '0' && *e <= '9')) return NULL;
    while (*e >= '0' && *e <= '9') e++;
    q = e;
  }
  return q;
}

/* A positive integer of at most 18 digits filling [s, end). */
static int parse_count(const char *s, const char *end, unsigned long long *out) {
  unsigned long long v = 0;
  if (s == end || end - s > 18) return 0;
  for (const char *q = s; q < end; q++) {
    if (*q < '0' || *q > '9') return 0;
    v = v * 10 + (unsigned long long)(*q - '0');
  }
  if (v == 0) return 0;
  *out = v;
  return 1;
}

static const char *layout(int version) {
  return version >= 2 ? "FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS<TAB>LAUNCH_SECONDS<TAB>LABEL"
                      : "FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS<TAB>LABEL";
}

static int bad(const char *path, int lineno, int version, const char *line, const char *at,
               const char *why, const char *field, size_t field_n) {
  char q[80];
  text_quote(field, field_n, q, sizeof q);
  diag_error(path, (unsigned)lineno, (unsigned)(at - line) + 1, "%s: '%s' (expected %s)", why, q,
             layout(version));
  return -1;
}

/* A seconds field [s, end): a plain decimal from 0 to
 * PROFILE_MAX_OP_SECONDS.  0, or -1 with a diagnostic naming it. */
static int parse_seconds(const char *path, int lineno, int version, const char *line,
                         const char *s, const char *end, const char *name, double *out) {
  char why[120];
  if (decimal_end(s) != end) {
    snprintf(why, sizeof why, "%s is not a plain decimal number of seconds", name);
    return bad(path, lineno, version, line, s, why, s, (size_t)(end - s));
  }
  errno = 0;
  double v = strtod(s, NULL);
  if (errno || !isfinite(v) || v > PROFILE_MAX_OP_SECONDS) {
    snprintf(why, sizeof why, "%s is out of range (0 to %g seconds an op)", name,
             PROFILE_MAX_OP_SECONDS);
    return bad(path, lineno, version, line, s, why, s, (size_t)(end - s));
  }
  *out = v;
  return 0;
}

/* One line (NUL-terminated, no newline) of a version `version` file. 0, or
 * -1 with a diagnostic. */
static int parse_line(const char *path, int lineno, int version, char *line, profile_line *out) {
  size_t n = strlen(line);
  if (n && line[n - 1] == '\r') line[--n] = '\0';
  char *tab1 = strchr(line, '\t');
  if (!tab1) {
    diag_error(path, (unsigned)lineno, 1, "expected %s", layout(version));
    return -1;
  }
  char *colon = tab1;
  while (colon > line && *colon != ':') colon--;
  if (colon == line || *colon != ':')
    return bad(path, lineno, version, line, line, "the site is not FILE:LINE", line,
               (size_t)(tab1 - line));
  unsigned long long site_line, count;
  if (!parse_count(colon + 1, tab1, &site_line) || site_line > 1000000000ull)
    return bad(path, lineno, version, line, colon + 1, "the site's line is not a positive integer",
               colon + 1, (size_t)(tab1 - colon - 1));
  char *cnt = tab1 + 1, *tab2 = strchr(cnt, '\t');
  char *cnt_end = tab2 ? tab2 : cnt + strlen(cnt);
  if (!parse_count(cnt, cnt_end, &count))
    return bad(path, lineno, version, line, cnt, "COUNT is not a positive integer", cnt,
               (size_t)(cnt_end - cnt));
  if (!tab2) {
    diag_error(path, (unsigned)lineno, (unsigned)(cnt_end - line) + 1, "expected %s",
               layout(version));
    return -1;
  }
  char *mean = tab2 + 1, *tab3 = strchr(mean, '\t');
  char *mean_end = tab3 ? tab3 : mean + strlen(mean);
  double v, launch = -1;
  if (parse_seconds(path, lineno, version, line, mean, mean_end, "MEAN_SECONDS", &v) != 0)
    return -1;
  if (version >= 2) { /* the launch column (runtime/profile.c) */
    if (!tab3) {
      diag_error(path, (unsigned)lineno, (unsigned)(mean_end - line) + 1, "expected %s",
                 layout(version));
      return -1;
    }
    char *ls = tab3 + 1, *tab4 = strchr(ls, '\t');
    char *ls_end = tab4 ? tab4 : ls + strlen(ls);
    if (parse_seconds(path, lineno, version, line, ls, ls_end, "LAUNCH_SECONDS", &launch) != 0)
      return -1;
  }
  *colon = '\0';
  out->file = strdup(line);
  if (!out->file) {
    diag_error(NULL, 0, 0, "out of memory while reading the profile");
    return -1;
  }
  out->line = (unsigned)site_line;
  out->mean_s = v;
  out->launch_s = launch;
  return 0;
}

int profile_read(const char *path, profile *p) {
  memset(p, 0, sizeof *p);
  char *text = NULL;
  size_t len = 0;
  if (textfile_read(path, "profile", PROFILE_MAX_BYTES, &text, &len) != 0) return -1;
  int lineno = 0, cap = 0, rc = 0;
  p->version = 1;
  if (strncmp(text, "# tidal profile v", 17) == 0 && text[17] >= '2' && text[17] <= '9')
    p->version = text[17] - '0';
  for (char *s = text; *s && rc == 0;) {
    char *nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    lineno++;
    if (*s != '#' && *s != '\0' && strcmp(s, "\r") != 0) {
      if (p->n == cap) {
        int nc = cap ? cap * 2 : 64;
        profile_line *nlines = realloc(p->lines, (size_t)nc * sizeof *nlines);
        if (!nlines) {
          diag_error(NULL, 0, 0, "out of memory while reading the profile");
          rc = -1;
          break;
        }
        p->lines = nlines;
        cap = nc;
      }
      if (parse_line(path, lineno, p->version, s, &p->lines[p->n]) != 0) rc = -1;
      else p->n++;
    }
    s = nl ? nl + 1 : s + strlen(s);
  }
  free(text);
  if (rc != 0) profile_free(p);
  return rc;
}

void profile_free(profile *p) {
  for (int i = 0; i < p->n; i++) free(p->lines[i].file);
  free(p->lines);
  memset(p, 0, sizeof *p);
}

int profile_match(const profile *p, const graph *g, double **out, double **launch, int *matched) {
  *out = NULL;
  if (launch) *launch = NULL;
  *matched = 0;
  size_t n = (size_t)(g->n_ops ? g->n_ops : 1);
  double *sec = malloc(n * sizeof *sec), *lsec = malloc(n * sizeof *lsec);
  if (!sec || !lsec) {
    free(sec);
    free(lsec);
    diag_error(NULL, 0, 0, "out of memory while reading the profile");
    return -1;
  }
  for (int i = 0; i < g->n_ops; i++) sec[i] = lsec[i] = -1;
  for (int k = 0; k < p->n; k++) {
    const char *site_file = base_name(p->lines[k].file);
    for (int i = 0; i < g->n_ops; i++) {
      const graph_op *op = &g->ops[i];
      if (op->line == p->lines[k].line && op->file &&
          strcmp(base_name(op->file), site_file) == 0 && sec[i] < 0) {
        sec[i] = p->lines[k].mean_s;
        lsec[i] = p->lines[k].launch_s;
        (*matched)++;
      }
    }
  }
  *out = sec;
  if (launch)
    *launch = lsec;
  else
    free(lsec);
  return 0;
}
