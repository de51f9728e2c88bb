/* timeline.c - see timeline.h.
 *
 * Decisions:
 *  - The window is one iteration (the "iterations" track's slices), the
 *    last complete one by default: the first iterations are the runtime's
 *    cold start (recording, faults before a plan exists), not the steady
 *    state a user tunes for.
 *  - Counters are step functions: a value holds until the next event of
 *    the same counter, so the state at the window's start is what the last
 *    event before it said.
 *  - Events are taken in timestamp order (a copy's complete slice is
 *    written when it is issued but starts earlier or later on the model's
 *    clock), so samples are sorted before use.
 *  - The trace is streamed twice (trace_stream.h), never held: the first
 *    pass finds the iterations, the second keeps only the window's samples
 *    and marks (and the state at its start).  A trace grows by hundreds of
 *    KB an iteration; reading it whole took about 8 times its size.
 *  - A trace with no events, or no resident-bytes counter, is an error:
 *    an empty picture would say nothing while exiting 0. */
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/timeline.h"
#include "report/trace_stream.h"

const char *const timeline_group_names[TL_NGROUPS] = {"parameters", "optimizer state", "gradients",
                                                      "activations", "other"};
const char *const timeline_mark_names[TL_NMARKS] = {"swap-out", "prefetch", "fault", "recompute",
                                                    "drop"};

enum { TID_COMPUTE = 1, TID_D2H = 2, TID_H2D = 3, TID_RUNTIME = 4, TID_ITERATIONS = 5 };

typedef struct window {
  double t0, t1; /* seconds */
} window;

typedef struct grow_buf {
  void *p;
  int n, cap;
} grow_buf;

static void *push(grow_buf *b, size_t size) {
  if (b->n == b->cap) {
    int cap = b->cap ? b->cap * 2 : 64;
    void *p = realloc(b->p, (size_t)cap * size);
    if (!p) return NULL;
    b->p = p;
    b->cap = cap;
  }
  void *e = (char *)b->p + (size_t)b->n * size;
  memset(e, 0, size);
  b->n++;
  return e;
}

/* Pass 1: the iteration slices ("B" then "E", or "X", on the iterations
 * track), and how many events there are.  1 at the end, -1 on error. */
static int iterations(trace_stream *ts, grow_buf *wins, long long *n_events, char *err,
                      size_t cap) {
  double open = -1;
  json_doc *d;
  int r;
  while ((r = trace_stream_next(ts, &d, err, cap)) == 1) {
    const json_value *e = json_root(d);
    (*n_events)++;
    const char *ph = json_str(e, "ph");
    double t = json_num(e, "ts", 0) * 1e-6;
    int ok = 1;
    if ((int)json_num(e, "tid", 0) == TID_ITERATIONS && ph) {
      if (!strcmp(ph, "B")) {
        open = t;
      } else if (!strcmp(ph, "E") && open >= 0) {
        window *w = push(wins, sizeof *w);
        if ((ok = w != NULL)) *w = (window){open, t};
        open = -1;
      } else if (!strcmp(ph, "X")) {
        window *w = push(wins, sizeof *w);
        if ((ok = w != NULL)) *w = (window){t, t + json_num(e, "dur", 0) * 1e-6};
      }
    }
    json_doc_free(d);
    if (!ok) {
      snprintf(err, cap, "out of memory");
      return -1;
    }
  }
  return r < 0 ? -1 : 1;
}

static int by_time(const void *a, const void *b) {
  double x = ((const tl_sample *)a)->t, y = ((const tl_sample *)b)->t;
  return (x > y) - (x < y);
}

static int mark_by_time(const void *a, const void *b) {
  double x = ((const tl_mark *)a)->t, y = ((const tl_mark *)b)->t;
  return (x > y) - (x < y);
}

/* The mark an event stands for, or -1. */
static int mark_kind(const json_value *e, const char *ph, int tid) {
  const char *name = json_str(e, "name");
  if (!name) return -1;
  if (tid == TID_D2H && (!strcmp(ph, "X") || !strcmp(ph, "b"))) return TL_SWAP_OUT;
  if (tid == TID_H2D && (!strcmp(ph, "X") || !strcmp(ph, "b")))
    return strstr(name, "fault") ? TL_FAULT : TL_PREFETCH;
  if (tid == TID_COMPUTE && !strcmp(ph, "B") && !strcmp(name, "recompute")) return TL_RECOMPUTE;
  if (tid == TID_COMPUTE && !strcmp(ph, "i") && strstr(name, "fault")) return TL_FAULT;
  if (tid == TID_RUNTIME && !strcmp(ph, "i")) {
    if (!strncmp(name, "drop", 4)) return TL_DROP;
    if (strstr(name, "fault")) return TL_FAULT;
  }
  return -1;
}

/* Pass 2 state. */
typedef struct reader {
  timeline *out;
  window w;
  int have_window;
  tl_sample cur;         /* counter state, as events arrive */
  tl_sample before;      /* the latest sample at or before the window's start */
  int have_before;
  int have_resident;     /* a "resident bytes" or "resident by group" counter was seen */
  grow_buf samples;      /* samples inside the window (all of them without one) */
  grow_buf marks;
  double tmin, tmax;
} reader;

/* One event of pass 2.  0, or -1 when out of memory. */
static int take_event(reader *R, const json_value *e) {
  const char *ph = json_str(e, "ph");
  if (!ph || !strcmp(ph, "M")) return 0;
  double t = json_num(e, "ts", 0) * 1e-6;
  int tid = (int)json_num(e, "tid", 0);
  const window *w = &R->w;
  if (t < R->tmin) R->tmin = t;
  if (t > R->tmax) R->tmax = t;
  if (!strcmp(ph, "C")) {
    const char *name = json_str(e, "name");
    const json_value *args = json_get(e, "args");
    if (!name || !args) return 0;
    tl_sample *cur = &R->cur;
    if (!strcmp(name, "resident bytes")) {
      cur->resident = (uint64_t)json_num(args, "bytes", 0);
      R->have_resident = 1;
    } else if (!strcmp(name, "budget bytes")) {
      cur->budget = (uint64_t)json_num(args, "bytes", 0);
    } else if (!strcmp(name, "allocated bytes")) {
      uint64_t a = (uint64_t)json_num(args, "bytes", 0);
      if (a > R->out->unmanaged_bytes) R->out->unmanaged_bytes = a;
    } else if (!strcmp(name, "resident by group")) {
      R->out->has_groups = 1;
      R->have_resident = 1;
      for (int g = 0; g < TL_NGROUPS; g++)
        cur->group[g] = (uint64_t)json_num(args, timeline_group_names[g], 0);
    }
    cur->t = t;
    /* Only what the window needs is kept: the state at its start (the
     * latest sample at or before it; events are not in time order) and
     * the samples inside it, so memory follows the window, not the file. */
    if (R->have_window && t <= w->t0) {
      if (!R->have_before || t >= R->before.t) R->before = *cur, R->have_before = 1;
    } else if (!R->have_window || t <= w->t1) {
      tl_sample *s = push(&R->samples, sizeof *s);
      if (!s) return -1;
      *s = *cur;
    }
    return 0;
  }
  int inside = !R->have_window || (t >= w->t0 && t <= w->t1);
  if (tid == TID_COMPUTE && (!strcmp(ph, "B") || !strcmp(ph, "X"))) {
    const char *name = json_str(e, "name");
    if (name && strcmp(name, "recompute") && inside) R->out->n_ops++;
  }
  int mk = mark_kind(e, ph, tid);
  if (mk >= 0 && inside) {
    tl_mark *m = push(&R->marks, sizeof *m);
    if (!m) return -1;
    m->t = t;
    m->kind = (tl_mark_kind)mk;
    m->bytes = (uint64_t)json_num(json_get(e, "args"), "bytes", 0);
  }
  return 0;
}

int timeline_from_file(FILE *f, int iteration, timeline *out, char *err, size_t cap) {
  memset(out, 0, sizeof *out);
  out->iteration = -1;
  reader R;
  memset(&R, 0, sizeof R);
  R.out = out;
  R.tmin = 1e300;
  R.tmax = -1e300;
  grow_buf wins = {0}, in = {0};
  int rc = -1;
  long long n_events = 0;
  json_doc *d = NULL;
  trace_stream *ts = trace_stream_new(f, err, cap);
  if (!ts) return -1;
  if (iterations(ts, &wins, &n_events, err, cap) < 0) goto out;
  if (n_events == 0) {
    snprintf(err, cap, "the trace has no events: nothing to draw");
    goto out;
  }
  const window *ws = wins.p;
  if (wins.n > 0) {
    int k = iteration < 0 ? wins.n - 1 : iteration;
    if (k >= wins.n) {
      snprintf(err, cap, "the trace has %d complete iteration%s; there is no iteration %d",
               wins.n, wins.n == 1 ? "" : "s", iteration);
      goto out;
    }
    R.w = ws[k];
    out->iteration = k;
    R.have_window = 1;
  } else if (iteration >= 0) {
    snprintf(err, cap, "the trace has no iteration slices (the program never called "
                       "tidal_iteration_end)");
    goto out;
  }
  if (trace_stream_rewind(ts, err, cap) != 0) goto out;
  int r;
  while ((r = trace_stream_next(ts, &d, err, cap)) == 1) {
    int bad = take_event(&R, json_root(d));
    json_doc_free(d);
    d = NULL;
    if (bad) goto oom;
  }
  if (r < 0) goto out;
  if (!R.have_resident) {
    snprintf(err, cap, "the trace has no \"resident bytes\" counter: nothing to draw");
    goto out;
  }
  window w = R.w;
  if (!R.have_window) {
    w.t0 = R.tmin < R.tmax ? R.tmin : 0;
    w.t1 = R.tmin < R.tmax ? R.tmax : 0;
  }
  /* Samples in time order; keep the state at the window's start, then the
   * samples inside it, then the state at its end. */
  tl_sample *all = R.samples.p;
  if (R.samples.n > 1) qsort(all, (size_t)R.samples.n, sizeof *all, by_time);
  tl_sample state = R.before;
  int k = 0;
  for (; k < R.samples.n && all[k].t <= w.t0; k++) state = all[k]; /* no window: the first */
  tl_sample *s = push(&in, sizeof *s);
  if (!s) goto oom;
  *s = state;
  s->t = 0;
  for (; k < R.samples.n && all[k].t <= w.t1; k++) {
    s = push(&in, sizeof *s);
    if (!s) goto oom;
    *s = all[k];
    s->t = all[k].t - w.t0;
    state = all[k];
  }
  s = push(&in, sizeof *s);
  if (!s) goto oom;
  *s = state;
  s->t = w.t1 - w.t0;
  out->samples = in.p;
  out->n_samples = in.n;
  in.p = NULL;
  out->span = w.t1 - w.t0;
  for (int i = 0; i < out->n_samples; i++)
    if (out->samples[i].resident > out->peak) out->peak = out->samples[i].resident;
  tl_mark *ms = R.marks.p;
  if (R.marks.n > 1) /* an iteration with no actions has no marks (and ms is NULL) */
    qsort(ms, (size_t)R.marks.n, sizeof *ms, mark_by_time);
  for (int i = 0; i < R.marks.n; i++) ms[i].t -= w.t0;
  out->marks = ms;
  out->n_marks = R.marks.n;
  R.marks.p = NULL;
  rc = 0;
  goto out;
oom:
  snprintf(err, cap, "out of memory");
out:
  json_doc_free(d);
  trace_stream_free(ts);
  free(wins.p);
  free(in.p);
  free(R.samples.p);
  free(R.marks.p);
  if (rc != 0) timeline_free(out);
  return rc;
}

void timeline_free(timeline *t) {
  if (!t) return;
  free(t->title);
  free(t->samples);
  free(t->marks);
  memset(t, 0, sizeof *t);
}
