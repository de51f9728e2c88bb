/* state.c - the base layer's part of the runtime's state (rt_base, base.h).
 *
 * In a file of its own so that every file of base/ reads it without
 * depending on another's functions (status.c logs at cfg's level, trace.c
 * writes to its file, stats.c counts into it): the layer's files call one
 * another one way only (scripts/check_layers.py). */
#include "base/base.h"

rt_base_state rt_base;
