/* cursor.h - small libclang cursor questions every stage that reads syntax
 * shares: the children of a cursor, a function's parameters, the
 * expression under the wrappers libclang does not expose, integer and
 * pointer types and object sizes, a builtin's member name.
 *
 * Bounds are the caller's: cursor_children fills the array it is given and
 * answers the true count, so a caller that must see every child (the
 * statements of a block, the children of a declaration) knows when its
 * array was too small and takes cursor_children_all instead. */
#ifndef TIDAL_PASS_CURSOR_H
#define TIDAL_PASS_CURSOR_H

#include <clang-c/Index.h>
#include <stdint.h>

/* Stores the first max children of c (every kind: TypeRefs, attributes,
 * expressions, statements) in out[0..max), in order, and returns how many
 * c has: a result above max means out holds only the first max.  out may
 * be NULL when max is 0 (just the count). */
int cursor_children(CXCursor c, CXCursor *out, int max);

/* Every child of c, in order, in a malloc'd array at *out (the caller
 * frees it; NULL when there are none).  Returns the count, or -1 when out
 * of memory (*out NULL). */
int cursor_children_all(CXCursor c, CXCursor **out);

/* c's first child of any kind, or a null cursor. */
CXCursor cursor_first_child(CXCursor c);

/* c's last child of any kind, or a null cursor; every child is looked
 * at (a block's last statement, a loop's body). */
CXCursor cursor_last_child(CXCursor c);

/* c's last child that is an expression, or a null cursor; every child is
 * looked at.  The operand of a cast and the initializer of a declaration
 * come after the TypeRefs, NamespaceRefs, template arguments and
 * attributes that spell the type, however many there are.  For a
 * declaration without initializer that may be an expression of its type
 * (an array bound, a template argument). */
CXCursor cursor_last_expr_child(CXCursor c);

/* The body of a function definition f: its CompoundStmt child, found
 * among any number of children (parameters, attributes and template
 * parameters come first); a null cursor for a declaration. */
CXCursor cursor_fn_body(CXCursor f);

/* e without the wrappers that leave the written expression unchanged:
 * ParenExpr, and UnexposedExpr with exactly one child that is an
 * expression.  libclang shows implicit conversions (lvalue-to-rvalue,
 * promotions, array and function decay), ExprWithCleanups and
 * MaterializeTemporaryExpr that way.  An UnexposedExpr with several
 * children or a non-expression one is an expression of its own (`T(x)` in
 * a template, GNU `a ?: b`, `size_t()`): e stops there.  Explicit casts
 * are kept (cursor_strip_casts goes through them). */
CXCursor cursor_strip(CXCursor e);

/* cursor_strip, and through explicit casts too (C-style, static_cast,
 * reinterpret_cast, const_cast, functional `T(x)`) to their operand: for
 * questions about what was written under the cast, not its value (the
 * flag `(int)done`, the null constant `(float *)0`). */
CXCursor cursor_strip_casts(CXCursor e);

/* 1 and *out when clang evaluates e to an integer (literals, enumerators,
 * sizeof, constant expressions, constexpr calls); 0 and *out untouched
 * otherwise.  An unsigned value above INT64_MAX keeps its bits (wraps). */
int cursor_eval_int(CXCursor e, int64_t *out);

/* The parameters (ParmDecls) of a function, method or function template,
 * however many, in order, in a malloc'd array at *out (the caller frees
 * it; NULL when there are none).  Returns the count, or -1 when out of
 * memory (*out NULL).  clang_Cursor_getNumArguments answers -1 for a
 * FunctionTemplate; its ParmDecl children are the parameters then. */
int cursor_fn_params(CXCursor f, CXCursor **out);

/* 1 for integer types (bool, char ... __int128, enums), through typedefs. */
int cursor_is_integer_type(CXType t);

/* 1 for the unsigned integer types (bool, unsigned char ... unsigned
 * __int128, char16_t, char32_t), through typedefs (size_t). */
int cursor_is_unsigned_type(CXType t);

/* 1 for pointer types, through typedefs; arrays, references and block
 * pointers are not. */
int cursor_is_pointer_type(CXType t);

/* Size in bytes of an object type, 0 if it has none or it is not known
 * (void, functions, references, arrays without a constant size, dependent
 * and placeholder types).  Never asks libclang the size of a placeholder
 * type: the callee of a member call (`in[i].operator float` in `(float)in[i]`
 * of a __half) has "bound member function type" and threadIdx.x
 * "pseudo-object type", both CXType_Unexposed, and clang_Type_getSizeOf
 * crashes inside libclang on them. */
int cursor_type_bytes(CXType t);

/* cursor_type_bytes of what a pointer or reference type points to; 0 for
 * other types. */
int cursor_pointee_bytes(CXType t);

/* The member a MemberRefExpr names, malloc'd (NULL if none).  clang's CUDA
 * builtins (threadIdx.x) are property references whose cursor spelling is
 * empty: then the last token of the expression. */
char *cursor_member_name(CXCursor e);

#endif
