/* test_ref_gpt.c - checks the CPU reference of samples/gpt at a tiny size:
 * central-difference gradients of sampled entries of every parameter tensor
 * agree with its backward pass, and a few AdamW steps make the loss fall.
 *
 * Built with ref.c compiled as REF_REAL=double (see CMakeLists.txt), so the
 * finite differences are accurate and the tolerance can be tight. */
#include "gradcheck.h"
#include "ref.h"

#include <string.h>

enum {
  SAMPLES_PER_TENSOR = 6, /* entries checked in each parameter tensor */
  TRAIN_STEPS = 12
};
static const double FD_STEP = 1e-4;  /* central-difference step */
static const double GRAD_TOL = 1e-4; /* max relative error accepted */

/* The loss at the current weights, for the finite differences. */
struct gpt_loss_ctx {
  gpt_ref *m;
  const int *inputs, *targets;
};
static double gpt_loss(void *ctx) {
  struct gpt_loss_ctx *c = ctx;
  return gpt_ref_forward(c->m, c->inputs, c->targets);
}

static void check_gradients(uint64_t seed) {
  const gpt_ref_config cfg = {.B = 2, .T = 5, .C = 8, .L = 2, .NH = 2, .V = 13};
  gpt_ref *m = gpt_ref_create(&cfg, seed);
  CHECK(m != NULL, "gpt_ref_create");
  if (m == NULL) return;
  int inputs[2 * 5], targets[2 * 5];
  uint64_t rng = seed ^ 0x9e3779b97f4a7c15ULL;
  gpt_ref_make_batch(&cfg, &rng, inputs, targets);
  /* A trained-ish point is a better test than the init, where many
   * gradients are symmetric: take two optimiser steps first. */
  for (int t = 1; t <= 2; t++) {
    gpt_ref_forward(m, inputs, targets);
    gpt_ref_backward(m);
    gpt_ref_update(m, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.0f, t);
  }
  gpt_ref_forward(m, inputs, targets);
  gpt_ref_backward(m);

  uint64_t pick = seed;
  double worst = 0;
  struct gpt_loss_ctx lc = {m, inputs, targets};
  for (int i = 0; i < GPT_REF_NUM_TENSORS; i++) {
    double e = gradcheck_tensor(gpt_ref_tensor_name(i), gpt_ref_tensor(m, i),
                                gpt_ref_tensor_grad(m, i), gpt_ref_tensor_size(m, i), gpt_loss,
                                &lc, &pick, SAMPLES_PER_TENSOR, FD_STEP, GRAD_TOL);
    if (e > worst) worst = e;
  }
  printf("gradcheck: max rel error over all tensors %.3g (tolerance %.1g)\n", worst, GRAD_TOL);
  gpt_ref_destroy(m);
}

static void check_loss_falls(uint64_t seed) {
  const gpt_ref_config cfg = {.B = 4, .T = 16, .C = 32, .L = 2, .NH = 4, .V = 64};
  gpt_ref *m = gpt_ref_create(&cfg, seed);
  CHECK(m != NULL, "gpt_ref_create");
  if (m == NULL) return;
  int inputs[4 * 16], targets[4 * 16];
  uint64_t rng = GPT_REF_DATA_SEED;
  double losses[TRAIN_STEPS];
  for (int step = 0; step < TRAIN_STEPS; step++) {
    gpt_ref_make_batch(&cfg, &rng, inputs, targets);
    losses[step] = gpt_ref_forward(m, inputs, targets);
    CHECK(isfinite(losses[step]), "step %d loss is %g", step, losses[step]);
    gpt_ref_backward(m);
    gpt_ref_update(m, GPT_REF_LEARNING_RATE, GPT_REF_BETA1, GPT_REF_BETA2, GPT_REF_EPS,
                   GPT_REF_WEIGHT_DECAY, step + 1);
    printf("train step %2d: loss %.6f\n", step, losses[step]);
  }
  /* At init every logit is near 0, so the first loss is about ln V. */
  CHECK(fabs(losses[0] - log(cfg.V)) < 0.1, "first loss %g, expected about ln %d = %g", losses[0],
        cfg.V, log(cfg.V));
  double first = (losses[0] + losses[1] + losses[2]) / 3;
  double last = (losses[TRAIN_STEPS - 3] + losses[TRAIN_STEPS - 2] + losses[TRAIN_STEPS - 1]) / 3;
  CHECK(last < first - 0.25, "loss did not fall: first steps %g, last steps %g", first, last);
  gpt_ref_destroy(m);
}

int main(void) {
  uint64_t seed = test_seed(GPT_REF_PARAM_SEED);
  check_gradients(seed);
  check_loss_falls(seed);
  if (check_failures) {
    fprintf(stderr, "%d check(s) failed (seed %llu)\n", check_failures, (unsigned long long)seed);
    return 1;
  }
  printf("ok\n");
  return 0;
}
