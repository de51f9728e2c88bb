/* cmd_rewrite.c - `tidal rewrite FILE.cu [-o OUT.cu] [--plan auto|swap|
 * recompute|none] [--budget SIZE|PCT] [--bind N=V]... [--loop FILE:LINE]
 * [-p DIR] [-- clang flags]`.
 *
 * Refuse tidal's own output (before parsing: it includes tidal.h, which the
 * parse may not find), parse, build the graph, rewrite (rewrite.c), write
 * through output.h (temporary file, then rename): on any error no output
 * file appears, and the input is only ever read.  The default plan is auto;
 * a percentage budget is of the plan's modelled unmanaged peak, as in
 * `tidal replay`.  The plan is made once and costed by replaying it on the
 * simulator (plan_and_cost, Note [one model of cost] in plan_replay.c): the
 * summary line's figures are the replay's. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/build_graph.h"
#include "base/progress.h"
#include "cli/commands.h"
#include "base/diag.h"
#include "graph/graph.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/plan_replay.h"
#include "plan/costmodel.h"
#include "cli/summary.h"
#include "rewrite/rewrite.h"

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: tidal rewrite FILE.cu [-o OUT.cu] [--plan auto|swap|recompute|none]\n"
          "                     [--budget SIZE|PCT] [--bind NAME=VALUE]... [--loop FILE:LINE]\n"
          "                     [-p BUILD_DIR] [-- clang flags...]\n"
          "Writes FILE.cu with libtidal calls inserted: every op site instrumented, the\n"
          "training loop marked, cudaMalloc/cudaFree replaced, and the static memory plan\n"
          "as explicit calls.  Compile the result with -I<tidal>/include and link libtidal.\n");
  options_print_help(fp, "rewrite");
}

/* 1 if the file starts (within RW_MARKER_SCAN_BYTES) with tidal's marker. */
static int input_is_tidal_output(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0; /* the front end reports a missing file */
  char buf[RW_MARKER_SCAN_BYTES];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return rw_is_tidal_output(buf, n);
}

/* -o DIR/ (a trailing slash or an existing folder): one file per rewritten
 * file of the program. */
static int output_is_dir(const char *path) {
  if (!path || !*path) return 0;
  struct stat st;
  return path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

static int mkdir_p(char *path) {
  for (char *q = path + 1; *q; q++) {
    if (*q != '/') continue;
    *q = '\0';
    int bad = mkdir(path, 0777) != 0 && errno != EEXIST;
    *q = '/';
    if (bad) return -1;
  }
  return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* A file is written when it is an input or has something to instrument. */
static int to_write(const pass_tu *f, const graph *g) {
  const graph_file *gf = f->file_index < g->n_files ? &g->files[f->file_index] : NULL;
  return f->is_unit || (gf && (gf->n_sites > 0 || gf->n_mems > 0));
}

/* Writes text to path, creating its folder. */
static int write_at(char *path, const char *text, size_t n) {
  char *slash = strrchr(path, '/');
  if (slash && slash != path) {
    *slash = '\0';
    if (mkdir_p(path) != 0) {
      diag_error(path, 0, 0, "cannot create the folder: %s", strerror(errno));
      *slash = '/';
      return TIDAL_EXIT_BAD_INPUT;
    }
    *slash = '/';
  }
  return output_write_all(path, text, n);
}

/* Note [headers beside the rewrite]: a rewritten project header written to
 * DIR/llmc/matmul.cuh includes its neighbours by their relative names
 * (`#include "cublas_common.h"`), which the compiler looks up beside the
 * including file first: DIR/llmc/.  Unless the neighbour was rewritten
 * too, it is not there, and nothing else finds it (llm.c's headers include
 * each other this way; only the trainer's folder is on the include path).
 * So the project headers the program includes from below the folder the
 * outputs share are copied, unchanged, to their place under DIR as well:
 * DIR holds the program's tree, and every quoted include of a file in it
 * resolves as it did in the original.  System headers and files outside
 * that folder (a -include shim given by path) are left where they are. */
typedef struct copy_ud {
  const char *base; /* the shared folder (real path, first `root` bytes) */
  size_t root;
  char **paths;     /* real paths of included project headers not written */
  int n, cap;
  char *const *written;
  int n_written;
} copy_ud;

static void inclusion_visitor(CXFile f, CXSourceLocation *stack, unsigned depth,
                              CXClientData d) {
  copy_ud *u = d;
  if (depth == 0) return; /* the unit itself */
  if (clang_Location_isInSystemHeader(stack[0])) return;
  char *name = string_and_dispose(clang_getFileName(f));
  char buf[PATH_MAX];
  int ok = name && realpath(name, buf);
  free(name);
  if (!ok || strncmp(buf, u->base, u->root) || buf[u->root] != '/') return;
  for (int i = 0; i < u->n_written; i++)
    if (u->written[i] && !strcmp(u->written[i], buf)) return;
  for (int i = 0; i < u->n; i++)
    if (!strcmp(u->paths[i], buf)) return;
  if (u->n == u->cap) {
    int nc = u->cap ? u->cap * 2 : 32;
    char **np = realloc(u->paths, (size_t)nc * sizeof *np);
    if (!np) return;
    u->paths = np;
    u->cap = nc;
  }
  if ((u->paths[u->n] = strdup(buf))) u->n++;
}

/* Reads a whole file; NULL on error (reported). */
static char *read_all(const char *path, size_t *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    diag_error(path, 0, 0, "cannot read: %s", strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *p = malloc(cap);
  while (p) {
    size_t k = fread(p + len, 1, cap - len, fp);
    len += k;
    if (len < cap) break;
    char *q = realloc(p, cap *= 2);
    if (!q) {
      free(p);
      p = NULL;
    }
    p = q;
  }
  fclose(fp);
  *n = len;
  return p;
}

/* Writes every file of the program under dir, at its path relative to the
 * folder all of them share (so `#include "sub/x.cu"` of a rewritten file
 * finds the rewritten x.cu beside it).  Every destination is checked
 * before any is written (output_check, Note [protected files] in
 * output.c): `-o ./` beside the input would otherwise replace it. */
static int rewrite_to_dir(pass_tu *t, graph *g, const rw_request *req, const char *dir,
                          const tidal_options *o, const replay_report *cost) {
  int n = g->n_files;
  char **real = calloc((size_t)n, sizeof *real);
  char **dst = calloc((size_t)n, sizeof *dst);
  copy_ud cu;
  memset(&cu, 0, sizeof cu);
  char **cdst = NULL;
  size_t root = 0;
  const char *base = NULL;
  int rc = TIDAL_EXIT_INTERNAL, first = 1;
  if (!real || !dst) goto out;
  for (int i = 0; i < n; i++) {
    if (!to_write(t->prog->files[i], g)) continue;
    char buf[PATH_MAX];
    if (!realpath(t->prog->files[i]->main_path, buf)) continue;
    if (!(real[i] = strdup(buf))) goto out;
    /* the longest common folder so far: root is the offset of its last '/' */
    if (first) {
      base = real[i];
      root = (size_t)(strrchr(base, '/') - base);
      first = 0;
    } else {
      size_t k = 0;
      while (k < root && real[i][k] == base[k]) k++;
      if (k < root || real[i][root] != '/') {
        while (k > 0 && !(base[k] == '/' && real[i][k] == '/')) k--;
        root = k;
      }
    }
  }
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/') dl--;
  for (int i = 0; i < n; i++) {
    if (!real[i]) continue;
    size_t len = dl + strlen(real[i] + root) + 2;
    if (!(dst[i] = malloc(len))) goto out;
    snprintf(dst[i], len, "%.*s%s", (int)dl, dir, real[i] + root);
    if (output_check(dst[i]) != 0) {
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
  }
  /* Note [headers beside the rewrite]: the other project headers, copied */
  if (base) {
    pass_tu *const *units;
    int nu = program_units(t, &units);
    cu.base = base;
    cu.root = root;
    cu.written = real;
    cu.n_written = n;
    for (int k = 0; k < nu; k++) clang_getInclusions(units[k]->tu, inclusion_visitor, &cu);
    if (cu.n && !(cdst = calloc((size_t)cu.n, sizeof *cdst))) goto out;
    for (int k = 0; k < cu.n; k++) {
      size_t len = dl + strlen(cu.paths[k] + root) + 2;
      if (!(cdst[k] = malloc(len))) goto out;
      snprintf(cdst[k], len, "%.*s%s", (int)dl, dir, cu.paths[k] + root);
      if (output_check(cdst[k]) != 0) {
        rc = TIDAL_EXIT_BAD_INPUT;
        goto out;
      }
    }
  }
  for (int i = 0; i < n; i++) {
    if (!real[i]) continue;
    char *text = NULL;
    size_t text_n = 0;
    rw_report rep;
    rc = rw_rewrite(t->prog->files[i], g, req, &text, &text_n, &rep);
    if (rc == 0 && i == 0) {
      /* the warnings and summary once, for the program (the file defining main) */
      graph_coverage cov;
      graph_coverage_of(g, rep.alloc_managed, &cov);
      summary_graph_warnings(g, rep.alloc_managed);
      summary_rewrite_warnings(t->main_path, &rep, req->budget_text != NULL, cost);
      summary_line(t->main_path, &cov, &rep, cost);
      rc = summary_check(t->main_path, &cov, &rep, o->require_plan, o->min_coverage, cost);
    }
    rw_report_free(&rep);
    if (rc != 0) {
      free(text);
      goto out;
    }
    rc = write_at(dst[i], text, text_n);
    free(text);
    if (rc != 0) goto out;
  }
  for (int k = 0; k < cu.n; k++) {
    size_t len = 0;
    char *text = read_all(cu.paths[k], &len);
    if (!text) {
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
    rc = write_at(cdst[k], text, len);
    free(text);
    if (rc != 0) goto out;
  }
  rc = TIDAL_EXIT_OK;
out:
  for (int i = 0; i < n; i++) {
    if (real) free(real[i]);
    if (dst) free(dst[i]);
  }
  for (int k = 0; k < cu.n; k++) {
    free(cu.paths[k]);
    if (cdst) free(cdst[k]);
  }
  free(cu.paths);
  free(cdst);
  free(real);
  free(dst);
  return rc;
}

/* Note [one output file]: with -o OUT.cu only the input is rewritten.  Op
 * sites or allocation calls in the project headers it includes (llm.c's
 * kernels live in llmc/ headers) would then run uninstrumented on memory tidal
 * may have evicted, so the rewrite stops, naming them and saying what to
 * run instead: -o DIR/ writes the input and those headers, rewritten, at
 * their paths under DIR (the other project headers copied: Note [headers
 * beside the rewrite]), and tidal-nvcc does that for a build.  Returns 1
 * when it stopped. */
static int refuse_one_output(pass_tu *t, const graph *g, const tidal_options *o) {
  int sites = 0, files = 0;
  char list[512];
  size_t ll = 0;
  list[0] = '\0';
  for (int i = 1; i < g->n_files; i++) {
    const graph_file *f = &g->files[i];
    if (!f->n_sites && !f->n_mems) continue;
    sites += f->n_sites + f->n_mems;
    if (files++ < 3)
      ll += (size_t)snprintf(list + ll, ll < sizeof list ? sizeof list - ll : 0, "%s%s",
                             files > 1 ? ", " : "", t->prog->files[i]->main_path);
  }
  if (!files) return 0;
  char flags[1024];
  size_t fl = 0;
  flags[0] = '\0';
  for (int i = 0; i < o->n_clang_args && fl < sizeof flags; i++)
    fl += (size_t)snprintf(flags + fl, sizeof flags - fl, " %s", o->clang_args[i]);
  const char *in = t->main_path;
  const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
  diag_error(in, 0, 0,
             "%d op site%s and allocation call%s in %d project header%s it includes (%s%s) must be "
             "instrumented too, which one output file cannot hold: rewrite into a folder, "
             "'tidal rewrite %s -o DIR/%s%s' (then compile DIR/%s, which includes the rewritten "
             "headers), or build with tidal-nvcc in place of nvcc",
             sites, sites == 1 ? "" : "s", sites == 1 ? "" : "s", files, files == 1 ? "" : "s",
             list, files > 3 ? ", ..." : "", in, fl ? " --" : "", flags, base);
  return 1;
}

/* Note [one model of cost] (plan_replay.c): the plan is made once, costed
 * by replaying it on the simulator (cost only), and handed to the
 * rewriter, so the summary line, the header and `tidal replay` give the
 * same figure.  Nothing to do without sizes (no plan: the run-time planner
 * decides) or with --plan none. */
static int plan_and_cost(pass_tu *t, graph *g, rw_request *req, tidal_trace *trace,
                         int *have_trace, plan_replay *pr, char *note, size_t cap) {
  if (req->mode == PLAN_MODE_NONE || g->unrolled_ops < 0) return TIDAL_EXIT_OK;
  if (graph_unroll(g, trace) != TIDAL_EXIT_OK) return TIDAL_EXIT_INTERNAL;
  *have_trace = 1;
  if (trace->n_ops == 0) return TIDAL_EXIT_OK; /* nothing to cost: rw_rewrite plans alone */
  plan_replay_request rq;
  memset(&rq, 0, sizeof rq);
  rq.mode = req->mode;
  rq.budget_bytes = req->budget_bytes;
  rq.budget_pct = req->budget_pct;
  replay_options_default(&rq.ro);
  const char *bad_env = NULL;
  char why[256];
  if (cost_model_from_env(&rq.ro.cost, &bad_env, why, sizeof why) != 0) { /* as `tidal replay` reads them */
    diag_error(NULL, 0, 0, "malformed %s: %s", bad_env, why);
    return TIDAL_EXIT_BAD_INPUT;
  }
  rq.ro.cost_only = 1;
  if (plan_replay_env(&rq.ro) != 0) return TIDAL_EXIT_BAD_INPUT; /* as the program runs */
  int rc = plan_replay_run(t, g, trace, &rq, pr);
  if (rc != TIDAL_EXIT_OK) return rc;
  req->plan = &pr->plan;
  req->trace = trace;
  req->pack = pr->pack;
  summary_cost_note(&pr->rep, note, cap);
  req->cost_note = note;
  return TIDAL_EXIT_OK;
}

int cmd_rewrite(int argc, char **argv) {
  tidal_options o;
  pass_tu *t = NULL;
  graph g;
  memset(&g, 0, sizeof g);
  char *text = NULL;
  size_t text_n = 0;
  tidal_trace trace;
  memset(&trace, 0, sizeof trace);
  int have_trace = 0;
  plan_replay pr;
  memset(&pr, 0, sizeof pr);
  char cost_note[1024] = "";
  int rc = options_parse(&o, argc, argv, 1u << FORMAT_TEXT, NULL, NULL);
  if (rc != 0) return rc;
  if (o.help) {
    usage(stdout);
    options_free(&o);
    return TIDAL_EXIT_OK;
  }
  rw_request req;
  memset(&req, 0, sizeof req);
  req.mode = PLAN_MODE_AUTO;
  req.plan_name = o.plan ? o.plan : "auto";
  if (o.plan && plan_mode_parse(o.plan, &req.mode) != 0) {
    diag_error(NULL, 0, 0, "--plan must be auto, swap, recompute or none, not '%s'", o.plan);
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  if (o.budget) {
    req.budget_text = o.budget;
    if (options_parse_size(o.budget, &req.budget_bytes, &req.budget_pct) != 0 ||
        req.budget_pct < 0 || req.budget_pct > 100) {
      diag_error(NULL, 0, 0, "bad --budget '%s' (bytes with K/M/G, or a percentage)", o.budget);
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
  }
  if (o.input && input_is_tidal_output(o.input)) {
    diag_error(o.input, 1, 1,
               "input was produced by tidal rewrite (rewrite the original source instead)");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  for (int i = 1; i < o.n_inputs; i++)
    if (input_is_tidal_output(o.inputs[i])) {
      diag_error(o.inputs[i], 1, 1,
                 "input was produced by tidal rewrite (rewrite the original source instead)");
      rc = TIDAL_EXIT_BAD_INPUT;
      goto out;
    }
  int to_dir = output_is_dir(o.output);
  if ((o.n_inputs > 1 || !o.input) && !to_dir) {
    diag_error(NULL, 0, 0, "several inputs are rewritten into a folder: use -o DIR/");
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  rc = graph_build_from_options(&o, &t, &g);
  if (rc != 0) goto out;
  rc = plan_and_cost(t, &g, &req, &trace, &have_trace, &pr, cost_note, sizeof cost_note);
  if (rc != 0) goto out;
  const replay_report *cost = pr.replayed ? &pr.rep : NULL;
  if (to_dir) {
    req.all_files = 1;
    rc = rewrite_to_dir(t, &g, &req, o.output, &o, cost);
    goto out;
  }
  /* an output that would replace a file the parse read is refused first
   * (output.c, Note [protected files]), whatever else is wrong */
  if (o.output && output_check(o.output) != 0) {
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  if (refuse_one_output(t, &g, &o)) { /* Note [one output file] */
    rc = TIDAL_EXIT_BAD_INPUT;
    goto out;
  }
  rw_report rep;
  progress_stage("rewriting");
  rc = rw_rewrite(t, &g, &req, &text, &text_n, &rep);
  if (rc == 0) {
    graph_coverage cov;
    graph_coverage_of(&g, rep.alloc_managed, &cov);
    summary_graph_warnings(&g, rep.alloc_managed);
    summary_rewrite_warnings(o.input, &rep, o.budget != NULL, cost);
    summary_line(o.input, &cov, &rep, cost);
    rc = summary_check(o.input, &cov, &rep, o.require_plan, o.min_coverage, cost);
  }
  rw_report_free(&rep);
  if (rc != 0) goto out;
  rc = output_write_all(o.output, text, text_n);
out:
  plan_replay_free(&pr);
  if (have_trace) trace_free(&trace);
  free(text);
  graph_free(&g);
  frontend_dispose(t);
  options_free(&o);
  return rc;
}
