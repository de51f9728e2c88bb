/* kernels_launch.c - what the graph and the rewriter ask of a launch: the x
 * components of its grid and block as written (the dim3 conversion looked
 * through), its grid and block arguments for all three components (the
 * graph evaluates them: opsites.c, Note [launch dimensions]), and whether it
 * covers a kernel's dense-write conditions (Note [dense], kernels.c). */
#include <stdlib.h>
#include <string.h>

#include "analysis/kernels_impl.h"

/* The integer x component of a dim3-typed launch argument. */
static CXCursor dim_x(CXCursor e) {
  for (int depth = 0; depth < 8 && !clang_Cursor_isNull(e); depth++) {
    e = cursor_strip(e);
    if (cursor_is_integer_type(clang_getCursorType(e))) return e;
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_CallExpr && clang_Cursor_getNumArguments(e) >= 1) {
      /* dim3(x, ...) or the implicit conversion from an integer */
      e = clang_Cursor_getArgument(e, 0);
      continue;
    }
    if (k == CXCursor_CXXFunctionalCastExpr || k == CXCursor_UnexposedExpr) {
      e = cursor_last_expr_child(e);
      continue;
    }
    break;
  }
  return clang_getNullCursor();
}

static int is_config_call(CXCursor e) {
  e = cursor_strip(e);
  if (clang_getCursorKind(e) != CXCursor_CallExpr) return 0;
  char *n = ka_callee_name(e);
  int r = n && (strstr(n, "PushCallConfiguration") || !strcmp(n, "cudaConfigureCall"));
  free(n);
  return r;
}

void kernels_launch_config(CXCursor call, CXCursor *grid, CXCursor *block) {
  *grid = *block = clang_getNullCursor();
  CXCursor cfg = clang_getNullCursor();
  char *n = ka_callee_name(call);
  int launch_kernel = n && !strcmp(n, "cudaLaunchKernel");
  free(n);
  if (launch_kernel) {
    cfg = call;
  } else {
    CXCursor ch[3];
    int n_ch = cursor_children(call, ch, 3);
    for (int i = 0; i < n_ch && i < 3 && clang_Cursor_isNull(cfg); i++)
      if (is_config_call(ch[i])) cfg = cursor_strip(ch[i]);
  }
  if (clang_Cursor_isNull(cfg)) return;
  int first = launch_kernel ? 1 : 0;
  if (clang_Cursor_getNumArguments(cfg) < first + 2) return;
  *grid = clang_Cursor_getArgument(cfg, (unsigned)first);
  *block = clang_Cursor_getArgument(cfg, (unsigned)first + 1);
}

void kernels_launch_dims(CXCursor call, CXCursor *grid_x, CXCursor *block_x) {
  CXCursor grid, block;
  kernels_launch_config(call, &grid, &block);
  *grid_x = dim_x(grid); /* a null cursor stays null */
  *block_x = dim_x(block);
}

sym *kernels_launch_dim3(sym_arena *a, const char *name, sym *const grid[3],
                         sym *const block[3]) {
  int g = !strncmp(name, "gridDim.", 8), bl = !strncmp(name, "blockDim.", 9);
  if (!g && !bl) return NULL;
  const char *c = name + (g ? 8 : 9);
  int i = !strcmp(c, "x") ? 0 : !strcmp(c, "y") ? 1 : !strcmp(c, "z") ? 2 : -1;
  sym *v = i < 0 ? NULL : g ? grid[i] : block[i];
  return v && !sym_is_unknown(v) ? v : sym_unknown(a);
}

sym *kernels_launch_dim(sym_arena *a, const char *name, sym *grid_x, sym *block_x) {
  int grid = !strncmp(name, "gridDim.", 8), block = !strncmp(name, "blockDim.", 9);
  if (!grid && !block) return NULL;
  sym *v = !strcmp(name, "gridDim.x") ? grid_x : !strcmp(name, "blockDim.x") ? block_x : NULL;
  return v && !sym_is_unknown(v) ? v : sym_unknown(a);
}

typedef struct args_ud {
  const kernel_info *k;
  sym *const *args;
  sym_arena *a;
} args_ud;

static sym *arg_lookup(void *ud, const char *name) {
  args_ud *u = ud;
  for (int i = 0; i < u->k->n_params; i++)
    if (u->k->params[i].name && !strcmp(u->k->params[i].name, name))
      return u->args[i] ? u->args[i] : sym_unknown(u->a);
  return sym_unknown(u->a); /* Note [dense] bounds are over parameters only */
}

int kernels_launch_covers(sym_arena *a, const kernel_info *k, const kernel_param *p,
                          sym *const *args, sym *grid_x, sym *block_x, sym_value_fn value,
                          void *ud) {
  if (!p->dense) return 0;
  if (!p->threads_needed && !p->blocks_needed) return 1;
  if (!grid_x || sym_is_unknown(grid_x)) return 0;
  args_ud au = {k, args, a};
  sym *need = sym_subst(a, p->threads_needed ? p->threads_needed : p->blocks_needed, arg_lookup, &au);
  sym *have = grid_x;
  if (p->threads_needed) {
    if (!block_x || sym_is_unknown(block_x)) return 0;
    have = sym_mul(a, grid_x, block_x);
  }
  if (sym_is_unknown(need) || sym_is_unknown(have)) return 0;
  /* have - need folds to a non-negative polynomial (grid N, block 1) */
  sym *slack = sym_sub(a, have, need);
  if (!sym_is_unknown(slack) && sym_nonneg(slack)) return 1;
  /* ceil-division: grid.x = X / b with block.x = b >= 1 and X >= need + b - 1 */
  if (p->threads_needed && sym_get_kind(grid_x) == SYM_DIV) {
    sym *b = (sym *)sym_rhs(grid_x);
    int64_t bv;
    int b_pos = sym_get_const(b, &bv) ? bv >= 1 : sym_get_kind(b) == SYM_VAR;
    if (b_pos && sym_equal(b, block_x)) {
      sym *x = (sym *)sym_lhs(grid_x);
      sym *d = sym_sub(a, x, sym_add(a, need, sym_sub(a, b, sym_const(a, 1))));
      if (!sym_is_unknown(d) && sym_nonneg(d)) return 1;
    }
  }
  /* numerically, when every name is bound */
  int64_t h, n;
  if (value && sym_eval(have, value, ud, &h) == 0 && sym_eval(need, value, ud, &n) == 0)
    return h >= n;
  return 0;
}
