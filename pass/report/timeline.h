/* timeline.h - resident memory over one iteration, from a trace.
 *
 * Reads the Chrome trace-event JSON that libtidal writes (TIDAL_TRACE=FILE,
 * docs/runtime-api.md; `tidal replay --trace` writes the same) and keeps
 * what the picture needs: resident bytes over time (stacked by tensor group
 * when the trace has the "resident by group" counter), the budget, the
 * unmanaged program's footprint, and marks where tidal swapped, prefetched,
 * faulted, dropped or recomputed. */
#ifndef TIDAL_PASS_TIMELINE_H
#define TIDAL_PASS_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

/* Tensor groups, in stacking order (bottom first).  Names as in the
 * trace's "resident by group" counter args. */
enum { TL_PARAMETERS, TL_OPTIMIZER, TL_GRADIENTS, TL_ACTIVATIONS, TL_OTHER, TL_NGROUPS };
extern const char *const timeline_group_names[TL_NGROUPS];

typedef enum tl_mark_kind { TL_SWAP_OUT, TL_PREFETCH, TL_FAULT, TL_RECOMPUTE, TL_DROP, TL_NMARKS } tl_mark_kind;
extern const char *const timeline_mark_names[TL_NMARKS];

typedef struct tl_sample {
  double t;                    /* seconds from the window's start */
  uint64_t resident;           /* all resident bytes */
  uint64_t group[TL_NGROUPS];  /* by group (sums to resident when has_groups) */
  uint64_t budget;             /* 0: none */
} tl_sample;

typedef struct tl_mark {
  double t;
  tl_mark_kind kind;
  uint64_t bytes;
} tl_mark;

typedef struct timeline {
  char *title;
  double span;                 /* seconds covered */
  int iteration;               /* which iteration the window shows, -1: the whole trace */
  int has_groups;
  uint64_t unmanaged_bytes;    /* the program's footprint without tidal (0: unknown) */
  uint64_t peak;               /* highest resident in the window */
  int n_samples;
  tl_sample *samples;
  int n_marks;
  tl_mark *marks;
  int n_ops;                   /* op slices in the window */
} timeline;

/* Builds the timeline of iteration `iteration` (-1: the last complete one;
 * the whole trace when there are no iteration slices) from the trace in f,
 * read from its start, twice (f must be seekable: a regular file).  Memory
 * follows the iteration drawn, not the file.  Returns 0, or -1 with a
 * message in err (no events, no resident-bytes counter, a malformed
 * trace). */
int timeline_from_file(FILE *f, int iteration, timeline *out, char *err, size_t cap);
void timeline_free(timeline *t);

/* Writes the picture as a standalone SVG.  Returns 0, or -1 on a write error. */
int timeline_write_svg(const timeline *t, FILE *fp);

#endif
