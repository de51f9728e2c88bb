/* main.c - the tidal tool's entry point: dispatches subcommands.
 *
 * Subcommands are a table (name -> cmd_NAME, help line).  Each cmd_NAME is
 * defined in its own cmd_*.c; the weak fallbacks below let the tool link
 * and report "not built yet" while a command's file does not exist, and a
 * strong definition anywhere overrides them at link time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "base/diag.h"
#include "base/progress.h"
#include "base/stack.h"

#ifndef TIDAL_VERSION
#define TIDAL_VERSION "unknown"
#endif

static int not_built(const char *name) {
  fprintf(stderr, "tidal: error: '%s' is not built yet\n", name);
  return TIDAL_EXIT_INTERNAL;
}

__attribute__((weak)) int cmd_graph(int argc, char **argv) { return not_built("graph"); }
__attribute__((weak)) int cmd_rewrite(int argc, char **argv) { return not_built("rewrite"); }
__attribute__((weak)) int cmd_replay(int argc, char **argv) { return not_built("replay"); }
__attribute__((weak)) int cmd_kernels(int argc, char **argv) { return not_built("kernels"); }
__attribute__((weak)) int cmd_report(int argc, char **argv) { return not_built("report"); }
__attribute__((weak)) int cmd_fit(int argc, char **argv) { return not_built("fit"); }

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} command;

static const command commands[] = {
    {"graph", cmd_graph, "print the per-iteration tensor dataflow graph of a training program"},
    {"rewrite", cmd_rewrite, "insert libtidal calls (instrumentation and a memory plan)"},
    {"replay", cmd_replay, "execute the program's op trace and plan on the CPU simulator"},
    {"fit", cmd_fit, "find the largest batch (or other run-time size) that fits a budget"},
    {"kernels", cmd_kernels, "print what each __global__ kernel reads and writes"},
    {"report", cmd_report, "draw a libtidal trace's memory timeline as SVG"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: tidal COMMAND FILE.cu [options] [-- clang flags]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\n'tidal COMMAND --help' describes a command's options.\n"
             "  --help     this message\n  --version  print the version\n");
}

typedef struct main_args {
  int argc;
  char **argv;
} main_args;

static int run_command(void *p);

/* Deep inputs recurse deeply (base/stack.h): the command runs on a thread
 * with a big stack, and libclang parses on that same thread instead of
 * its own 8 MiB one (LIBCLANG_NOTHREADS; its crash recovery is kept). */
int main(int argc, char **argv) {
  setenv("LIBCLANG_NOTHREADS", "1", 1);
  main_args a = {argc, argv};
  return stack_run(run_command, &a, stack_default_size());
}

static int run_command(void *p) {
  int argc = ((main_args *)p)->argc;
  char **argv = ((main_args *)p)->argv;
  if (argc < 2) {
    usage(stderr);
    return TIDAL_EXIT_BAD_INPUT;
  }
  const char *name = argv[1];
  if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
    usage(stdout);
    return TIDAL_EXIT_OK;
  }
  if (!strcmp(name, "--version")) {
    printf("tidal %s\n", TIDAL_VERSION);
    return TIDAL_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(name, commands[i].name)) {
      progress_begin(); /* a status line on a terminal after two seconds */
      int rc = commands[i].run(argc - 1, argv + 1);
      progress_done();
      return rc;
    }
  if (name[0] == '-')
    fprintf(stderr, "tidal: error: unknown option '%s' (expected a command first)\n", name);
  else
    fprintf(stderr, "tidal: error: unknown command '%s'\n", name);
  usage(stderr);
  return TIDAL_EXIT_BAD_INPUT;
}
