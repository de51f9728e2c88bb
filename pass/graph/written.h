/* written.h - which file-scope variables the program may write, from its
 * syntax alone (written.c, Note [mutable globals]). */
#ifndef TIDAL_PASS_GRAPH_WRITTEN_H
#define TIDAL_PASS_GRAPH_WRITTEN_H

#include <clang-c/Index.h>
#include "frontend/frontend.h"

typedef struct written_set written_set;

/* The set for the program t belongs to (every input and the project
 * headers they include); freed by written_free (NULL is a no-op). */
written_set *written_build(pass_tu *t);
void written_free(written_set *w);

/* 1 if some code of the program may write the variable var declares (an
 * assignment, ++/--, its address taken, a reference bound to it, any use
 * that is not a plain read); 0 if every use reads it. */
int written_may_write(const written_set *w, CXCursor var);

#endif
