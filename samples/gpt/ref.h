/* ref.h - the plain-C CPU reference of samples/gpt/train.cu.
 *
 * Same model, same initialisation, same data and the same AdamW update as
 * the CUDA trainer, at a size chosen at run time, so that tests can check it
 * at a tiny size (loss falls, finite-difference gradients agree) and GPU runs
 * can be compared with it at the sample's default size.
 *
 * REF_REAL is the arithmetic type: float for the reference program (the
 * CUDA sample is float32), double for the gradient check. */
#ifndef SAMPLES_GPT_REF_H
#define SAMPLES_GPT_REF_H

#include <stddef.h>
#include <stdint.h>

#ifndef REF_REAL
#define REF_REAL float
#endif
typedef REF_REAL gpt_real;

typedef struct gpt_ref_config {
  int B;  /* batch size */
  int T;  /* sequence length */
  int C;  /* channels */
  int L;  /* layers */
  int NH; /* heads; C % NH == 0 */
  int V;  /* vocabulary, >= 8 (the data uses the first V/8 tokens) */
} gpt_ref_config;

/* Parameter tensors, in train.cu's order. */
#define GPT_REF_NUM_TENSORS 16

typedef struct gpt_ref gpt_ref; /* opaque */

/* The CUDA sample's compile-time sizes and hyperparameters. */
void gpt_ref_default_config(gpt_ref_config *cfg);
#define GPT_REF_LEARNING_RATE 1e-3f
#define GPT_REF_BETA1 0.9f
#define GPT_REF_BETA2 0.999f
#define GPT_REF_EPS 1e-8f
#define GPT_REF_WEIGHT_DECAY 0.01f
#define GPT_REF_PARAM_SEED 1337u
#define GPT_REF_DATA_SEED 42u

/* Builds a model with train.cu's deterministic initialisation from seed.
 * Returns NULL on a bad config or out of memory. */
gpt_ref *gpt_ref_create(const gpt_ref_config *cfg, uint64_t seed);
void gpt_ref_destroy(gpt_ref *m); /* NULL is a no-op */

/* The next batch from the data generator (inputs and targets hold B*T). */
void gpt_ref_make_batch(const gpt_ref_config *cfg, uint64_t *rng, int *inputs, int *targets);

/* Forward pass; returns the mean cross-entropy loss and keeps the
 * activations for gpt_ref_backward. */
double gpt_ref_forward(gpt_ref *m, const int *inputs, const int *targets);
/* Zeroes the gradients and backpropagates the last forward pass. */
void gpt_ref_backward(gpt_ref *m);
/* One AdamW step; t counts from 1. */
void gpt_ref_update(gpt_ref *m, float lr, float beta1, float beta2, float eps, float weight_decay,
                    int t);

/* Parameter tensor i (0 <= i < GPT_REF_NUM_TENSORS): its name, element
 * count, values and gradient. */
const char *gpt_ref_tensor_name(int i);
size_t gpt_ref_tensor_size(const gpt_ref *m, int i);
gpt_real *gpt_ref_tensor(gpt_ref *m, int i);
gpt_real *gpt_ref_tensor_grad(gpt_ref *m, int i);

#endif
