/* split.c - how many elements one piece of a split op covers.
 *
 * The pass proves some launches elementwise (pass/analysis/kernels.c, Note
 * [elementwise split]): thread i touches element i of every pointer
 * argument and nothing else, so the launch over [0, n) can run as launches
 * over [o, o + l) with each pointer advanced by o.  The rewritten program
 * asks here how long a piece should be; `tidal replay` asks the same, so
 * the plan it checks is the one the program runs.
 *
 * Note [split size]
 * An op whose whole working set (count * bytes_per_element) is at most half
 * the budget is not split: the budget is not what limits it, and each
 * piece costs a launch and an op_begin.  Otherwise a piece covers a quarter
 * of the budget: op_begin pins the piece (plus a partial chunk at each end
 * of each access), the next piece's prefetch needs as much again, and the
 * data other ops keep resident shares the rest.  Pieces are whole multiples
 * of TIDAL_SPLIT_GRAIN elements so that piece boundaries fall on the same
 * elements whatever the budget (replay's oracle hashes per grain); the
 * number of grains is a power of two, so a piece of an array of 1-, 2-, 4-,
 * 8- or 16-byte elements spans a power-of-two number of bytes and, when the
 * array starts on a chunk boundary (every allocation of a chunk or more
 * does), no piece straddles one: a piece needs one chunk per array, not
 * two (a 3-array update of 4 MiB arrays at a 10 MiB budget needed 6 chunks
 * of its 5 before).  It costs at most half the piece length.  And the
 * answer depends only on (budget, count, bytes_per_element): every
 * iteration under the same budget splits the same way, so the run-time
 * planner's record matches from one iteration to the next. */
#include "policy/policy.h"

size_t tidal_split_elements(size_t count, size_t bytes_per_element) {
  return rt_base.initialized
             ? tidal_split_elements_at(count, bytes_per_element, rt_mem.budget_bytes)
             : count;
}

size_t tidal_split_elements_at(size_t count, size_t bytes_per_element, size_t budget) {
  return tidal_split_at(count, bytes_per_element, TIDAL_SPLIT_GRAIN, budget);
}

/* Note [batch split]
 * A cuDNN call that computes each sample from the same sample of its
 * inputs alone (pooling, activation, softmax: include/tidal/cudnn.h) can
 * run over consecutive pieces of the batch, its descriptors narrowed to
 * the piece's samples.  The rule is Note [split size]'s with a grain of
 * one sample: whole when the call's tensors take at most half the budget,
 * else a power of two of samples filling at most a quarter of it (one
 * sample when a sample alone is more). */
size_t tidal_split_batch(size_t n, size_t bytes_per_sample) {
  return rt_base.initialized ? tidal_split_at(n, bytes_per_sample, 1, rt_mem.budget_bytes) : n;
}

size_t tidal_split_at(size_t count, size_t bytes_per_element, size_t grain, size_t budget) {
  if (grain == 0) grain = 1;
  if (count <= grain || bytes_per_element == 0 || budget == 0 ||
      count <= budget / 2 / bytes_per_element)
    return count;
  size_t grains = budget / 4 / bytes_per_element / grain, pow2 = 1;
  while (pow2 <= grains / 2)
    pow2 *= 2;
  size_t piece = pow2 * grain;
  return piece < count ? piece : count;
}
