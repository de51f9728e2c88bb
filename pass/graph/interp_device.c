/* interp_device.c - the device a program asks about: cudaGetDeviceProperties
 * and cudaDeviceGetAttribute.
 *
 * Note [device properties]
 * Trainers size launches by the card (`grid = 2 * prop.multiProcessorCount`,
 * llm.c's layernorm backward and global norm), and a kernel's extent may
 * name its grid (a scratch buffer of one partial sum per block), so an
 * access size can depend on the SM count.  Those values are read at run
 * time, like sizes from a file, but they are the card's, not the
 * program's: the analysis names them (`deviceProp.multiProcessorCount`,
 * bindable with --bind) and binds them, with source BIND_DEVICE, to the
 * card tidal models by default, an H100 SXM (sm_90, 132 SMs).  The graph
 * shows them apart from constants found in the source; the rewritten
 * program evaluates the same expressions at run time, on its card, so
 * only the build-time plan and the replay use these values.  Fields not
 * listed stay unknown, as before. */
#include <stdlib.h>
#include <string.h>

#include "graph/interp_impl.h"

typedef struct device_value {
  const char *field;  /* cudaDeviceProp member */
  const char *attr;   /* the matching cudaDeviceAttr enumerator, NULL if none */
  int64_t value;      /* on the modelled card */
} device_value;

/* An H100 SXM (CUDA 12/13 cudaDeviceProp). */
static const device_value h100[] = {
    {"multiProcessorCount", "cudaDevAttrMultiProcessorCount", 132},
    {"maxThreadsPerMultiProcessor", "cudaDevAttrMaxThreadsPerMultiProcessor", 2048},
    {"maxThreadsPerBlock", "cudaDevAttrMaxThreadsPerBlock", 1024},
    {"maxBlocksPerMultiProcessor", "cudaDevAttrMaxBlocksPerMultiprocessor", 32},
    {"warpSize", "cudaDevAttrWarpSize", 32},
    {"major", "cudaDevAttrComputeCapabilityMajor", 9},
    {"minor", "cudaDevAttrComputeCapabilityMinor", 0},
    {"sharedMemPerBlock", "cudaDevAttrMaxSharedMemoryPerBlock", 49152},
    {"sharedMemPerBlockOptin", "cudaDevAttrMaxSharedMemoryPerBlockOptin", 232448},
    {"sharedMemPerMultiprocessor", "cudaDevAttrMaxSharedMemoryPerMultiprocessor", 233472},
    {"regsPerBlock", "cudaDevAttrMaxRegistersPerBlock", 65536},
    {"regsPerMultiprocessor", "cudaDevAttrMaxRegistersPerMultiprocessor", 65536},
    {"l2CacheSize", "cudaDevAttrL2CacheSize", 52428800},
    {"asyncEngineCount", "cudaDevAttrAsyncEngineCount", 3},
};

#define N_DEVICE_VALUES ((int)(sizeof h100 / sizeof h100[0]))

/* Stores name's value as the name, bound to the modelled card's value. */
static void store_device_int(gb *b, const char *key, const char *name, int64_t value) {
  bind_set(&b->g->binds, name, value, BIND_DEVICE);
  gb_store(b, key, gb_int(b, sym_var(b->a, name), gb_str(b, name), 1));
}

/* The lvalue text `&x` names (x), or NULL. */
static const char *pointee_text(const gval *v) {
  if (!v->text || v->text[0] != '&' || !gb_is_plain_lvalue_text(v->text + 1)) return NULL;
  return v->text + 1;
}

int gb_device_query(gb *b, gb_frame *f, CXCursor call, const char *name) {
  int props = !strcmp(name, "cudaGetDeviceProperties") || !strcmp(name, "cudaGetDeviceProperties_v2");
  int attr = !strcmp(name, "cudaDeviceGetAttribute");
  if ((!props && !attr) || clang_Cursor_getNumArguments(call) < 2) return 0;
  int n = clang_Cursor_getNumArguments(call);
  gval dst = gb_eval(b, f, clang_Cursor_getArgument(call, 0));
  for (int i = 1; i < n; i++) gb_eval(b, f, clang_Cursor_getArgument(call, (unsigned)i));
  const char *text = pointee_text(&dst);
  if (dst.k != GV_ADDR || !text) return 0; /* the caller forgets what it wrote */
  if (props) {
    for (int i = 0; i < N_DEVICE_VALUES; i++)
      store_device_int(b, gb_fmt(b, "%s.%s", dst.path, h100[i].field),
                       gb_fmt(b, "%s.%s", text, h100[i].field), h100[i].value);
    return 1;
  }
  CXCursor a = cursor_strip_casts(clang_Cursor_getArgument(call, 1));
  if (clang_getCursorKind(a) != CXCursor_DeclRefExpr) return 0;
  char *en = string_and_dispose(clang_getCursorSpelling(clang_getCursorReferenced(a)));
  int hit = 0;
  for (int i = 0; en && i < N_DEVICE_VALUES && !hit; i++)
    if (h100[i].attr && !strcmp(en, h100[i].attr)) {
      store_device_int(b, dst.path, text, h100[i].value);
      hit = 1;
    }
  free(en);
  return hit;
}
