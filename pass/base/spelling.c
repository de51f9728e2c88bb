/* spelling.c - edit distance of short names (spelling.h). */
#include "base/spelling.h"

#include <string.h>

size_t spelling_distance(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b), row[64];
  if (na >= 63 || nb >= 63) return 99;
  for (size_t j = 0; j <= nb; j++) row[j] = j; /* one row of the table: O(nb) space */
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}
