/* profile_load.c - reads a TIDAL_PROFILE file (libtidal's runtime/profile.c
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

int profile_load(const char *path, const graph *g, double **out, double **launch, int *matched) {
  *out = NULL;
  if (launch) *launch = NULL;
  *matched = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    diag_error(path, 0, 0, "cannot read the profile: %s", strerror(errno));
    return -1;
  }
  size_t n = (size_t)(g->n_ops ? g->n_ops : 1);
  double *sec = malloc(n * sizeof *sec), *lsec = malloc(n * sizeof *lsec);
  if (!sec || !lsec) {
    fclose(f);
    free(sec);
    free(lsec);
    diag_error(NULL, 0, 0, "out of memory while reading the profile");
    return -1;
  }
  for (int i = 0; i < g->n_ops; i++) sec[i] = lsec[i] = -1;
  char line[4096];
  int lineno = 0, rc = 0, version = 1;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (lineno == 1 && strncmp(line, "# tidal profile v", 17) == 0) version = atoi(line + 17);
    if (line[0] == '#' || line[0] == '\n') continue;
    char *tab1 = strchr(line, '\t');
    char *colon = tab1 ? tab1 : NULL;
    while (colon && colon > line && *colon != ':') colon--;
    unsigned long long count = 0;
    double mean = -1, lmean = -1;
    int want = version >= 2 ? 3 : 2;
    if (!tab1 || colon == line || *colon != ':' ||
        sscanf(tab1 + 1, "%llu\t%lf\t%lf", &count, &mean, &lmean) < want || !(mean >= 0) ||
        (want == 3 && !(lmean >= 0))) {
      diag_error(path, lineno, 1, version >= 2 ? "expected FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS"
                                                 "<TAB>LAUNCH_SECONDS<TAB>LABEL"
                                               : "expected FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS"
                                                 "<TAB>LABEL");
      rc = -1;
      break;
    }
    if (want == 2) lmean = -1; /* version 1: the fourth field is the label */
    *colon = '\0';
    unsigned site_line = (unsigned)strtoul(colon + 1, NULL, 10);
    const char *site_file = base_name(line);
    for (int i = 0; i < g->n_ops; i++) {
      const graph_op *op = &g->ops[i];
      if (op->line == site_line && op->file && strcmp(base_name(op->file), site_file) == 0 &&
          sec[i] < 0) {
        sec[i] = mean;
        lsec[i] = lmean;
        (*matched)++;
      }
    }
  }
  fclose(f);
  if (rc != 0) {
    free(sec);
    free(lsec);
    return rc;
  }
  *out = sec;
  if (launch)
    *launch = lsec;
  else
    free(lsec);
  return 0;
}
