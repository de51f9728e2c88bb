/* hand_trace.h - a training-shaped op trace built by hand, for the planner
 * and replay unit tests (until then and besides, the pass builds traces from
 * source).
 *
 * L layers.  Forward, per layer l (one scope per layer, graph loop 0):
 *   op "fwd.matmul"  reads x_l (the input for l = 0, else a_{l-1}) and W_l,
 *                    writes h_l                          static op 1
 *   op "fwd.act"     reads h_l, writes a_l               static op 2
 *                    (flags from the builder: KERNEL_RNG makes it a dropout)
 * Top level: "zero_grad" (memset: exact write of all grads, static op 0),
 *   "loss" (reads a_{L-1}, writes g, static op 3).
 * Backward, per layer l = L-1 .. 0 (graph loop 1):
 *   "bwd.act"     reads h_l and g, writes gt             static op 4
 *   "bwd.matmul"  reads gt, x_l, W_l; dW_l += ...; writes g   static op 5
 * Top level: "adamw" reads grads, updates params, m and v   static op 6.
 * So: activations are saved for backward (swap or recompute candidates),
 * grads are dead between adamw and the next zero_grad (a drop), and the
 * optimizer moments sit idle across the iteration boundary.
 * hand_trace_split_adamw makes adamw a split op (elementwise, pieces). */
#ifndef TIDAL_TEST_HAND_TRACE_H
#define TIDAL_TEST_HAND_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/trace.h"

enum { HT_PARAMS, HT_GRADS, HT_MOMENTS, HT_ACTS, HT_INPUT, HT_SCRATCH, HT_NALLOC };

typedef struct ht_builder {
  tidal_trace *t;
  int cap_tensors, cap_ops;
} ht_builder;

static char *ht_strdup(const char *s) {
  char *d = malloc(strlen(s) + 1);
  strcpy(d, s);
  return d;
}

static int ht_tensor(ht_builder *b, const char *name, int alloc, uint64_t off, uint64_t bytes) {
  tidal_trace *t = b->t;
  for (int k = 0; k < t->n_tensors; k++)
    if (strcmp(t->tensors[k].name, name) == 0) return k;
  if (t->n_tensors == b->cap_tensors) {
    b->cap_tensors = b->cap_tensors ? 2 * b->cap_tensors : 32;
    t->tensors = realloc(t->tensors, (size_t)b->cap_tensors * sizeof *t->tensors);
  }
  trace_tensor *tt = &t->tensors[t->n_tensors];
  tt->name = ht_strdup(name);
  tt->alloc = alloc;
  tt->offset = off;
  tt->bytes = bytes;
  return t->n_tensors++;
}

static trace_op *ht_op(ht_builder *b, int static_op, const char *label, int phase, int scope,
                       int static_scope, double flops, unsigned flags) {
  tidal_trace *t = b->t;
  if (t->n_ops == b->cap_ops) {
    b->cap_ops = b->cap_ops ? 2 * b->cap_ops : 64;
    t->ops = realloc(t->ops, (size_t)b->cap_ops * sizeof *t->ops);
  }
  trace_op *op = &t->ops[t->n_ops++];
  memset(op, 0, sizeof *op);
  op->static_op = static_op;
  op->label = ht_strdup(label);
  op->phase = phase;
  op->scope = scope;
  op->static_scope = static_scope;
  op->flops = flops;
  op->flags = flags;
  op->acc = calloc(8, sizeof *op->acc);
  return op;
}

static void ht_acc(ht_builder *b, trace_op *op, int tensor, access_mode mode, int exact) {
  trace_access *a = &op->acc[op->n_acc];
  a->tensor = tensor;
  a->offset = b->t->tensors[tensor].offset;
  a->bytes = b->t->tensors[tensor].bytes;
  a->mode = mode;
  a->exact = exact;
  a->static_access = op->n_acc;
  op->n_acc++;
}

/* act_bytes per activation, w_bytes per layer's weights; fwd_act_flags for
 * the "fwd.act" kernel (0, or KERNEL_RNG for a dropout-like op). */
static tidal_trace *hand_trace(int L, uint64_t act_bytes, uint64_t w_bytes,
                               unsigned fwd_act_flags) {
  ht_builder B = {calloc(1, sizeof(tidal_trace)), 0, 0};
  tidal_trace *t = B.t;
  t->n_allocs = HT_NALLOC;
  t->allocs = calloc(HT_NALLOC, sizeof *t->allocs);
  const char *an[HT_NALLOC] = {"params", "grads", "moments", "acts", "input", "scratch"};
  uint64_t ab[HT_NALLOC] = {L * w_bytes, L * w_bytes, 2 * L * w_bytes, 2 * L * act_bytes,
                            act_bytes, 2 * act_bytes};
  for (int a = 0; a < HT_NALLOC; a++) {
    t->allocs[a].name = ht_strdup(an[a]);
    t->allocs[a].bytes = ab[a];
    t->allocs[a].persistent = 1;
  }
  char name[64], label[96];
  int params = ht_tensor(&B, "params", HT_PARAMS, 0, L * w_bytes);
  int grads = ht_tensor(&B, "grads", HT_GRADS, 0, L * w_bytes);
  int moments = ht_tensor(&B, "moments", HT_MOMENTS, 0, 2 * L * w_bytes);
  int input = ht_tensor(&B, "input", HT_INPUT, 0, act_bytes);
  int g = ht_tensor(&B, "scratch.g", HT_SCRATCH, 0, act_bytes);
  int gt = ht_tensor(&B, "scratch.gt", HT_SCRATCH, act_bytes, act_bytes);
  int *h = calloc((size_t)L, sizeof(int)), *a = calloc((size_t)L, sizeof(int));
  int *W = calloc((size_t)L, sizeof(int)), *dW = calloc((size_t)L, sizeof(int));
  for (int l = 0; l < L; l++) {
    snprintf(name, sizeof name, "acts.h[l=%d]", l);
    h[l] = ht_tensor(&B, name, HT_ACTS, (uint64_t)(2 * l) * act_bytes, act_bytes);
    snprintf(name, sizeof name, "acts.a[l=%d]", l);
    a[l] = ht_tensor(&B, name, HT_ACTS, (uint64_t)(2 * l + 1) * act_bytes, act_bytes);
    snprintf(name, sizeof name, "params.W[l=%d]", l);
    W[l] = ht_tensor(&B, name, HT_PARAMS, (uint64_t)l * w_bytes, w_bytes);
    snprintf(name, sizeof name, "grads.dW[l=%d]", l);
    dW[l] = ht_tensor(&B, name, HT_GRADS, (uint64_t)l * w_bytes, w_bytes);
  }
  /* matmul-like work: ~40 us per op at 67 TFLOP/s */
  const double mm_flops = 2.7e9;
  trace_op *op = ht_op(&B, 0, "zero_grad -> cudaMemset", TRACE_FORWARD, 0, -1, 0, 0);
  ht_acc(&B, op, grads, ACCESS_WRITE, 1);
  for (int l = 0; l < L; l++) {
    snprintf(label, sizeof label, "fwd.matmul [l=%d]", l);
    op = ht_op(&B, 1, label, TRACE_FORWARD, 1 + l, 0, mm_flops, 0);
    ht_acc(&B, op, l == 0 ? input : a[l - 1], ACCESS_READ, 1);
    ht_acc(&B, op, W[l], ACCESS_READ, 1);
    ht_acc(&B, op, h[l], ACCESS_WRITE, 1);
    snprintf(label, sizeof label, "fwd.act [l=%d]", l);
    op = ht_op(&B, 2, label, TRACE_FORWARD, 1 + l, 0, 0, fwd_act_flags);
    ht_acc(&B, op, h[l], ACCESS_READ, 1);
    ht_acc(&B, op, a[l], ACCESS_WRITE, 1);
  }
  op = ht_op(&B, 3, "loss", TRACE_FORWARD, 0, -1, mm_flops, 0);
  ht_acc(&B, op, a[L - 1], ACCESS_READ, 1);
  ht_acc(&B, op, g, ACCESS_WRITE, 1);
  for (int l = L - 1, k = 0; l >= 0; l--, k++) {
    snprintf(label, sizeof label, "bwd.act [l=%d]", l);
    op = ht_op(&B, 4, label, TRACE_BACKWARD, 1 + L + k, 1, 0, 0);
    ht_acc(&B, op, h[l], ACCESS_READ, 1);
    ht_acc(&B, op, g, ACCESS_READ, 1);
    ht_acc(&B, op, gt, ACCESS_WRITE, 1);
    snprintf(label, sizeof label, "bwd.matmul [l=%d]", l);
    op = ht_op(&B, 5, label, TRACE_BACKWARD, 1 + L + k, 1, 2 * mm_flops, 0);
    ht_acc(&B, op, gt, ACCESS_READ, 1);
    ht_acc(&B, op, l == 0 ? input : a[l - 1], ACCESS_READ, 1);
    ht_acc(&B, op, W[l], ACCESS_READ, 1);
    ht_acc(&B, op, dW[l], ACCESS_READWRITE, 1);
    ht_acc(&B, op, g, ACCESS_WRITE, 1);
  }
  op = ht_op(&B, 6, "adamw", TRACE_UPDATE, 0, -1, 0, 0);
  ht_acc(&B, op, grads, ACCESS_READ, 1);
  ht_acc(&B, op, params, ACCESS_READWRITE, 1);
  ht_acc(&B, op, moments, ACCESS_READWRITE, 1);
  free(h);
  free(a);
  free(W);
  free(dW);
  return t;
}

/* Marks the trace's "adamw" op as the pass marks a proven elementwise
 * launch (trace_op.split_count): one element per float of params, with
 * grads (4 bytes), params (4) and both moments (8) per element. */
static inline void hand_trace_split_adamw(tidal_trace *t) {
  for (int i = 0; i < t->n_ops; i++) {
    trace_op *op = &t->ops[i];
    if (strcmp(op->label, "adamw") != 0) continue;
    op->split_count = op->acc[1].bytes / 4; /* params */
    op->acc[0].split_elem_bytes = 4;
    op->acc[1].split_elem_bytes = 4;
    op->acc[2].split_elem_bytes = 8;
  }
}

static void hand_trace_free(tidal_trace *t) {
  for (int a = 0; a < t->n_allocs; a++) free(t->allocs[a].name);
  for (int k = 0; k < t->n_tensors; k++) free(t->tensors[k].name);
  for (int i = 0; i < t->n_ops; i++) {
    free(t->ops[i].label);
    free(t->ops[i].acc);
  }
  free(t->allocs);
  free(t->tensors);
  free(t->ops);
  free(t);
}

#endif
