/* stack.h - deep inputs against the native stack.
 *
 * The analysis recurses over the AST: expressions in the interpreter
 * (graph/interp*.c) and the kernel analysis (analysis/kernels*.c),
 * statements, and libclang's parser and visitors underneath.  Legal code
 * can nest thousands of levels (a generated sum of 10,000 terms, 800
 * unbraced ifs), so the tool runs on a thread with a large stack
 * (stack_run), and the recursive walkers ask stack_too_deep() before going
 * deeper: when the reserve at the end of the stack is reached they print
 * one clang-style error naming the construct and unwind, and the command
 * ends with exit 1 instead of a SIGSEGV. */
#ifndef TIDAL_PASS_STACK_H
#define TIDAL_PASS_STACK_H

#include <stddef.h>
#include <clang-c/Index.h>

/* The stack the tool runs on: 512 MiB (address space; only the pages a
 * deep input touches are ever backed), or TIDAL_PASS_STACK bytes (with a
 * K/M suffix) when set, which tests use to reach the limit cheaply. */
size_t stack_default_size(void);

/* Runs fn(arg) on a new thread with a stack of `bytes` and returns its
 * result; runs it on the calling thread when no such thread can be made. */
int stack_run(int (*fn)(void *), void *arg, size_t bytes);

/* 1 when the calling thread (one started by stack_run) is within the
 * reserve (an eighth of its stack, at least 1 MiB) of its end, after
 * printing, once per process, "FILE:L:C: error: WHAT nested too deeply
 * ..." at `at`.  Callers return at once, with whatever value means
 * "unknown"; the stage that owns the walk then fails (stack_exhausted). */
int stack_too_deep(CXCursor at, const char *what);

/* 1 once stack_too_deep has reported: the analysis is incomplete. */
int stack_exhausted(void);

#endif
