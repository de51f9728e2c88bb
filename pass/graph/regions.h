/* regions.h - allocations, carved regions and tensors (regions.c). */
#ifndef TIDAL_PASS_REGIONS_H
#define TIDAL_PASS_REGIONS_H

#include "graph/interp.h"

/* Handles cudaMalloc/cudaFree-like calls; 1 if handled. */
int regions_handle_call(gb *b, gb_frame *f, CXCursor call, const char *callee);
/* A device pointer stored into key during setup: register a region. */
void regions_note_store(gb *b, const char *key, const char *name, gval *v);
/* Computes region sizes once setup is done. */
void regions_finish_setup(gb *b);
void regions_once_done(gb *b, gb_frame *f, int first_alloc);
/* The tensor a device pointer value denotes (created on first use), -1 if unresolved. */
int regions_tensor_for(gb *b, const gval *v, sym *bytes, const char *ptr_text);
/* The tensor standing for element `index` of a pointer array (v->family). */
int regions_tensor_family(gb *b, const gval *v, sym *bytes, const char *ptr_text);
/* The tensor covering all of allocation alloc (for accesses at an unknown offset). */
int regions_tensor_whole(gb *b, int alloc);

#endif
