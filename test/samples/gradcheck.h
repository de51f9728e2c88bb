/* gradcheck.h - shared helpers for the sample reference tests: a seeded
 * sampler, central-difference gradient checking, and a tiny assert.
 *
 * Header-only (static functions) because each test is one program built
 * from one reference; the reference is compiled with REF_REAL=double so the
 * finite differences are accurate to far below the tolerances used. */
#ifndef TEST_SAMPLES_GRADCHECK_H
#define TEST_SAMPLES_GRADCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      check_failures++;                                                                            \
    }                                                                                              \
  } while (0)

static uint32_t sample_next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(*state >> 33);
}

/* Relative error with a floor on the denominator: the central difference of
 * a loss of order 1 carries round-off of order 1e-12 in double, so two
 * gradients of 1e-9 that agree to round-off are not a mismatch, while a
 * wrong gradient of 1e-8 or more still is. */
static const double REL_ERROR_FLOOR = 1e-5;
static double rel_error(double analytic, double numeric) {
  double denom = fabs(analytic) + fabs(numeric);
  if (denom < REL_ERROR_FLOOR) denom = REL_ERROR_FLOOR;
  return fabs(analytic - numeric) / denom;
}

/* Seed from TEST_SEED if set (to replay a failure), else a fixed default. */
static uint64_t test_seed(uint64_t fallback) {
  const char *s = getenv("TEST_SEED");
  uint64_t seed = s != NULL && s[0] != '\0' ? strtoull(s, NULL, 0) : fallback;
  printf("seed %llu (set TEST_SEED to replay)\n", (unsigned long long)seed);
  return seed;
}

/* Checks `samples` sampled entries of one parameter tensor w (n entries,
 * gradient g from the backward pass) against central differences of
 * loss(ctx), which re-runs the forward pass.  The tensor must have a
 * nonzero gradient somewhere.  Returns the largest relative error.  The
 * reference's real type is double in these tests (REF_REAL). */
typedef double (*gradcheck_loss_fn)(void *ctx);
static double gradcheck_tensor(const char *name, double *w, const double *g, size_t n,
                               gradcheck_loss_fn loss, void *ctx, uint64_t *pick, int samples,
                               double step, double tol) {
  double grad_norm = 0;
  for (size_t j = 0; j < n; j++)
    grad_norm += g[j] * g[j];
  CHECK(grad_norm > 0, "tensor %s has an all-zero gradient", name);
  double max_err = 0;
  for (int s = 0; s < samples; s++) {
    size_t j = sample_next(pick) % n;
    double analytic = g[j];
    double saved = w[j];
    w[j] = saved + step;
    double plus = loss(ctx);
    w[j] = saved - step;
    double minus = loss(ctx);
    w[j] = saved;
    double numeric = (plus - minus) / (2 * step);
    double err = rel_error(analytic, numeric);
    CHECK(err <= tol, "%s[%zu]: backward %.9g, finite difference %.9g, rel error %.3g", name, j,
          analytic, numeric, err);
    if (err > max_err) max_err = err;
  }
  printf("gradcheck %-9s %6zu entries, max rel error %.3g\n", name, n, max_err);
  return max_err;
}

#endif
