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

#endif
