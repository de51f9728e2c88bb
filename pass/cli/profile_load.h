/* profile_load.h - a TIDAL_PROFILE file as per-graph-op durations. */
#ifndef TIDAL_PASS_PROFILE_LOAD_H
#define TIDAL_PASS_PROFILE_LOAD_H

#include "graph/graph.h"

/* A profile file is at most this large (a line per op site). */
#define PROFILE_MAX_BYTES ((size_t)16 << 20)
/* A mean duration above this is a unit mistake, not an op (seconds). */
#define PROFILE_MAX_OP_SECONDS 3600.0

typedef struct profile_line {
  char *file;       /* the site's file name as written */
  unsigned line;    /* its line */
  double mean_s;    /* mean seconds per instance */
} profile_line;

typedef struct profile {
  profile_line *lines;
  int n;
} profile;

/* Reads and checks path (before any analysis): a text file of at most
 * PROFILE_MAX_BYTES, each line "FILE:LINE<TAB>COUNT<TAB>MEAN_SECONDS<TAB>
 * LABEL" (comments '#', blank lines) with LINE and COUNT positive
 * integers and MEAN_SECONDS a finite decimal from 0 to
 * PROFILE_MAX_OP_SECONDS.  0, or -1 with a "PATH:LINE:COL: error:"
 * diagnostic naming the field. */
int profile_read(const char *path, profile *p);
void profile_free(profile *p);

/* Per graph op: *out (caller frees) gets g->n_ops durations in seconds per
 * instance, -1 where the profile has no line for the op (matched by line
 * and file base name); *matched counts the ops it covers.  -1 when out of
 * memory (with a diagnostic). */
int profile_match(const profile *p, const graph *g, double **out, int *matched);

#endif
