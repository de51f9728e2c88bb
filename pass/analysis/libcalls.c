/* libcalls.c - lookup and evaluation of the library-call tables.
 *
 * Owns: finding a routine's row (libcalls_<family>.c hold the rows) and
 * evaluating it for one call (libcall_accesses & co.).  The formulas the
 * rows point at, and the reading of integer arguments, are in
 * libcalls_formulas.c: the rows use them, this file uses the rows, so the
 * files depend one way.
 *
 * Design decisions:
 * - No state: the tables are const data, every sym is built in the caller's
 *   arena, nothing here is freed.
 * - Sizes are byte extents from the pointer argument.  `exact` is set only
 *   when every byte of the extent is touched: a column-major matrix with
 *   ld > rows has gaps between columns, a strided batch may have gaps
 *   between matrices, a vector with |inc| > 1 skips elements.  The runtime
 *   may drop data ahead of an exact write, so when in doubt we say 0.
 * - An argument we cannot read (a transpose held in a variable) never makes
 *   the model guess: we take the larger of both readings and clear exact,
 *   or return unknown.
 * - Names are matched after stripping the _v2 / _64 suffixes cublas_v2.h's
 *   macros and the ILP64 API add, so cublasSgemm, cublasSgemm_v2 and
 *   cublasSgemm_v2_64 share one row. */
#include "analysis/libcalls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/libcalls_table.h"

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- names and rows ---- */

/* Copies callee into buf without the _v2 / _64 / _v2_64 suffixes. */
static void base_name(const char *callee, char *buf, size_t cap) {
  size_t n = strlen(callee);
  if (n >= cap) n = cap - 1;
  memcpy(buf, callee, n);
  buf[n] = '\0';
  if (n > 3 && strcmp(buf + n - 3, "_64") == 0) buf[n -= 3] = '\0';
  if (n > 3 && strcmp(buf + n - 3, "_v2") == 0) buf[n -= 3] = '\0';
}

static const libcalls_row *const family_tables[] = {
    libcalls_cudart_rows, libcalls_cublas_rows, libcalls_cudnn_rows, libcalls_nccl_rows};

/* Linear scan: about a hundred rows, called once per call site. */
static const libcalls_row *find_row(const char *callee) {
  char name[128];
  if (!callee) return NULL;
  base_name(callee, name, sizeof name);
  for (int t = 0; t < COUNT_OF(family_tables); t++)
    for (const libcalls_row *r = family_tables[t]; r->info.name; r++)
      if (strcmp(r->info.name, name) == 0) return r;
  return NULL;
}

const libcall_info *libcall_find(const char *callee) {
  const libcalls_row *r = find_row(callee);
  return r ? &r->info : NULL;
}

const char *libcall_family_name(enum libcall_family f) {
  switch (f) {
  case LIBCALL_CUDART: return "cudart";
  case LIBCALL_CUBLAS: return "cublas";
  case LIBCALL_CUBLASLT: return "cublasLt";
  case LIBCALL_CUDNN: return "cudnn";
  case LIBCALL_NCCL: return "nccl";
  }
  return "unknown";
}

/* ---- public API ---- */

/* Whether a memcpy side is on the device for cudaMemcpyKind k (-1 unknown):
 * 1 yes, 0 no, -1 maybe. */
static int memcpy_side_device(int64_t k, int dst) {
  switch (k) {
  case 0: return 0;             /* HostToHost */
  case 1: return dst ? 1 : 0;   /* HostToDevice */
  case 2: return dst ? 0 : 1;   /* DeviceToHost */
  case 3: return 1;             /* DeviceToDevice */
  default: return -1;           /* Default (UVA decides at run time) or not constant */
  }
}

/* The fewest arguments a call must show for the row's accesses: trailing
 * defaulted parameters (cudaMemsetAsync's stream in C++) may be absent
 * from what the walker passes. */
static int needed_args(const libcalls_row *r) {
  int need = 0;
  for (const libcalls_acc *x = r->acc; x->role; x++) {
    int m = x->arg > x->aux ? x->arg : x->aux;
    for (int k = 0; k < LIBCALLS_NP; k++)
      if (x->p[k] > m) m = x->p[k];
    if (x->elem <= 0 && -x->elem % LIBCALLS_DT_SCALE > m) m = -x->elem % LIBCALLS_DT_SCALE;
    if (m + 1 > need) need = m + 1;
  }
  return need;
}

int libcall_accesses(const char *callee, const libcall_arg *args, int nargs,
                     const libcall_env *env, libcall_access *out, int max) {
  const libcalls_row *r = find_row(callee);
  if (!r || !(r->info.flags & LIBCALL_OP) || nargs < needed_args(r) || !env || !env->arena)
    return -1;
  libcalls_ctx c = {args, nargs, env, env->arena};
  int n = 0;
  for (const libcalls_acc *acc = r->acc; acc->role; acc++) {
    if ((acc->opts & LIBCALLS_OPTIONAL) && libcalls_arg_is_null(&c, acc->arg)) continue;
    int exact = !(acc->opts & LIBCALLS_INEXACT);
    if (acc->opts & (LIBCALLS_DST_DEVICE | LIBCALLS_SRC_DEVICE)) {
      int64_t k = -1;
      if (!libcalls_arg_const(&c, acc->aux, &k)) k = -1;
      int dev = memcpy_side_device(k, (acc->opts & LIBCALLS_DST_DEVICE) != 0);
      if (dev == 0) continue; /* host side: not a device access */
      if (dev < 0) exact = 0;
    }
    access_mode mode = acc->mode;
    /* C of a cublasLt matmul: read only to blend with beta (`D = alpha*AB
     * + beta*C`); beta == 0 reads nothing */
    if (mode == ACCESS_READ && acc->aux >= 0 &&
        !(acc->opts & (LIBCALLS_DST_DEVICE | LIBCALLS_SRC_DEVICE)) && env->scalar_is_zero &&
        env->scalar_is_zero(env->ud, acc->aux))
      continue;
    if (mode == ACCESS_READWRITE && acc->aux >= 0 && !(acc->opts & (LIBCALLS_DST_DEVICE | LIBCALLS_SRC_DEVICE)) &&
        env->scalar_is_zero && env->scalar_is_zero(env->ud, acc->aux))
      mode = ACCESS_WRITE; /* beta == 0: the old contents are not read */
    sym *bytes = acc->size(&c, acc, &exact);
    if (sym_is_unknown(bytes)) exact = 0;
    if (n < max) {
      out[n].arg = acc->arg;
      out[n].mode = mode;
      out[n].bytes = bytes;
      out[n].exact = exact;
      out[n].role = acc->role;
    }
    n++;
  }
  return n;
}

int libcall_descriptor_info(const char *callee, const libcall_arg *args, int nargs,
                            sym_arena *a, int *desc_arg, sym **bytes, int *dense) {
  const libcalls_row *r = find_row(callee);
  if (!r || !(r->info.flags & LIBCALL_DESCRIPTOR_SETTER) || !r->setter || nargs < r->info.nargs)
    return -1;
  libcalls_ctx c = {args, nargs, NULL, a};
  int d = 0;
  sym *b = r->setter(&c, r->sp, r->selem, &d);
  if (sym_is_unknown(b)) d = 0;
  if (desc_arg) *desc_arg = r->sp[0];
  if (bytes) *bytes = b;
  if (dense) *dense = d;
  return 0;
}

int libcall_descriptor_setter(const char *callee, const libcall_arg *args, int nargs,
                              sym_arena *a, int *desc_arg, sym **bytes) {
  return libcall_descriptor_info(callee, args, nargs, a, desc_arg, bytes, NULL);
}

int libcall_descriptor_params(const char *callee, const libcall_arg *args, int nargs,
                              sym **out, int max) {
  const libcalls_row *r = find_row(callee);
  if (!r || !(r->info.flags & LIBCALL_DESCRIPTOR_SETTER)) return -1;
  if (r->n_dims <= 0 || nargs < r->dims_first + r->n_dims) return 0;
  for (int i = 0; i < r->n_dims && i < max; i++) out[i] = args[r->dims_first + i].value;
  return r->n_dims;
}

int libcall_query_args(const char *callee, int *desc_args, int *n_desc, int *out_args,
                       int *n_out) {
  const libcalls_row *r = find_row(callee);
  if (!r || !(r->info.flags & LIBCALL_DESCRIPTOR_QUERY)) return -1;
  *n_desc = r->n_dims;
  for (int i = 0; i < r->n_dims; i++) desc_args[i] = r->sp[i];
  *n_out = r->n_out;
  for (int i = 0; i < r->n_out; i++) out_args[i] = r->out_first + i;
  return 0;
}

int libcall_query_eval(const char *callee, sym *const *const *params, const int *np,
                       sym_arena *a, sym **out) {
  const libcalls_row *r = find_row(callee);
  if (!r || !(r->info.flags & LIBCALL_DESCRIPTOR_QUERY) || !r->query) return -1;
  r->query(a, params, np, out);
  return 0;
}

const char *libcall_unknown_why(const char *callee, int arg) {
  const libcalls_row *r = find_row(callee);
  if (!r) return NULL;
  for (const libcalls_acc *x = r->acc; x->role; x++) {
    if (x->arg != arg) continue;
    if (x->size == libcalls_size_desc)
      return "its size comes from a descriptor whose sizes tidal did not see here (an Nd "
             "setter's array, a setter it did not follow, or sizes named outside this scope)";
    if (x->size == libcalls_size_unknown)
      return "the call's arguments do not bound it (e.g. a count times the communicator size)";
  }
  return NULL;
}

int libcall_alloc_info(const char *callee, int *ptr_arg, int *size_arg) {
  const libcalls_row *r = find_row(callee);
  if (!r || !(r->info.flags & (LIBCALL_ALLOC | LIBCALL_FREE))) return -1;
  if (ptr_arg) *ptr_arg = r->alloc_ptr;
  if (size_arg) *size_arg = r->alloc_size;
  return 0;
}

sym *libcall_flops(const char *callee, const libcall_arg *args, int nargs, sym_arena *a) {
  const libcalls_row *r = find_row(callee);
  if (!r) return NULL;
  if (!r->flops || nargs < r->info.nargs) return sym_unknown(a);
  libcalls_ctx c = {args, nargs, NULL, a};
  return r->flops(&c, r->fp);
}
