/* interp_impl.h - what the pieces of the interpreter share (internal to
 * pass/graph/interp*.c; the rest of the graph stage uses interp.h).
 *
 * The interpreter is one abstract interpreter split by topic, as clang's
 * Sema is: its functions recurse into each other across the pieces
 * (gb_eval -> gb_eval_call -> gb_run_function -> gb_walk_stmt -> gb_eval), so
 * the pieces are one unit for scripts/check_layers.py (no cycle is
 * reported inside it) and one row in graph/README.md's order. */
#ifndef TIDAL_PASS_GRAPH_INTERP_IMPL_H
#define TIDAL_PASS_GRAPH_INTERP_IMPL_H

#include "graph/interp.h"

/* Note [recursion frames]: gb_eval and eval_binary recurse once per level
 * of an expression (a 10,000-term sum is 10,000 levels deep).  Helpers that
 * gb_eval calls but that do not recurse through it keep their large locals
 * out of its frame: inlined, they made gb_eval's frame 10 KB (57 KB under
 * ASan, which overflowed the 512 MiB analysis stack on deep-expression). */
#define GB_NOINLINE __attribute__((noinline))

/* interp.c: values, types, source text. */
gval gb_none_val(void);
const char *gb_paren(gb *b, const char *text, int prec, int need);
int gb_is_plain_lvalue_text(const char *s);
int gb_is_record_type(CXType t);
int gb_is_array_type(CXType t);
int gb_is_global_var(CXCursor decl);
int gb_int_value_const(gb *b, const gval *v, int64_t *out);
gval gb_named_int(gb *b, const char *name, const gval *stored, int is_const_decl);
int gb_sym_mentions(const sym *s, const char *name);

/* interp_lvalue.c: lvalues. */
const char *gb_var_key(gb *b, gb_frame *f, CXCursor decl, const char *name);
int gb_key_keeps_names(gb_frame *f, const char *key);
const char *gb_this_of(gb *b, gb_frame *f);
const char *gb_member_text(gb *b, const char *obj, const char *field);
GB_NOINLINE gval gb_read_lvalue(gb *b, gb_frame *f, const char *key, CXType ty, const char *text,
                                int text_ok);
GB_NOINLINE gval gb_read_array_param(gb *b, gb_frame *f, const char *key, CXType ty,
                                     const char *text, int text_ok);
int gb_is_array_expr(CXCursor e); /* Note [array parameters]: a parameter never is */
void gb_write_lvalue(gb *b, const char *key, const char *text, gval v);

/* interp_expr.c: expressions. */
void gb_copy_struct(gb *b, const char *dst, const char *src);
int gb_returned_struct(gb *b, gb_frame *f, const char *path);
gval gb_assign(gb *b, gb_frame *f, CXCursor lhs, CXCursor rhs_c, gval rhs,
               enum CXBinaryOperatorKind op);

/* interp_select.c: the conditional operator. */
GB_NOINLINE gval gb_select_value(gb *b, gb_frame *f, CXCursor e, CXCursor cond, const gval *c,
                                 const gval *x, const gval *y);
int gb_either_pointer(gb *b, const gval *x, const gval *y, gval *out); /* Note [either pointer] */
GB_NOINLINE gval gb_select_struct(gb *b, gb_frame *f, CXCursor e, CXCursor cond, const gval *c,
                                  const gval *x, const gval *y);

/* interp_call.c: calls. */
int gb_is_user_function(gb *b, CXCursor def);
int gb_bind_call_args(gb *b, gb_frame *f, CXCursor call, CXCursor def, int skip, gval *args,
                      int max);
GB_NOINLINE gval gb_eval_call(gb *b, gb_frame *f, CXCursor e);

/* interp_device.c: cudaGetDeviceProperties, cudaDeviceGetAttribute (Note
 * [device properties]); 1 if call was one and its result was stored. */
int gb_device_query(gb *b, gb_frame *f, CXCursor call, const char *name);

/* interp_cxx.c: heap objects and smart pointers. */
int gb_is_smart_ptr(CXType t);
gval gb_smart_held(gb *b, gb_frame *f, CXCursor e, const char **key_out);
int gb_makes_heap_object(CXCursor e);
GB_NOINLINE gval gb_eval_new(gb *b, gb_frame *f, CXCursor e);
GB_NOINLINE void gb_eval_delete(gb *b, gb_frame *f, CXCursor e);
gval gb_make_smart(gb *b, gb_frame *f, CXCursor e);
void gb_default_members(gb *b, gb_frame *f, const char *obj, CXType t);
int gb_construct_at(gb *b, gb_frame *f, CXCursor e, int first, CXType t, const char *obj);
gval gb_smart_construct(gb *b, gb_frame *f, CXCursor e, const char *obj);
int gb_smart_method(gb *b, gb_frame *f, CXCursor e, CXCursor ref, gval *out);
const char *gb_smart_deref_path(gb *b, gb_frame *f, CXCursor e, const char **text, int *ok);

/* interp_stmt.c: statements. */
void gb_init_store(gb *b, gb_frame *f, const char *key, const char *name, CXType ty, CXCursor init,
                   int depth);
void gb_walk_decl(gb *b, gb_frame *f, CXCursor vd);

/* interp_loop.c: loops. */
void gb_walk_graph_loop_body(gb *b, gb_frame *f, int id, CXCursor cvar, CXCursor body);
void gb_walk_for(gb *b, gb_frame *f, CXCursor s);
void gb_forget_carried(gb *b, gb_frame *f, CXCursor s, const char *skip_key, CXCursor init);
/* interp_schedule.c: compiles periodic branch id's condition (Note [periodic schedules]). */
void gb_branch_schedule(gb *b, gb_frame *f, CXCursor cond, int id);
void gb_walk_train_loop(gb *b, gb_frame *f, CXCursor s);
void gb_walk_range_for(gb *b, gb_frame *f, CXCursor s);

/* interp_container.c: std::vector sizes and elements (Note [container elements]). */
int gb_is_vector_type(CXType t);
int gb_vector_element_call(CXCursor e, CXCursor *ref_out);
const char *gb_vector_element_lvalue(gb *b, gb_frame *f, CXCursor e, const char **text, int *ok,
                                     sym **idx_out);
int gb_vector_method(gb *b, gb_frame *f, CXCursor e, CXCursor ref, gval *out);
int gb_range_for_vector(gb *b, gb_frame *f, CXCursor range, const char **vk, const char **vt,
                        int *vok, int64_t *count);
void gb_bind_range_element(gb *b, gb_frame *f, CXCursor vd, const char *vk, const char *vt,
                           int vok, int64_t k);

/* interp_indirect.c: function values, indirect and virtual calls (callees.h). */
gval gb_func_val(gb *b, CXCursor fn, const char *text);
gval gb_eval_function_ref(gb *b, gb_frame *f, CXCursor e);
CXCursor gb_func_cursor(gb *b, const gval *v);
void gb_set_dynamic_class(gb *b, const char *obj, CXCursor cls);
/* 1 when the call was handled (walked, reported); 0 for a direct call, or
 * with *lib set for one through a pointer that runs library function *lib
 * (interp_call.c then treats it as a call of *lib by name). */
int gb_call_indirect(gb *b, gb_frame *f, CXCursor e, gval *ret, CXCursor *lib);
int gb_loop_dispatches(gb *b, CXCursor body);
const char *gb_method_object(gb *b, gb_frame *f, CXCursor call);

/* interp_branch.c: if statements. */
void gb_walk_if(gb *b, gb_frame *f, CXCursor s);

#endif
