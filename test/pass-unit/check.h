/* check.h - the pass unit tests' assertion: counts failures and keeps going,
 * so one run reports every broken expectation; main() returns failures != 0. */
#ifndef TIDAL_TEST_PASS_UNIT_CHECK_H
#define TIDAL_TEST_PASS_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

#endif
