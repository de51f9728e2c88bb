/* spelling.h - how far one short name is from another, for "did you mean".
 *
 * An unknown option (cli/options.c) and a --bind that nothing uses
 * (graph/bind.c) both suggest the closest name they know; one distance
 * keeps the two suggestions alike. */
#ifndef TIDAL_PASS_SPELLING_H
#define TIDAL_PASS_SPELLING_H

#include <stddef.h>

/* Levenshtein distance of a and b (insertions, deletions and substitutions
 * of one byte each; so 'b' for 'B' is one edit).  99 when either is 63
 * bytes or longer: names that long are not typos worth suggesting. */
size_t spelling_distance(const char *a, const char *b);

#endif
