/* commands.h - the tidal tool's subcommands.
 *
 * main.c dispatches "tidal NAME ..." to cmd_NAME(argc, argv) with argv[0]
 * being NAME.  Each returns a process exit code (diag.h: 0 ok, 1 bad
 * input, 2 internal).  main.c holds weak fallbacks so the tool links
 * before every command exists; a file defining the real one overrides it. */
#ifndef TIDAL_PASS_COMMANDS_H
#define TIDAL_PASS_COMMANDS_H

int cmd_graph(int argc, char **argv);   /* cmd_graph.c */
int cmd_rewrite(int argc, char **argv); /* cmd_rewrite.c */
int cmd_replay(int argc, char **argv);  /* cmd_replay.c */
int cmd_kernels(int argc, char **argv); /* cmd_kernels.c */
int cmd_report(int argc, char **argv);  /* cmd_report.c */
int cmd_fit(int argc, char **argv);     /* cmd_fit.c */

/* Draws the timeline of a libtidal trace as SVG (cmd_report.c); iteration
 * -1 is the last complete one; unmanaged_bytes (0: the trace's allocated
 * bytes) is drawn as the footprint without tidal: `tidal replay` gives the
 * unmanaged run's peak in whole chunks, the budget's units.  Returns an
 * exit code. */
int report_render(const char *trace_path, const char *svg_path, int iteration, const char *title,
                  unsigned long long unmanaged_bytes);

#endif
