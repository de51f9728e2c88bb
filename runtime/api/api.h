/* api.h - the top layer: the public entry points of tidal.h that drive the
 * layers below (api.c) and what the run did (summary.c).  May use every
 * layer; nothing includes this but its own files. */
#ifndef TIDAL_RT_API_H
#define TIDAL_RT_API_H

#include "policy/policy.h"

#define RT_DEFAULT_CHUNK_BYTES ((size_t)2 << 20)

/* ---- summary.c ---- */
/* The memory summary printed at tidal_shutdown (TIDAL_STATS). */
RT_HIDDEN void rt_summary_print(FILE *out);

#endif
