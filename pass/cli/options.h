/* options.h - the command-line options every tidal subcommand shares.
 *
 *   tidal CMD FILE.cu [FILE.cu...] [-o OUT] [--format text|json|dot] [--bind N=V]...
 *                     [--loop FILE:LINE] [-p BUILD_DIR] [--plan MODE]
 *                     [--budget SIZE|PCT] [-- clang flags...]
 *
 * Options may come before or after the input; "--opt=value" and
 * "--opt value" are both accepted.  A command with options of its own
 * passes an extra_fn that sees each argument first.  Strings in the struct
 * point into argv (never freed); only the binds array is allocated. */
#ifndef TIDAL_PASS_OPTIONS_H
#define TIDAL_PASS_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include "frontend/frontend.h"

typedef enum tidal_format {
  FORMAT_TEXT = 0,
  FORMAT_JSON = 1,
  FORMAT_DOT = 2
} tidal_format;

typedef struct tidal_bind {
  const char *name;  /* symbol as written in the source ("B", "cfg.T") */
  const char *text;  /* the value as given */
  int64_t value;     /* the value, parsed (integers only, K/M/G suffixes allowed) */
} tidal_bind;

typedef struct tidal_options {
  const char *command;     /* "graph", "kernels", ... (for messages) */
  const char *input;       /* the first input file; NULL with -p DIR alone (every entry) */
  int n_inputs;            /* every input: several files form one program */
  const char **inputs;     /* allocated (options_free); entries point into argv */
  const char *output;      /* -o, NULL: stdout */
  tidal_format format;     /* --format, default text */
  int format_given;        /* 1 if --format was on the command line */
  int n_binds;             /* --bind, in command-line order */
  tidal_bind *binds;
  const char *loop_file;   /* --loop FILE:LINE, NULL when absent */
  unsigned loop_line;
  const char *compdb_dir;  /* -p DIR */
  const char *plan;        /* --plan, NULL when absent (the command decides the default) */
  const char *budget;      /* --budget, as given; see options_parse_size() */
  int64_t max_ops;         /* --max-ops: unrolled ops per iteration before an error (0: default) */
  int no_split;            /* --no-split: run every op whole, none in pieces */
  int n_clang_args;        /* everything after "--" */
  const char *const *clang_args;
  int help;                /* --help / -h was given: the command prints usage, exits 0 */
  int require_plan;        /* --require-plan: no plan (or an unmet budget) is an error */
  double min_coverage;     /* --min-coverage=PCT; -1 when absent */
} tidal_options;

/* The common options, as bits: each command accepts its own set
 * (options.c, command_options) and --help lists only those; any other is
 * refused, never silently ignored. */
enum {
  OPT_OUTPUT = 1u << 0,       /* -o FILE */
  OPT_FORMAT = 1u << 1,       /* --format */
  OPT_BIND = 1u << 2,         /* --bind NAME=VALUE */
  OPT_LOOP = 1u << 3,         /* --loop FILE:LINE */
  OPT_COMPDB = 1u << 4,       /* -p BUILD_DIR */
  OPT_PLAN = 1u << 5,         /* --plan */
  OPT_BUDGET = 1u << 6,       /* --budget */
  OPT_REQUIRE_PLAN = 1u << 7, /* --require-plan */
  OPT_MIN_COVERAGE = 1u << 8, /* --min-coverage=PCT */
  OPT_CLANG = 1u << 9,        /* -- clang flags */
  OPT_MAX_OPS = 1u << 10,     /* --max-ops N */
  OPT_NO_SPLIT = 1u << 11     /* --no-split */
};

/* Called for every argument (argv[*i]) before the common parser.  Returns
 * 1 if it took the argument (advance *i past any value it also took, e.g.
 * ++*i for "--flag VALUE"), 0 if the argument is not its own, -1 after
 * printing an error.  ud is passed through. */
typedef int (*options_extra_fn)(void *ud, int argc, char **argv, int *i);

/* For an options_extra_fn: when argv[*i] is one of names[0..n) written as
 * "--name VALUE" or "--name=VALUE", sets *value (advancing *i past a
 * separate VALUE) and returns its index in names; -1 when it is none of
 * them; -2 after printing "option '--name' needs a value". */
int options_named_value(int argc, char **argv, int *i, const char *const *names, int n,
                        const char **value);

/* Parses argv[1..argc-1] (argv[0] is the command name).  allowed_formats is
 * a bit set of (1u << FORMAT_x) the command supports.  Returns 0, or prints
 * "tidal: error: ..." and returns TIDAL_EXIT_BAD_INPUT.  When --help is
 * given, returns 0 with help set and input possibly NULL. */
int options_parse(tidal_options *o, int argc, char **argv, unsigned allowed_formats,
                  options_extra_fn extra, void *ud);
void options_free(tidal_options *o); /* frees binds; NULL is a no-op */

/* The frontend options (input, -p, clang flags) from the parsed set. */
frontend_options options_frontend(const tidal_options *o);

/* Looks a bound value up by symbol name; returns 1 and sets *out if bound. */
int options_lookup_bind(const tidal_options *o, const char *name, int64_t *out);

/* A size through the runtime's parser (tidal_parse_size): "512M", "2GiB",
 * "4096B" -> bytes (1024-based units); "50%" (of the modelled peak) ->
 * *pct = 50, *bytes = 0.  A bare number, fractions of a byte unit, hex,
 * exponents and "N%dev" (a run-time notion) are errors.  Returns 0, or -1
 * with the reason in options_size_error() ("'TEXT': why"). */
int options_parse_size(const char *text, uint64_t *bytes, double *pct);
const char *options_size_error(void);

/* Prints the help lines of every option `command` accepts: the common
 * ones it takes (its --format line naming its formats) and its own
 * (options.c, own_options), then -h. */
void options_print_help(FILE *fp, const char *command);
/* The option of `command` closest to the unknown `arg` (a typo: within a
 * few edits), or NULL. */
const char *options_suggest(const char *command, const char *arg);
/* The option bits (OPT_*) `command` accepts. */
unsigned options_accepted(const char *command);

/* A flag variable as libtidal reads it (1/0, yes/no, on/off, true/false),
 * *out = dflt when unset: TIDAL_VMM_THREAD, and through plan_replay_env
 * TIDAL_RELOCATE and TIDAL_PREFETCH_ORDER (the replays of `tidal replay`,
 * `rewrite` and `fit` read them as the runtime does).  0, or
 * -1 after printing an error. */
int options_env_flag(const char *name, int dflt, int *out);

#endif
