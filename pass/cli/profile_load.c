/* profile_load.c - reads a TIDAL_PROFILE file (libtidal's runtime/base/profile.c
 * writes it: measured op durations per op site on the CUDA backend) into
 * per-static-op durations for the cost model (`tidal replay --profile`).
 *
 * A profile line is "FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS<TAB>LABEL".  A
 * site of the rewritten program is an op statement of the original source,
 * so it matches the graph op written at that line of a file with the same
 * base name (the profile may come from a machine where the source sat in
 * another directory).  Ops without a matching line keep the roofline
 * estimate; the count of matched ops is returned for the report. */
#include "cli/profile_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int profile_load(const char *path, const graph *g, double **out, int *matched) {
  *out = NULL;
  *matched = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    diag_error(path, 0, 0, "cannot read the profile: %s", strerror(errno));
    return -1;
  }
  double *sec = malloc((size_t)(g->n_ops ? g->n_ops : 1) * sizeof *sec);
  if (!sec) {
    fclose(f);
    diag_error(NULL, 0, 0, "out of memory while reading the profile");
    return -1;
  }
  for (int i = 0; i < g->n_ops; i++) sec[i] = -1;
  char line[4096];
  int lineno = 0, rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n') continue;
    char *tab1 = strchr(line, '\t');
    char *colon = tab1 ? tab1 : NULL;
    while (colon && colon > line && *colon != ':') colon--;
    unsigned long long count = 0;
    double mean = -1;
    if (!tab1 || colon == line || *colon != ':' ||
        sscanf(tab1 + 1, "%llu\t%lf", &count, &mean) != 2 || !(mean >= 0)) {
      diag_error(path, lineno, 1, "expected FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS<TAB>LABEL");
      rc = -1;
      break;
    }
    *colon = '\0';
    unsigned site_line = (unsigned)strtoul(colon + 1, NULL, 10);
    const char *site_file = base_name(line);
    for (int i = 0; i < g->n_ops; i++) {
      const graph_op *op = &g->ops[i];
      if (op->line == site_line && op->file && strcmp(base_name(op->file), site_file) == 0 &&
          sec[i] < 0) {
        sec[i] = mean;
        (*matched)++;
      }
    }
  }
  fclose(f);
  if (rc != 0) {
    free(sec);
    return rc;
  }
  *out = sec;
  return 0;
}
