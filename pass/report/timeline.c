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
 *    clock), so samples are sorted before use. */
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/timeline.h"

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

static const json_value *events_of(const json_value *root) {
  if (root && root->kind == JSON_ARRAY) return root;
  const json_value *e = json_get(root, "traceEvents");
  return e && e->kind == JSON_ARRAY ? e : NULL;
}

/* Iteration slices: "B" then "E" on the iterations track. */
static int iterations(const json_value *ev, grow_buf *wins) {
  double open = -1;
  for (const json_value *e = ev->first; e; e = e->next) {
    if ((int)json_num(e, "tid", 0) != TID_ITERATIONS) continue;
    const char *ph = json_str(e, "ph");
    double t = json_num(e, "ts", 0) * 1e-6;
    if (!ph) continue;
    if (!strcmp(ph, "B")) {
      open = t;
    } else if (!strcmp(ph, "E") && open >= 0) {
      window *w = push(wins, sizeof *w);
      if (!w) return -1;
      w->t0 = open;
      w->t1 = t;
      open = -1;
    } else if (!strcmp(ph, "X")) {
      window *w = push(wins, sizeof *w);
      if (!w) return -1;
      w->t0 = t;
      w->t1 = t + json_num(e, "dur", 0) * 1e-6;
    }
  }
  return 0;
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

int timeline_from_trace(const char *text, size_t len, int iteration, timeline *out, char *err,
                        size_t cap) {
  memset(out, 0, sizeof *out);
  out->iteration = -1;
  int truncated = 0;
  json_doc *d = json_parse(text, len, &truncated, err, cap);
  if (!d) return -1;
  const json_value *ev = events_of(json_root(d));
  if (!ev) {
    snprintf(err, cap, "not a trace: no \"traceEvents\" array");
    json_doc_free(d);
    return -1;
  }
  grow_buf wins = {0}, samples = {0}, marks = {0};
  int rc = -1;
  if (iterations(ev, &wins) != 0) goto oom;
  window w = {0, 0};
  int have_window = 0;
  const window *ws = wins.p;
  if (wins.n > 0) {
    int k = iteration < 0 ? wins.n - 1 : iteration;
    if (k >= wins.n) {
      snprintf(err, cap, "the trace has %d complete iteration%s; there is no iteration %d",
               wins.n, wins.n == 1 ? "" : "s", iteration);
      goto out;
    }
    w = ws[k];
    out->iteration = k;
    have_window = 1;
  } else if (iteration >= 0) {
    snprintf(err, cap, "the trace has no iteration slices (the program never called "
                       "tidal_iteration_end)");
    goto out;
  }
  /* Counter state, as events arrive. */
  tl_sample cur;
  memset(&cur, 0, sizeof cur);
  double tmin = 1e300, tmax = -1e300;
  for (const json_value *e = ev->first; e; e = e->next) {
    const char *ph = json_str(e, "ph");
    if (!ph) continue;
    double t = json_num(e, "ts", 0) * 1e-6;
    int tid = (int)json_num(e, "tid", 0);
    if (!strcmp(ph, "M")) continue;
    if (t < tmin) tmin = t;
    if (t > tmax) tmax = t;
    if (!strcmp(ph, "C")) {
      const char *name = json_str(e, "name");
      const json_value *args = json_get(e, "args");
      if (!name || !args) continue;
      tl_sample *s = push(&samples, sizeof *s);
      if (!s) goto oom;
      if (!strcmp(name, "resident bytes")) {
        cur.resident = (uint64_t)json_num(args, "bytes", 0);
      } else if (!strcmp(name, "budget bytes")) {
        cur.budget = (uint64_t)json_num(args, "bytes", 0);
      } else if (!strcmp(name, "allocated bytes")) {
        uint64_t a = (uint64_t)json_num(args, "bytes", 0);
        if (a > out->unmanaged_bytes) out->unmanaged_bytes = a;
      } else if (!strcmp(name, "resident by group")) {
        out->has_groups = 1;
        for (int g = 0; g < TL_NGROUPS; g++)
          cur.group[g] = (uint64_t)json_num(args, timeline_group_names[g], 0);
      }
      *s = cur;
      s->t = t;
      continue;
    }
    if (tid == TID_COMPUTE && (!strcmp(ph, "B") || !strcmp(ph, "X"))) {
      const char *name = json_str(e, "name");
      if (name && strcmp(name, "recompute") && (!have_window || (t >= w.t0 && t <= w.t1)))
        out->n_ops++;
    }
    int mk = mark_kind(e, ph, tid);
    if (mk >= 0 && (!have_window || (t >= w.t0 && t <= w.t1))) {
      tl_mark *m = push(&marks, sizeof *m);
      if (!m) goto oom;
      m->t = t;
      m->kind = (tl_mark_kind)mk;
      const json_value *args = json_get(e, "args");
      m->bytes = (uint64_t)json_num(args, "bytes", 0);
    }
  }
  if (!have_window) {
    w.t0 = tmin < tmax ? tmin : 0;
    w.t1 = tmin < tmax ? tmax : 0;
  }
  /* Samples in time order; keep the state at the window's start, then the
   * samples inside it, then the state at its end. */
  tl_sample *all = samples.p;
  qsort(all, (size_t)samples.n, sizeof *all, by_time);
  grow_buf in = {0};
  tl_sample state;
  memset(&state, 0, sizeof state);
  int k = 0;
  for (; k < samples.n && all[k].t <= w.t0; k++) state = all[k];
  tl_sample *s = push(&in, sizeof *s);
  if (!s) goto oom;
  *s = state;
  s->t = 0;
  for (; k < samples.n && all[k].t <= w.t1; k++) {
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
  out->span = w.t1 - w.t0;
  for (int i = 0; i < in.n; i++)
    if (out->samples[i].resident > out->peak) out->peak = out->samples[i].resident;
  tl_mark *ms = marks.p;
  if (marks.n > 1) /* an iteration with no actions has no marks (and ms is NULL) */
    qsort(ms, (size_t)marks.n, sizeof *ms, mark_by_time);
  for (int i = 0; i < marks.n; i++) ms[i].t -= w.t0;
  out->marks = ms;
  out->n_marks = marks.n;
  marks.p = NULL;
  rc = 0;
  goto out;
oom:
  snprintf(err, cap, "out of memory");
out:
  free(wins.p);
  free(samples.p);
  free(marks.p);
  json_doc_free(d);
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
