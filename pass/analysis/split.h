/* split.h - Note [elementwise split] (split.c): whether a kernel touches
 * element i of each pointer parameter from thread i alone, so that one
 * launch may run as launches over sub-ranges.  Internal to analysis/. */
#ifndef TIDAL_PASS_SPLIT_H
#define TIDAL_PASS_SPLIT_H

#include "analysis/kernels.h"

/* Fills k->split, split_count_param, split_grid_stride and split_why for
 * the kernel defined by f, whose parameters, modes, extents and flags
 * kernels.c has already filled.  Returns -1 only when out of memory. */
int kernels_split_analyze(CXCursor f, kernel_info *k, sym_arena *a);

#endif
