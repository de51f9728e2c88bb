/* options.c - parsing the options shared by every subcommand.
 *
 * One pass over argv; "--" ends tidal's options and the rest goes to
 * clang untouched.  Strings point into argv; only the binds array is
 * allocated (options_free).  Errors are printed here, "tidal: error: ...",
 * and reported as TIDAL_EXIT_BAD_INPUT: the caller just returns it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/spelling.h"
#include "tidal.h"
#include "cli/options.h"
#include "cli/output.h"

/* Every common option once: its bit, and its help line. */
static const struct {
  unsigned bit;
  const char *help;
} option_help[] = {
    {OPT_OUTPUT, "  -o FILE               write the output to FILE (atomically); default stdout\n"},
    {OPT_FORMAT, NULL}, /* per command: which formats (command_options) */
    {OPT_BIND, "  --bind NAME=VALUE     give a symbol the source does not fix a value (repeatable)\n"},
    {OPT_LOOP, "  --loop FILE:LINE      use the loop at FILE:LINE as the training loop\n"},
    {OPT_COMPDB, "  -p BUILD_DIR          read the input's flags from BUILD_DIR/compile_commands.json\n"},
    {OPT_PLAN, "  --plan MODE           memory plan: auto, swap, recompute or none\n"},
    {OPT_BUDGET, "  --budget SIZE|PCT     device memory budget (512M, 8G, or 50% of the program's peak)\n"},
    {OPT_REQUIRE_PLAN, "  --require-plan        fail when no plan is made or the plan misses the budget\n"},
    {OPT_MIN_COVERAGE, "  --min-coverage=PCT    fail when tidal manages less than PCT% of the device memory\n"},
    {OPT_MAX_OPS, "  --max-ops N           stop unrolling past N ops + loop iterations (default 2000000)\n"},
    {OPT_NO_SPLIT, "  --no-split            run every op whole (no elementwise launch in pieces)\n"},
    {OPT_CLANG, "  -- FLAGS...           pass the remaining flags to clang\n"},
};

/* Which common options each command takes, and its output formats (its
 * own options are parsed by its extra_fn, and listed in own_options).  A
 * command missing here accepts them all. */
static const struct {
  const char *command;
  unsigned opts;
  const char *formats; /* for --help's --format line */
} command_options[] = {
    {"graph", OPT_OUTPUT | OPT_FORMAT | OPT_BIND | OPT_LOOP | OPT_COMPDB | OPT_MIN_COVERAGE | OPT_PLAN | OPT_BUDGET |
                  OPT_MAX_OPS | OPT_NO_SPLIT | OPT_CLANG, "text, json or dot"},
    {"kernels", OPT_OUTPUT | OPT_FORMAT | OPT_COMPDB | OPT_CLANG, "text or json"},
    {"rewrite", OPT_OUTPUT | OPT_BIND | OPT_LOOP | OPT_COMPDB | OPT_PLAN | OPT_BUDGET |
                    OPT_REQUIRE_PLAN | OPT_MIN_COVERAGE | OPT_MAX_OPS | OPT_NO_SPLIT | OPT_CLANG, NULL},
    {"replay", OPT_OUTPUT | OPT_FORMAT | OPT_BIND | OPT_LOOP | OPT_COMPDB | OPT_PLAN | OPT_BUDGET |
                   OPT_MAX_OPS | OPT_NO_SPLIT | OPT_CLANG, "text or json"},
    {"fit", OPT_OUTPUT | OPT_FORMAT | OPT_BIND | OPT_LOOP | OPT_COMPDB | OPT_PLAN | OPT_BUDGET |
                OPT_MAX_OPS | OPT_NO_SPLIT | OPT_CLANG, "text or json"},
    {"report", OPT_OUTPUT, NULL},
};

/* Every option a command takes beyond the common ones (its extra_fn, or
 * its own parser, parses them): --help lists them, and an unknown option
 * is compared with them for a suggestion.  `spec` is the option and its
 * value as --help shows them. */
static const struct {
  const char *command;
  const char *spec;
  const char *help;
} own_options[] = {
    {"replay", "--runtime-planner P", "who decides at run time: runtime, hints or lru (default: "
                                      "hints with a plan, runtime with --plan none)"},
    {"replay", "--iterations N", "iterations to run, 2 to 1000 (default 2; 4 with the run-time "
                                 "planner)"},
    {"replay", "--chunk SIZE", "the runtime's eviction unit, a power of two of at least 4K "
                               "(default 2M, the CUDA backend's)"},
    {"replay", "--cost KEY=VALUE", "a cost model key: peak_flops, hbm_bw, launch, h2d_bw, d2h_bw "
                                   "or latency (repeatable; also TIDAL_COST_<KEY>)"},
    {"replay", "--costs FILE", "the simulator's per-call costs (runtime/device/sim_costs.txt format)"},
    {"replay", "--profile FILE", "op durations measured on a GPU (a TIDAL_PROFILE file)"},
    {"replay", "--trace FILE", "write the managed run's libtidal trace (Chrome trace-event JSON)"},
    {"replay", "--timeline FILE.svg", "draw the managed run's memory timeline"},
    {"replay", "--sync-as-written", "model the loop's cudaDeviceSynchronize as written (it waits "
                                    "for tidal's copies too), not as the rewrite's "
                                    "tidal_device_synchronize: a rewrite from before 2026-11-28"},
    {"replay", "--break WHAT", "for tests: break the plan on purpose (skip-prefetch, drop-live, "
                               "split-no-advance)"},
    {"replay", "--separate-programs", "each FILE is a program of its own (not the files of one): "
                                      "all replay at once under one shared --budget SIZE"},
    {"fit", "--vary NAME=LO..HI", "the size to vary (a name the program reads at run time) and "
                                  "its range (required)"},
    {"fit", "--max-overhead PCT", "the most modelled steady-state overhead a value may cost "
                                  "(default 25%)"},
    {"report", "--iteration N", "which iteration (0 is the first); default: the last complete "
                                "one"},
    {"report", "--title TEXT", "the picture's title"},
};

unsigned options_accepted(const char *command) {
  for (size_t i = 0; i < sizeof command_options / sizeof command_options[0]; i++)
    if (command && !strcmp(command, command_options[i].command)) return command_options[i].opts;
  return ~0u;
}

static const char *command_formats(const char *command) {
  for (size_t i = 0; i < sizeof command_options / sizeof command_options[0]; i++)
    if (command && !strcmp(command, command_options[i].command)) return command_options[i].formats;
  return "text, json or dot";
}

/* "  --name ARG            help" as the common options' lines are laid out
 * (help from column 24, at least two spaces after the option, which the
 * man page generator relies on), wrapped before column 100. */
#define HELP_COL 24
static void help_line(FILE *fp, const char *spec, const char *help) {
  int col = fprintf(fp, "  %s", spec);
  if (col > HELP_COL - 2) fprintf(fp, "\n%*s", HELP_COL, ""), col = HELP_COL;
  else col += fprintf(fp, "%*s", HELP_COL - col, "");
  const char *p = help;
  while (*p) {
    const char *w = p;
    while (*w && *w != ' ') w++;
    int len = (int)(w - p);
    if (col + len > 99 && col > HELP_COL) fprintf(fp, "\n%*s", HELP_COL, ""), col = HELP_COL;
    col += fprintf(fp, "%.*s", len, p);
    p = w;
    while (*p == ' ') p++;
    if (*p) fputc(' ', fp), col++;
  }
  fputc('\n', fp);
}

void options_print_help(FILE *fp, const char *command) {
  unsigned ok = options_accepted(command);
  for (size_t i = 0; i < sizeof option_help / sizeof option_help[0]; i++) {
    if (!(ok & option_help[i].bit)) continue;
    if (option_help[i].bit == OPT_FORMAT) {
      char h[96];
      snprintf(h, sizeof h, "output format: %s (default text)", command_formats(command));
      help_line(fp, "--format FMT", h);
    } else {
      fputs(option_help[i].help, fp);
    }
  }
  for (size_t i = 0; i < sizeof own_options / sizeof own_options[0]; i++)
    if (command && !strcmp(command, own_options[i].command))
      help_line(fp, own_options[i].spec, own_options[i].help);
  fputs("  -h, --help            print this help\n", fp);
}

int options_named_value(int argc, char **argv, int *i, const char *const *names, int n,
                        const char **value) {
  const char *a = argv[*i];
  for (int k = 0; k < n; k++) {
    size_t len = strlen(names[k]);
    if (strncmp(a, names[k], len) != 0) continue;
    if (a[len] == '=') {
      *value = a + len + 1;
      return k;
    }
    if (a[len] != '\0') continue; /* a longer name ("--costs" is not "--cost") */
    if (*i + 1 >= argc) {
      diag_error(NULL, 0, 0, "option '%s' needs a value", names[k]);
      return -2;
    }
    *value = argv[++*i];
    return k;
  }
  return -1;
}

/* The option name of a help spec or line: "--chunk SIZE" -> "--chunk". */
static size_t option_name(const char *spec, char *out, size_t cap) {
  while (*spec == ' ') spec++;
  size_t n = 0;
  while (spec[n] && spec[n] != ' ' && spec[n] != ',' && spec[n] != '=' && n + 1 < cap) {
    out[n] = spec[n];
    n++;
  }
  out[n] = '\0';
  return n;
}

static void consider(const char *want, const char *name, const char **best, size_t *best_d) {
  static char kept[64][64]; /* names outlive the scan: one slot per candidate */
  static int next;
  size_t d = spelling_distance(want, name);
  if (d < *best_d) {
    snprintf(kept[next], sizeof kept[next], "%s", name);
    *best = kept[next];
    next = (next + 1) % 64;
    *best_d = d;
  }
}

const char *options_suggest(const char *command, const char *arg) {
  char want[64];
  option_name(arg, want, sizeof want); /* "--budegt=50%" -> "--budegt" */
  size_t len = strlen(want), best_d = len <= 4 ? 2 : len / 3 + 1;
  const char *best = NULL;
  char name[64];
  unsigned ok = options_accepted(command);
  for (size_t i = 0; i < sizeof option_help / sizeof option_help[0]; i++) {
    if (!(ok & option_help[i].bit)) continue;
    if (option_help[i].bit == OPT_FORMAT) consider(want, "--format", &best, &best_d);
    else if (option_name(option_help[i].help, name, sizeof name) > 1) consider(want, name, &best, &best_d);
  }
  for (size_t i = 0; i < sizeof own_options / sizeof own_options[0]; i++)
    if (command && !strcmp(command, own_options[i].command) &&
        option_name(own_options[i].spec, name, sizeof name) > 1)
      consider(want, name, &best, &best_d);
  consider(want, "--help", &best, &best_d);
  return best;
}

/* Refuses an option the command does not take (1 = refused). */
static int refuse(const tidal_options *o, unsigned bit, const char *arg) {
  if (options_accepted(o->command) & bit) return 0;
  diag_error(NULL, 0, 0, "'tidal %s' does not take '%s' (see tidal %s --help)", o->command, arg,
             o->command);
  return 1;
}

static const char *format_names[] = {"text", "json", "dot"};

/* If arg is "--name" or "-name", takes the value from the next argument;
 * if "--name=value", from after '='.  Returns 1 and sets *val when arg is
 * this option, 0 if not, -1 after an error (value missing). */
static int take_value(const char *name, int argc, char **argv, int *i, const char **val) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return 0;
  if (arg[n] == '=') {
    *val = arg + n + 1;
    return 1;
  }
  if (arg[n] != '\0') return 0;
  if (*i + 1 >= argc) {
    diag_error(NULL, 0, 0, "option '%s' needs a value", name);
    return -1;
  }
  *val = argv[++*i];
  return 1;
}

static char size_error[320];

const char *options_size_error(void) { return size_error; }

int options_parse_size(const char *text, uint64_t *bytes, double *pct) {
  /* The runtime's parser (runtime/base/size.c, Note [size syntax]): a size means
   * the same in --budget as in TIDAL_BUDGET. */
  tidal_size sz;
  *bytes = 0;
  *pct = 0;
  if (tidal_parse_size(text, &sz) != TIDAL_OK) {
    snprintf(size_error, sizeof size_error, "%s", tidal_last_error());
    return -1;
  }
  if (sz.kind == TIDAL_SIZE_DEVICE_PERCENT) {
    snprintf(size_error, sizeof size_error,
             "'%.40s': N%%dev is of the device's free memory, known only when the program "
             "runs; give bytes or N%% (of the modelled peak)",
             text);
    return -1;
  }
  *bytes = sz.bytes;
  *pct = sz.kind == TIDAL_SIZE_PEAK_PERCENT ? sz.percent : 0;
  return 0;
}

/* A bind name is what the source writes for the value: an identifier, or
 * a member path (cfg.T, model->config.C, dims[2]), subscripts written as
 * tidal names them (vocab_codelen[vocab_size], dims[l + 1]: every name
 * an "unbound" message asks for).  Anything else could never match and
 * would be ignored silently ('x y', '1x', 'a[]'). */
static int is_bind_name(const char *s, const char *end) {
  int need_id = 1;
  while (s < end) {
    if (need_id) {
      if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
      while (s < end && (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                         (*s >= '0' && *s <= '9')))
        s++;
      need_id = 0;
    } else if (*s == '.') {
      s++, need_id = 1;
    } else if (*s == '-' && s + 1 < end && s[1] == '>') {
      s += 2, need_id = 1;
    } else if (*s == '[') {
      /* an index expression: names, numbers, operators, balanced brackets */
      const char *d = ++s;
      int depth = 1;
      for (; s < end && depth > 0; s++) {
        if (*s == '[' || *s == '(') depth++;
        else if (*s == ']' || *s == ')') depth--;
        else if (!(*s == '_' || *s == ' ' || *s == '.' || *s == '>' || *s == '<' ||
                   (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                   (*s >= '0' && *s <= '9') || strchr("+-*/%", *s)))
          return 0;
      }
      if (depth != 0 || s - d < 2) return 0; /* unclosed, or `[]` */
    } else {
      return 0;
    }
  }
  return !need_id;
}

static int parse_bind(tidal_options *o, const char *arg) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || eq[1] == '\0') {
    diag_error(NULL, 0, 0, "--bind expects NAME=VALUE, got '%s'", arg);
    return -1;
  }
  if (!is_bind_name(arg, eq)) {
    diag_error(NULL, 0, 0, "--bind '%.*s': NAME must be an identifier or a member path "
               "as the source writes it (B, cfg.T, model->config.C)", (int)(eq - arg), arg);
    return -1;
  }
  uint64_t bytes = 0;
  double pct = 0;
  /* Integers, optionally with a byte unit (sizes are often bound: 64K). */
  int neg = eq[1] == '-';
  const char *num = eq + 1 + neg;
  size_t ndigits = strspn(num, "0123456789");
  int ok;
  if (ndigits && num[ndigits] == '\0') { /* a plain integer: no unit needed here */
    ok = ndigits <= 19;
    for (size_t k = 0; ok && k < ndigits; k++) bytes = bytes * 10 + (uint64_t)(num[k] - '0');
  } else {
    ok = options_parse_size(num, &bytes, &pct) == 0 && pct == 0;
  }
  if (!ok || bytes > INT64_MAX) {
    diag_error(NULL, 0, 0, "--bind %.*s: '%s' is not an integer", (int)(eq - arg), arg, eq + 1);
    return -1;
  }
  tidal_bind *nb = realloc(o->binds, sizeof *nb * (size_t)(o->n_binds + 1));
  if (!nb) {
    diag_error(NULL, 0, 0, "out of memory");
    return -1;
  }
  o->binds = nb;
  /* The name must be usable without the '=': keep it in a separate copy. */
  char *name = malloc((size_t)(eq - arg) + 1);
  if (!name) {
    diag_error(NULL, 0, 0, "out of memory");
    return -1;
  }
  memcpy(name, arg, (size_t)(eq - arg));
  name[eq - arg] = '\0';
  /* A later --bind of the same name wins: replace in place. */
  for (int k = 0; k < o->n_binds; k++)
    if (!strcmp(o->binds[k].name, name)) {
      free((char *)o->binds[k].name);
      o->binds[k].name = name;
      o->binds[k].text = eq + 1;
      o->binds[k].value = neg ? -(int64_t)bytes : (int64_t)bytes;
      return 0;
    }
  o->binds[o->n_binds].name = name;
  o->binds[o->n_binds].text = eq + 1;
  o->binds[o->n_binds].value = neg ? -(int64_t)bytes : (int64_t)bytes;
  o->n_binds++;
  return 0;
}

static int parse_loop(tidal_options *o, const char *arg) {
  const char *colon = strrchr(arg, ':');
  char *end;
  if (!colon || colon == arg || colon[1] == '\0') goto bad;
  unsigned long line = strtoul(colon + 1, &end, 10);
  if (*end != '\0' || line == 0 || line > 0xffffffffUL) goto bad;
  o->loop_file = arg;
  o->loop_line = (unsigned)line;
  return 0;
bad:
  diag_error(NULL, 0, 0, "--loop expects FILE:LINE, got '%s'", arg);
  return -1;
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int options_parse(tidal_options *o, int argc, char **argv, unsigned allowed_formats,
                  options_extra_fn extra, void *ud) {
  memset(o, 0, sizeof *o);
  o->command = argc > 0 ? argv[0] : "tidal";
  o->min_coverage = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *val = NULL;
    int r;
    if (!strcmp(arg, "--")) {
      if (refuse(o, OPT_CLANG, arg)) goto fail;
      o->n_clang_args = argc - i - 1;
      o->clang_args = (const char *const *)(argv + i + 1);
      break;
    }
    if (extra) {
      r = extra(ud, argc, argv, &i);
      if (r < 0) goto fail;
      if (r > 0) continue;
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      o->help = 1;
      continue;
    }
    if ((r = take_value("-o", argc, argv, &i, &val)) != 0) {
      if (r < 0 || refuse(o, OPT_OUTPUT, "-o")) goto fail;
      o->output = val;
      continue;
    }
    if ((r = take_value("--format", argc, argv, &i, &val)) != 0) {
      if (r < 0 || refuse(o, OPT_FORMAT, "--format")) goto fail;
      int f = -1;
      for (int k = 0; k < 3; k++)
        if (!strcmp(val, format_names[k])) f = k;
      if (f < 0 || !(allowed_formats & (1u << f))) {
        diag_error(NULL, 0, 0, "'tidal %s' does not support --format '%s'", o->command, val);
        goto fail;
      }
      o->format = (tidal_format)f;
      o->format_given = 1;
      continue;
    }
    if ((r = take_value("--bind", argc, argv, &i, &val)) != 0) {
      if (r < 0 || refuse(o, OPT_BIND, "--bind") || parse_bind(o, val) < 0) goto fail;
      continue;
    }
    if ((r = take_value("--loop", argc, argv, &i, &val)) != 0) {
      if (r < 0 || refuse(o, OPT_LOOP, "--loop") || parse_loop(o, val) < 0) goto fail;
      continue;
    }
    if ((r = take_value("-p", argc, argv, &i, &val)) != 0) {
      if (r < 0 || refuse(o, OPT_COMPDB, "-p")) goto fail;
      o->compdb_dir = val;
      continue;
    }
    if ((r = take_value("--plan", argc, argv, &i, &val)) != 0) {
      if (r < 0 || refuse(o, OPT_PLAN, "--plan")) goto fail;
      o->plan = val;
      continue;
    }
    if (!strcmp(arg, "--no-split")) {
      if (refuse(o, OPT_NO_SPLIT, arg)) goto fail;
      o->no_split = 1;
      continue;
    }
    if ((r = take_value("--max-ops", argc, argv, &i, &val)) != 0) {
      char *end;
      if (r < 0 || refuse(o, OPT_MAX_OPS, "--max-ops")) goto fail;
      errno = 0;
      long long v = val[0] >= '0' && val[0] <= '9' ? strtoll(val, &end, 10) : -1;
      if (v <= 0 || errno || *end != '\0') {
        diag_error(NULL, 0, 0, "--max-ops expects a positive integer, got '%s'", val);
        goto fail;
      }
      o->max_ops = v;
      continue;
    }
    if ((r = take_value("--budget", argc, argv, &i, &val)) != 0) {
      uint64_t b;
      double pct;
      if (r < 0 || refuse(o, OPT_BUDGET, "--budget")) goto fail;
      if (options_parse_size(val, &b, &pct) != 0) {
        diag_error(NULL, 0, 0, "--budget: %s", options_size_error());
        goto fail;
      }
      if (pct == 0 && b == 0) {
        diag_error(NULL, 0, 0, "--budget: '%s': a budget must be more than 0 bytes (for no "
                   "budget, leave --budget out)", val);
        goto fail;
      }
      o->budget = val;
      continue;
    }
    if (!strcmp(arg, "--require-plan")) {
      if (refuse(o, OPT_REQUIRE_PLAN, arg)) goto fail;
      o->require_plan = 1;
      continue;
    }
    if ((r = take_value("--min-coverage", argc, argv, &i, &val)) != 0) {
      char *end;
      if (r < 0 || refuse(o, OPT_MIN_COVERAGE, "--min-coverage")) goto fail;
      errno = 0;
      double v = strtod(val, &end);
      if (*end == '%') end++;
      if (errno || end == val || *end || !(v >= 0 && v <= 100)) {
        diag_error(NULL, 0, 0, "--min-coverage expects a percentage from 0 to 100, got '%s'", val);
        goto fail;
      }
      o->min_coverage = v;
      continue;
    }
    if (arg[0] == '-' && arg[1] != '\0') {
      const char *close = options_suggest(o->command, arg);
      if (close)
        diag_error(NULL, 0, 0, "unknown option '%s' (did you mean '%s'?)", arg, close);
      else
        diag_error(NULL, 0, 0, "unknown option '%s' (see tidal %s --help)", arg, o->command);
      goto fail;
    }
    /* several inputs form one program (docs/design.md, "Whole-program input") */
    const char **ni = realloc(o->inputs, (size_t)(o->n_inputs + 1) * sizeof *ni);
    if (!ni) {
      diag_error(NULL, 0, 0, "out of memory");
      goto fail;
    }
    o->inputs = ni;
    o->inputs[o->n_inputs++] = arg;
    if (!o->input) o->input = arg;
  }
  /* -p DIR alone takes every entry of DIR/compile_commands.json */
  if (!o->input && !o->help && !o->compdb_dir) {
    diag_error(NULL, 0, 0, "no input file (usage: tidal %s FILE.cu [options] [-- clang flags])",
               o->command);
    goto fail;
  }
  /* Refused before any work: the input as output, a directory, a link. */
  /* `rewrite -o DIR/` writes one file per program file (cmd_rewrite.c) */
  int dir_out = o->output && o->command && !strcmp(o->command, "rewrite") &&
                (o->output[strlen(o->output) - 1] == '/' || is_dir(o->output));
  for (int k = 0; k < o->n_inputs; k++) output_protect(o->inputs[k]);
  if (o->compdb_dir) {
    char db[4096];
    snprintf(db, sizeof db, "%s/compile_commands.json", o->compdb_dir);
    output_protect(db);
  }
  if (!o->help && !dir_out && output_check(o->output) != 0) goto fail;
  return 0;
fail:
  options_free(o);
  return TIDAL_EXIT_BAD_INPUT;
}

void options_free(tidal_options *o) {
  if (!o) return;
  for (int k = 0; k < o->n_binds; k++) free((char *)o->binds[k].name);
  free(o->binds);
  o->binds = NULL;
  o->n_binds = 0;
  free(o->inputs);
  o->inputs = NULL;
  o->n_inputs = 0;
}

frontend_options options_frontend(const tidal_options *o) {
  frontend_options f;
  f.input = o->input;
  f.n_inputs = o->n_inputs;
  f.inputs = o->inputs;
  f.compdb_dir = o->compdb_dir;
  f.n_clang_args = o->n_clang_args;
  f.clang_args = o->clang_args;
  return f;
}

int options_lookup_bind(const tidal_options *o, const char *name, int64_t *out) {
  for (int k = 0; k < o->n_binds; k++)
    if (!strcmp(o->binds[k].name, name)) {
      *out = o->binds[k].value;
      return 1;
    }
  return 0;
}

int options_env_flag(const char *name, int dflt, int *out) {
  const char *vv = getenv(name);
  *out = dflt;
  if (!vv || !*vv) return 0;
  static const char *const on[] = {"1", "yes", "on", "true"}, *const off[] = {"0", "no", "off",
                                                                              "false"};
  for (int q = 0; q < 4; q++) {
    if (strcasecmp(vv, on[q]) == 0) return *out = 1, 0;
    if (strcasecmp(vv, off[q]) == 0) return *out = 0, 0;
  }
  diag_error(NULL, 0, 0, "%s must be 1/0, yes/no, on/off, not '%s'", name, vv);
  return -1;
}
