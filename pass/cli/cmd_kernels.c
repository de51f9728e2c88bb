/* cmd_kernels.c - `tidal kernels FILE.cu [--format text|json] [-o OUT]`:
 * prints what kernels.c concluded for every __global__ function: each
 * parameter's access mode and extent (elements of its pointee type), the
 * reason when the extent is unknown, whether a write is proven dense (and
 * the launch condition it needs), the kernel's flags, and whether it may
 * run split into sub-range launches (split.c) or why not.  Used by the
 * kernel-analysis lit tests and by users checking what tidal understood.
 * Output goes through output.c (atomic, nothing written on failure). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/build_graph.h"
#include "cli/commands.h"
#include "base/diag.h"
#include "analysis/kernels.h"
#include "cli/options.h"
#include "cli/output.h"

static const char *const flag_names[] = {"atomics", "rng", "inplace", "nondeterministic"};

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

/* "dense=yes threads_needed=N" for a written parameter: Note [dense] in
 * kernels.c; what a launch must provide for every element to be written. */
static void print_dense_text(FILE *f, const kernel_param *p) {
  if (!(p->mode & ACCESS_WRITE)) return;
  fprintf(f, " dense=%s", p->dense ? "yes" : "no");
  const char *what = p->threads_needed ? "threads_needed" : "blocks_needed";
  const sym *n = p->threads_needed ? p->threads_needed : p->blocks_needed;
  if (p->dense && n) {
    char *t = sym_to_text(n);
    fprintf(f, " %s=%s", what, t ? t : "?");
    free(t);
  }
}

/* "split: count=N" or "split: no why=..." (split.c Note [elementwise split]). */
static void print_split_text(FILE *f, const kernel_info *k) {
  if (k->split)
    fprintf(f, "  split: count=%s%s\n", k->params[k->split_count_param].name,
            k->split_grid_stride ? " grid_stride" : "");
  else
    fprintf(f, "  split: no why=\"%s\"\n", k->split_why ? k->split_why : "?");
}

static void print_text(FILE *f, const kernel_table *kt) {
  for (int i = 0; i < kt->n; i++) {
    const kernel_info *k = &kt->items[i];
    fprintf(f, "kernel %s at %s:%u%s\n", k->name, k->file, k->line,
            k->has_body ? "" : " (declaration only)");
    for (int j = 0; j < k->n_params; j++) {
      const kernel_param *p = &k->params[j];
      if (!p->is_pointer) {
        fprintf(f, "  param %s: scalar\n", p->name);
        continue;
      }
      char *ext = sym_to_text(p->extent);
      fprintf(f, "  param %s: mode=%s extent=%s elem=%s bytes=%d", p->name,
              access_mode_name(p->mode), ext ? ext : "unknown", p->elem_type ? p->elem_type : "?",
              p->elem_bytes);
      if (p->why) fprintf(f, " why=\"%s\"", p->why);
      print_dense_text(f, p);
      fputc('\n', f);
      free(ext);
    }
    fprintf(f, "  flags:");
    if (!k->flags) fprintf(f, " none");
    for (int b = 0; b < 4; b++)
      if (k->flags & (1u << b)) fprintf(f, " %s", flag_names[b]);
    fputc('\n', f);
    print_split_text(f, k);
  }
}

/* "split": {"count": "N", "grid_stride": false}, or "split": null,
 * "split_why": "..." */
static void print_split_json(FILE *f, const kernel_info *k) {
  if (k->split) {
    fprintf(f, "\"split\": {\"count\": ");
    json_string(f, k->params[k->split_count_param].name);
    fprintf(f, ", \"grid_stride\": %s}", k->split_grid_stride ? "true" : "false");
  } else {
    fprintf(f, "\"split\": null, \"split_why\": ");
    json_string(f, k->split_why ? k->split_why : "?");
  }
}

static void print_json(FILE *f, const kernel_table *kt) {
  fprintf(f, "{\n  \"version\": 1,\n  \"kernels\": [");
  for (int i = 0; i < kt->n; i++) {
    const kernel_info *k = &kt->items[i];
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    json_string(f, k->name);
    fprintf(f, ", \"file\": ");
    json_string(f, k->file);
    fprintf(f, ", \"line\": %u, \"has_body\": %s, \"flags\": [", k->line,
            k->has_body ? "true" : "false");
    int first = 1;
    for (int b = 0; b < 4; b++)
      if (k->flags & (1u << b)) {
        fprintf(f, "%s\"%s\"", first ? "" : ", ", flag_names[b]);
        first = 0;
      }
    fprintf(f, "], ");
    print_split_json(f, k);
    fprintf(f, ",\n     \"params\": [");
    for (int j = 0; j < k->n_params; j++) {
      const kernel_param *p = &k->params[j];
      fprintf(f, "%s\n       {\"name\": ", j ? "," : "");
      json_string(f, p->name);
      fprintf(f, ", \"pointer\": %s, \"mode\": \"%s\"", p->is_pointer ? "true" : "false",
              access_mode_name(p->mode));
      if (p->is_pointer) {
        char *ext = sym_to_string(p->extent);
        fprintf(f, ", \"extent\": ");
        json_string(f, ext ? ext : "unknown");
        free(ext);
        fprintf(f, ", \"elem_type\": ");
        json_string(f, p->elem_type);
        fprintf(f, ", \"elem_bytes\": %d", p->elem_bytes);
        if (p->why) {
          fprintf(f, ", \"why\": ");
          json_string(f, p->why);
        }
        if (p->mode & ACCESS_WRITE) {
          fprintf(f, ", \"dense\": %s", p->dense ? "true" : "false");
          char *tn = p->threads_needed ? sym_to_string(p->threads_needed) : NULL;
          char *bn = p->blocks_needed ? sym_to_string(p->blocks_needed) : NULL;
          if (tn) {
            fprintf(f, ", \"threads_needed\": ");
            json_string(f, tn);
          }
          if (bn) {
            fprintf(f, ", \"blocks_needed\": ");
            json_string(f, bn);
          }
          free(tn);
          free(bn);
        }
      }
      fputc('}', f);
    }
    fprintf(f, "]}");
  }
  fprintf(f, "\n  ]\n}\n");
}

static void usage(FILE *f) {
  fprintf(f, "usage: tidal kernels FILE.cu [--format text|json] [-o OUT] [-p BUILD_DIR] "
             "[-- clang flags]\n\n"
             "Prints, for every __global__ kernel, each pointer parameter's access mode\n"
             "(read, write, readwrite, none) and extent in elements, the kernel's flags,\n"
             "and whether it may run split into sub-range launches (or why not).\n\n"
             "options:\n");
  options_print_help(f, "kernels");
}

int cmd_kernels(int argc, char **argv) {
  tidal_options o;
  int rc = options_parse(&o, argc, argv, (1u << FORMAT_TEXT) | (1u << FORMAT_JSON), NULL, NULL);
  if (rc) return rc;
  if (o.help) {
    usage(stdout);
    options_free(&o);
    return TIDAL_EXIT_OK;
  }
  frontend_options fo = options_frontend(&o);
  pass_tu *t = NULL;
  kernel_table kt = {NULL, 0};
  rc = frontend_parse(&fo, &t);
  if (rc) goto out;
  protect_files_read(t);
  rc = kernels_analyze(t, &kt);
  if (rc) goto out;
  output_file of;
  rc = output_open(&of, o.output);
  if (rc) goto out;
  if (o.format == FORMAT_JSON) print_json(of.fp, &kt);
  else print_text(of.fp, &kt);
  rc = output_commit(&of);
out:
  kernels_free(&kt);
  frontend_dispose(t);
  options_free(&o);
  return rc;
}
