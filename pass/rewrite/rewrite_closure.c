/* rewrite_closure.c - recompute closures for `tidal rewrite`.
 *
 * A closure re-launches one kernel launch site with the values its
 * arguments had when the tensor was produced.  Shape (docs/rewrite.md):
 *
 *   typedef struct tidal_rc_ctx_N {   // captured BY VALUE at registration
 *     dim3 grid, block; size_t shmem; cudaStream_t stream;
 *     <arg_type> a0; ...             // each kernel argument, typed from the graph
 *     tidal_access acc[K];           // the launch's accesses, evaluated then
 *   } tidal_rc_ctx_N;
 *   static void tidal_rc_fn_N(void *ctx, tidal_stream stream) {
 *     op_begin(acc) ; kernel<<<grid, block, shmem, stream>>>(TIDAL_AT(a0), ...) ; op_end
 *   }
 *
 * The accesses are captured as values (pointer and byte count) rather than
 * re-evaluated in the closure, because their expressions use the launching
 * function's locals, which do not exist when the runtime re-runs it.  The
 * closure launches on the stream the runtime passes (it orders restores on
 * it); the captured stream is used when the runtime passes none.  The
 * registration is emitted right after the launch statement, where the
 * argument texts are valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/rewrite.h"

#define INEXACT_WRITE_NOTE "write not proven to cover every byte: declared readwrite"

static int inexact_write(const graph_site_access *a) { return a->mode == ACCESS_WRITE && !a->exact; }

/* A declaration "T name" from a C type text; handles pointer types
 * ("float *" -> "float * name") and plain ones.  Array or function types
 * cannot be captured by a plain member: the caller checks first. */
static int capturable(const char *type) {
  return type && *type && !strchr(type, '[') && !strchr(type, '(') && !strchr(type, '&');
}

int rw_closure_emit(const graph *g, const graph_site *site, int opi, int id, const char *comment,
                    const char *path_c, rw_buf *def, rw_buf *reg) {
  const graph_op *op = &g->ops[opi];
  if (op->kind != GRAPH_OP_LAUNCH || !op->grid || !op->block) return -1;
  for (int i = 0; i < op->n_args; i++)
    if (!capturable(op->arg_type ? op->arg_type[i] : NULL) || !op->arg_text[i]) return -1;

  /* The context struct. */
  rw_buf_printf(def, "/* tidal: recompute closure %d: %s */\n", id, comment);
  rw_buf_printf(def, "typedef struct tidal_rc_ctx_%d {\n", id);
  rw_buf_puts(def, "  dim3 grid;\n  dim3 block;\n  size_t shmem;\n  cudaStream_t stream;\n");
  for (int i = 0; i < op->n_args; i++) {
    /* Top-level const would make the struct unassignable: members are plain copies. */
    const char *ty = op->arg_type[i];
    size_t tl = strlen(ty);
    int ptr_last = tl > 0 && ty[tl - 1] == '*';
    rw_buf_printf(def, "  %s%sa%d;\n", ty, ptr_last ? "" : " ", i);
  }
  rw_buf_printf(def, "  tidal_access acc[%d];\n", site->n_acc > 0 ? site->n_acc : 1);
  rw_buf_printf(def, "} tidal_rc_ctx_%d;\n", id);

  /* The function. */
  rw_buf_printf(def, "static void tidal_rc_fn_%d(void *tidal_ctx, tidal_stream tidal_stream_arg) {\n",
                id);
  rw_buf_printf(def, "  tidal_rc_ctx_%d *c = (tidal_rc_ctx_%d *)tidal_ctx;\n", id, id);
  rw_buf_printf(def, "  static tidal_site site = {\"recompute: %s\", \"%s\", %u, 0.0};\n",
                site->label, path_c, site->line);
  rw_buf_puts(def, "  cudaStream_t s = tidal_stream_arg ? (cudaStream_t)tidal_stream_arg : c->stream;\n");
  rw_buf_printf(def, "  TIDAL_OP_BEGIN(&site, %d, c->acc);\n", site->n_acc);
  rw_buf_printf(def, "  %s<<<c->grid, c->block, c->shmem, s>>>(", op->callee);
  /* Each pointer the launch site passes through TIDAL_AT is passed so here
   * too: the closure's op declares the same accesses, and a relocatable
   * tensor's stable address is unmapped (Note [relocatable allocations]). */
  for (int i = 0; i < op->n_args; i++) {
    int at = i < site->n_args && graph_site_arg_wrapped(site, i);
    rw_buf_printf(def, "%s%sc->a%d%s", i ? ", " : "", at ? "TIDAL_AT(" : "", i, at ? ")" : "");
  }
  rw_buf_puts(def, ");\n  TIDAL_OP_END(&site);\n}\n");

  /* The start of the registration (the caller adds the register call and
   * the closing brace), after the launch statement. */
  rw_buf_printf(reg, "{ tidal_rc_ctx_%d tidal_rc_c = {%s, %s, %s, %s", id, op->grid, op->block,
                op->shmem ? op->shmem : "0", op->stream ? op->stream : "0");
  for (int i = 0; i < op->n_args; i++) rw_buf_printf(reg, ", %s", op->arg_text[i]);
  rw_buf_puts(reg, ", {");
  for (int i = 0; i < site->n_acc; i++) {
    const graph_site_access *a = &site->acc[i];
    rw_buf_printf(reg, "%s{(const void *)(%s), %s, %s}", i ? ", " : "", a->ptr,
                  a->bytes ? a->bytes : "TIDAL_EXTENT_UNKNOWN", rw_mode_name(a));
    if (inexact_write(a)) rw_buf_puts(reg, " /* " INEXACT_WRITE_NOTE " */");
  }
  rw_buf_puts(reg, "}};");
  return def->oom || reg->oom ? -1 : 0;
}
