/* opsites.h - op sites recorded as graph ops (opsites.c). */
#ifndef TIDAL_PASS_OPSITES_H
#define TIDAL_PASS_OPSITES_H

#include "graph/interp.h"

/* If call is an op site, records it (graph mode) and returns 1; 0 otherwise. */
int opsite_handle(gb *b, gb_frame *f, CXCursor call);
/* 1 if call is a kernel launch or a modelled library op (no side effects). */
int opsite_is_op(const kernel_table *kt, CXCursor call);
/* The kernel a cudaLaunchKernel call's first argument names (`(void
 * *)kernel`, `&kernel`), or a null cursor. */
CXCursor opsite_launched_kernel(CXCursor call);

#endif
