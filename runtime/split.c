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
 * elements whatever the budget (replay's oracle hashes per grain), and the
 * answer depends only on (budget, count, bytes_per_element): every
 * iteration under the same budget splits the same way, so the run-time
 * planner's record matches from one iteration to the next. */
#include "rt.h"

size_t tidal_split_elements(size_t count, size_t bytes_per_element) {
  if (!rt_g.initialized || count <= TIDAL_SPLIT_GRAIN || bytes_per_element == 0)
    return count;
  size_t budget = rt_g.budget_bytes;
  if (budget == 0 || count <= budget / 2 / bytes_per_element)
    return count;
  size_t piece = budget / 4 / bytes_per_element / TIDAL_SPLIT_GRAIN * TIDAL_SPLIT_GRAIN;
  if (piece < TIDAL_SPLIT_GRAIN)
    piece = TIDAL_SPLIT_GRAIN;
  return piece < count ? piece : count;
}
