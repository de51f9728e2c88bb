/* opsites.h - op sites recorded as graph ops (opsites.c). */
#ifndef TIDAL_PASS_OPSITES_H
#define TIDAL_PASS_OPSITES_H

#include "graph/interp.h"

/* If call is an op site, records it (graph mode) and returns 1; 0 otherwise.
 * as: the name of the library function a call through a function pointer
 * runs (a modelled op is recorded under that name), or NULL. */
int opsite_handle(gb *b, gb_frame *f, CXCursor call, const char *as);
/* 1 if call is a kernel launch or a modelled library op (no side effects);
 * as: as for opsite_handle. */
int opsite_is_op(const kernel_table *kt, CXCursor call, const char *as);
/* The kernel a cudaLaunchKernel call's first argument names (`(void
 * *)kernel`, `&kernel`), or a null cursor. */
CXCursor opsite_launched_kernel(CXCursor call);

#endif
