/* build_graph.h - the front half every graph-based command shares: parse
 * the input named by the command-line options and build its graph. */
#ifndef TIDAL_PASS_BUILD_GRAPH_H
#define TIDAL_PASS_BUILD_GRAPH_H

#include "graph/graph.h"
#include "cli/options.h"

/* Parses o->input with o's front-end options and builds its graph with o's
 * --bind and --loop.  *tu receives the parse (frontend_dispose it, even on
 * failure; NULL if parsing failed) and g the graph (zeroed first, so
 * graph_free(g) is always safe).  Returns TIDAL_EXIT_OK, or the exit code
 * of the step that failed, which has printed its diagnostic. */
int graph_build_from_options(const tidal_options *o, pass_tu **tu, graph *g);

/* graph_build_from_options on a parse already made, with one more bind
 * (extra_name = extra_value, when extra_name is not NULL; `tidal fit`
 * builds one graph per value it tries).  No unused-bind warnings. */
int graph_build_parsed(const tidal_options *o, pass_tu *tu, graph *g, const char *extra_name,
                       int64_t extra_value);

/* "warning: --bind b=256: no size, loop or branch of the program uses 'b'
 * (did you mean 'B'?)" for each --bind g never used (graph_build_from_options
 * does it).  A bind named `except` (the command's own, not a --bind; may be
 * NULL) is not warned about: returns 1 when it is unused, with the closest
 * name the program uses in *except_close (NULL: none). */
int graph_warn_unused_binds(const tidal_options *o, const graph *g, const char *except,
                            const char **except_close);

/* Records every file the parse read (output_protect): an output that
 * would replace one is then refused.  graph_build_from_options does it. */
void protect_files_read(const pass_tu *tu);

/* The name messages give the program: o->input, or with -p DIR alone (no
 * input on the command line) the parse's main file, else the folder. */
const char *program_name(const tidal_options *o, const pass_tu *tu);

#endif
