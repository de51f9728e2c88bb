/* emit_json.c - `tidal graph --format json`: the graph as versioned JSON,
 * documented field by field in docs/graph-format.md.
 *
 * Symbolic quantities are strings ("B*T*C*4"); when every name in one is
 * bound, a sibling "<field>_value" holds the number.  Output is
 * deterministic (program order, no addresses or timestamps), so tests and
 * tools can diff it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/emit.h"
#include "graph/graph.h"

typedef struct jw {
  FILE *fp;
  const graph *g;
} jw;

static void jstr(FILE *fp, const char *s) {
  if (!s) {
    fputs("null", fp);
    return;
  }
  fputc('"', fp);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
    else if (c == '\n') fputs("\\n", fp);
    else if (c == '\t') fputs("\\t", fp);
    else if (c < 0x20) fprintf(fp, "\\u%04x", c);
    else fputc(c, fp);
  }
  fputc('"', fp);
}

/* "key": "sym", "key_value": N (the latter only when bound). */
static void jsym(jw *w, const char *key, const sym *s) {
  char *str = s ? sym_to_string(s) : NULL;
  fprintf(w->fp, "\"%s\": ", key);
  jstr(w->fp, str ? str : "unknown");
  free(str);
  int64_t v;
  if (s && graph_eval(w->g, s, &v) == 0) fprintf(w->fp, ", \"%s_value\": %lld", key, (long long)v);
}

static void jflags(FILE *fp, unsigned f) {
  fputc('[', fp);
  const char *names[] = {"atomics", "rng", "inplace", "nondeterministic"};
  int first = 1;
  for (int i = 0; i < 4; i++)
    if (f & (1u << i)) {
      fprintf(fp, "%s\"%s\"", first ? "" : ", ", names[i]);
      first = 0;
    }
  fputc(']', fp);
}

static const char *phase_name(int p) {
  switch (p) {
  case TRACE_FORWARD: return "forward";
  case TRACE_BACKWARD: return "backward";
  case TRACE_UPDATE: return "update";
  case TRACE_PERIODIC: return "periodic";
  default: return "other";
  }
}

static const char *source_name(bind_source s) {
  switch (s) {
  case BIND_USER: return "bind";
  case BIND_CONST: return "const";
  case BIND_MACRO: return "macro";
  case BIND_ENUM: return "enum";
  case BIND_DEVICE: return "device";
  }
  return "?";
}

static void jrange(FILE *fp, const char *key, graph_range r) {
  fprintf(fp, "\"%s\": {\"begin\": %u, \"end\": %u, \"editable\": %s}", key, r.begin, r.end,
          r.editable ? "true" : "false");
}

/* One argument of an op site as written (graph_site_arg). */
static void jsite_arg(FILE *fp, const graph_site_arg *a, int i) {
  fprintf(fp, "%s\n         {\"text\": ", i ? "," : "");
  jstr(fp, a->text);
  fputs(", \"type\": ", fp);
  jstr(fp, a->type);
  if (a->in_file) fprintf(fp, ", \"begin\": %u, \"end\": %u", a->begin, a->end);
  else fputs(", \"begin\": null, \"end\": null", fp);
  if (a->spelled) fprintf(fp, ", \"spelled\": [%u, %u]", a->spell_begin, a->spell_end);
  else fputs(", \"spelled\": null", fp);
  fprintf(fp, ", \"whole\": %s, \"pointer\": %s, \"integer\": %s, \"pointee_bytes\": %d, "
          "\"null\": %s, \"pure\": %s, \"accesses\": [",
          a->whole ? "true" : "false", a->pointer ? "true" : "false", a->integer ? "true" : "false",
          a->pointee_bytes, a->null_const ? "true" : "false", a->pure ? "true" : "false");
  for (int k = 0; k < a->n_acc; k++) fprintf(fp, "%s%d", k ? ", " : "", a->acc[k]);
  fputs("]}", fp);
}

/* One op site of the program (graph_site, docs/graph-format.md). */
static void jsite(FILE *fp, const graph *g, const graph_site *s, int i) {
  const pass_tu *t = g->tu && g->tu->prog && s->file < g->tu->prog->n_files
                         ? g->tu->prog->files[s->file]
                         : g->tu;
  fprintf(fp, "%s\n    {\"id\": %d, \"kind\": \"%s\", \"callee\": ", i ? "," : "", i,
          graph_op_kind_name(s->kind));
  jstr(fp, s->callee);
  fputs(", \"label\": ", fp);
  jstr(fp, s->label);
  fputs(", \"file\": ", fp);
  jstr(fp, t ? t->main_path : NULL);
  fprintf(fp, ", \"line\": %u, \"col\": %u, \"stmt\": ", s->line, s->col);
  if (s->skip) fputs("null", fp);
  else fprintf(fp, "{\"begin\": %u, \"end\": %u}", s->stmt_begin, s->stmt_end);
  fputs(", \"skip\": ", fp);
  jstr(fp, s->skip);
  fprintf(fp, ", \"calls\": %d, \"ops\": [", s->n_calls);
  for (int k = 0; k < s->n_ops; k++) fprintf(fp, "%s%d", k ? ", " : "", s->ops[k]);
  fputs("],\n     \"accesses\": [", fp);
  for (int k = 0; k < s->n_acc; k++) {
    const graph_site_access *a = &s->acc[k];
    fprintf(fp, "%s\n       {\"pointer\": ", k ? "," : "");
    jstr(fp, a->ptr);
    fputs(", \"bytes\": ", fp);
    jstr(fp, a->bytes);
    fprintf(fp, ", \"mode\": \"%s\", \"exact\": %s, \"call\": %d, \"arg\": %d", access_mode_name(a->mode),
            a->exact ? "true" : "false", a->call, a->arg);
    if (a->array_param >= 0) fprintf(fp, ", \"array_param\": %d", a->array_param);
    if (a->why) {
      fputs(", \"why\": ", fp);
      jstr(fp, a->why);
    }
    fputc('}', fp);
  }
  /* sitehomes.c: Note [pointer values at a site], Note [argument arrays] */
  fprintf(fp, "],\n     \"args_array\": %s, \"array_wrapped\": %s, \"homes\": [",
          s->args_array ? "true" : "false", s->array_wrapped ? "true" : "false");
  for (int k = 0; k < s->n_homes; k++) {
    if (k) fputs(", ", fp);
    jstr(fp, s->homes[k]);
  }
  fputs("], \"unnamed\": ", fp);
  jstr(fp, s->unnamed);
  fputs(",\n     \"args\": [", fp);
  for (int k = 0; k < s->n_args; k++) jsite_arg(fp, &s->args[k], k);
  fputs("],\n     \"config\": [", fp);
  for (int k = 0; k < s->n_config; k++) jsite_arg(fp, &s->config[k], k);
  fputs("]}", fp);
}

int graph_emit_json(const graph *g, FILE *fp) {
  jw w = {fp, g};
  fprintf(fp, "{\n  \"version\": %d,\n  \"file\": ", GRAPH_FORMAT_VERSION);
  jstr(fp, g->tu ? g->tu->main_path : NULL);
  fprintf(fp, ",\n  \"loop\": {\"file\": ");
  jstr(fp, g->loop_file);
  fprintf(fp, ", \"line\": %u, \"col\": %u, \"function\": ", g->loop_line, g->loop_col);
  jstr(fp, g->loop_function);
  fprintf(fp, ", \"reason\": ");
  jstr(fp, g->loop_reason);
  fputs(", ", fp);
  jrange(fp, "stmt", g->loop_stmt);
  fputs(", ", fp);
  jrange(fp, "body", g->loop_body);
  fputs("},\n  \"bindings\": [", fp);
  for (int i = 0; i < g->binds.n; i++) {
    fprintf(fp, "%s\n    {\"name\": ", i ? "," : "");
    jstr(fp, g->binds.items[i].name);
    fprintf(fp, ", \"value\": %lld, \"source\": \"%s\"}", (long long)g->binds.items[i].value,
            source_name(g->binds.items[i].source));
  }
  fputs("\n  ],\n  \"kernels\": [", fp);
  for (int i = 0; i < g->kernels.n; i++) {
    const kernel_info *k = &g->kernels.items[i];
    fprintf(fp, "%s\n    {\"name\": ", i ? "," : "");
    jstr(fp, k->name);
    fputs(", \"file\": ", fp);
    jstr(fp, k->file);
    fprintf(fp, ", \"line\": %u, \"flags\": ", k->line);
    jflags(fp, k->flags);
    fputs(", \"params\": [", fp);
    for (int j = 0; j < k->n_params; j++) {
      const kernel_param *p = &k->params[j];
      fprintf(fp, "%s{\"name\": ", j ? ", " : "");
      jstr(fp, p->name);
      fprintf(fp, ", \"pointer\": %s, \"mode\": \"%s\", ", p->is_pointer ? "true" : "false",
              access_mode_name(p->mode));
      char *e = p->is_pointer && p->extent ? sym_to_string(p->extent) : NULL;
      fputs("\"extent\": ", fp);
      jstr(fp, p->is_pointer ? (e ? e : "unknown") : NULL);
      free(e);
      fprintf(fp, ", \"elem_bytes\": %d}", p->elem_bytes);
    }
    fputs("], ", fp);
    /* split.c Note [elementwise split] */
    if (k->split) {
      fputs("\"split\": {\"count\": ", fp);
      jstr(fp, k->params[k->split_count_param].name);
      fprintf(fp, ", \"grid_stride\": %s}}", k->split_grid_stride ? "true" : "false");
    } else {
      fputs("\"split\": null, \"split_why\": ", fp);
      jstr(fp, k->split_why);
      fputc('}', fp);
    }
  }
  fputs("\n  ],\n  \"loops\": [", fp);
  for (int i = 0; i < g->n_loops; i++) {
    const graph_loop *l = &g->loops[i];
    fprintf(fp, "%s\n    {\"id\": %d, \"parent\": %d, \"call_depth\": %d, \"var\": ", i ? "," : "",
            l->id, l->parent, l->call_depth);
    jstr(fp, l->var);
    fprintf(fp, ", \"step\": %d, ", l->step);
    jsym(&w, "lo", l->lo);
    fputs(", ", fp);
    jsym(&w, "hi", l->hi);
    fputs(", ", fp);
    jsym(&w, "trip", l->trip);
    fputs(", ", fp);
    jsym(&w, "stride", l->stride);
    fputs(", \"file\": ", fp);
    jstr(fp, l->file);
    fprintf(fp, ", \"line\": %u, ", l->line);
    jrange(fp, "stmt", l->stmt);
    fputs(", ", fp);
    jrange(fp, "body", l->body);
    fprintf(fp, ", \"iteration\": %d}", l->iteration);
  }
  fputs("\n  ],\n  \"branches\": [", fp);
  for (int i = 0; i < g->n_branches; i++) {
    const graph_branch *br = &g->branches[i];
    fprintf(fp, "%s\n    {\"id\": %d, \"kind\": \"%s\", \"cond\": ", i ? "," : "", br->id,
            graph_branch_kind_name(br->kind));
    jstr(fp, br->cond);
    fputs(", \"function\": ", fp);
    jstr(fp, br->function);
    fputs(", \"file\": ", fp);
    jstr(fp, br->file);
    fprintf(fp, ", \"line\": %u, \"allocations\": %d, \"op_sites\": %d, ", br->line,
            br->n_allocs, br->n_sites);
    jrange(fp, "stmt", br->stmt);
    fputc('}', fp);
  }
  fputs("\n  ],\n  \"allocations\": [", fp);
  for (int i = 0; i < g->n_allocs; i++) {
    const graph_alloc *a = &g->allocs[i];
    fprintf(fp, "%s\n    {\"id\": %d, \"name\": ", i ? "," : "", a->id);
    jstr(fp, a->name);
    fputs(", ", fp);
    jsym(&w, "bytes", a->bytes);
    fputs(", \"file\": ", fp);
    jstr(fp, a->file);
    fprintf(fp, ", \"line\": %u, \"in_loop\": %s, \"freed\": %s, ", a->line,
            a->in_loop ? "true" : "false", a->freed ? "true" : "false");
    jrange(fp, "call", a->call);
    /* relocatable.c, Note [relocatable allocations]: as a rewrite of the
     * whole program decides it (build.c), the reason in the annotation's words */
    fprintf(fp, ", \"relocatable\": %s, \"home_why\": ", a->relocatable ? "true" : "false");
    jstr(fp, a->relocatable ? NULL : a->home_why);
    fputc('}', fp);
  }
  fputs("\n  ],\n  \"regions\": [", fp);
  for (int i = 0; i < g->n_regions; i++) {
    const graph_region *r = &g->regions[i];
    fprintf(fp, "%s\n    {\"id\": %d, \"name\": ", i ? "," : "", i);
    jstr(fp, r->name);
    fprintf(fp, ", \"allocation\": %d, ", r->alloc);
    jsym(&w, "offset", r->offset);
    fputs(", ", fp);
    jsym(&w, "bytes", r->bytes);
    fputc('}', fp);
  }
  fputs("\n  ],\n  \"ops\": [", fp);
  for (int i = 0; i < g->n_ops; i++) {
    const graph_op *op = &g->ops[i];
    fprintf(fp, "%s\n    {\"id\": %d, \"kind\": \"%s\", \"callee\": ", i ? "," : "", op->id,
            graph_op_kind_name(op->kind));
    jstr(fp, op->callee);
    fputs(", \"label\": ", fp);
    jstr(fp, op->label);
    fputs(", \"file\": ", fp);
    jstr(fp, op->file);
    fprintf(fp, ", \"line\": %u, \"col\": %u, \"phase\": \"%s\", \"loop\": %d, \"top_loop\": %d, "
            "\"branch\": %d, \"maybe\": %d, ",
            op->line, op->col, phase_name(op->phase), op->loop, op->top_loop, op->branch, op->maybe);
    jrange(fp, "stmt", op->stmt);
    fputs(", \"flags\": ", fp);
    jflags(fp, op->flags);
    fputs(", ", fp);
    jsym(&w, "flops", op->flops);
    if (op->kind == GRAPH_OP_LAUNCH) {
      fputs(", \"grid\": ", fp);
      jstr(fp, op->grid);
      fputs(", \"block\": ", fp);
      jstr(fp, op->block);
      fputs(", \"shmem\": ", fp);
      jstr(fp, op->shmem);
      fputs(", \"stream\": ", fp);
      jstr(fp, op->stream);
      /* opsites.c Note [split launches] */
      if (op->split) {
        fprintf(fp, ", \"split\": {\"count_arg\": %d, ", op->split_count_arg);
        jsym(&w, "count", op->split_count);
        fprintf(fp, ", \"grid_stride\": %s}", op->split_grid_stride ? "true" : "false");
      } else
        fputs(", \"split\": null", fp);
    }
    if (op->kind == GRAPH_OP_LIBRARY) { /* opsites.c Note [batch split ops] */
      if (op->split_batch) {
        fputs(", \"split_batch\": {", fp);
        jsym(&w, "count", op->split_count);
        fputc('}', fp);
      } else
        fputs(", \"split_batch\": null", fp);
    }
    fputs(",\n     \"call_path\": [", fp);
    for (int j = 0; j < op->n_calls; j++) {
      fprintf(fp, "%s{\"function\": ", j ? ", " : "");
      jstr(fp, op->calls[j].function);
      fputs(", \"file\": ", fp);
      jstr(fp, op->calls[j].file);
      fprintf(fp, ", \"line\": %u, ", op->calls[j].line);
      jrange(fp, "stmt", op->calls[j].stmt);
      fputc('}', fp);
    }
    fputs("],\n     \"accesses\": [", fp);
    for (int j = 0; j < op->n_acc; j++) {
      const graph_access *a = &op->acc[j];
      fprintf(fp, "%s\n       {\"tensor\": %d, \"mode\": \"%s\", ", j ? "," : "", a->tensor,
              access_mode_name(a->mode));
      jsym(&w, "bytes", a->bytes);
      char *bl = sym_to_string(a->bytes_local);
      fputs(", \"bytes_local\": ", fp);
      jstr(fp, bl ? bl : "unknown");
      free(bl);
      fprintf(fp, ", \"exact\": %s, ", a->exact ? "true" : "false");
      jsym(&w, "offset", a->offset);
      fputs(", \"pointer\": ", fp);
      jstr(fp, a->ptr_text);
      fprintf(fp, ", \"pointer_valid_in_loop\": %s, \"pointer_local\": ",
              a->loop_text_valid ? "true" : "false");
      jstr(fp, a->ptr_local);
      if (op->split) fprintf(fp, ", \"split_elem_bytes\": %d", a->split_elem_bytes);
      /* not tidal's memory: NULL for an optional pointer, or memory it does
       * not manage (cudaMallocManaged, pinned host) */
      if (a->null_arg) fputs(", \"null\": true", fp);
      if (a->unmanaged) fputs(", \"unmanaged\": true", fp);
      fprintf(fp, ", \"arg\": %d, \"param\": ", a->arg);
      jstr(fp, a->param);
      fputc('}', fp);
    }
    fputs("]}", fp);
  }
  fputs("\n  ],\n  \"tensors\": [", fp);
  for (int i = 0; i < g->n_tensors; i++) {
    const graph_tensor *t = &g->tensors[i];
    fprintf(fp, "%s\n    {\"id\": %d, \"name\": ", i ? "," : "", t->id);
    jstr(fp, t->name);
    fprintf(fp, ", \"allocation\": %d, \"region\": %d, ", t->alloc, t->region);
    jsym(&w, "offset", t->offset);
    fputs(", ", fp);
    jsym(&w, "bytes", t->bytes);
    fputs(", \"aliases\": [", fp);
    for (int j = 0; j < t->n_aliases; j++) {
      if (j) fputs(", ", fp);
      jstr(fp, t->aliases[j]);
    }
    fputc(']', fp);
    if (t->n_family) { /* an array's element at a loop index */
      fputs(", ", fp);
      jsym(&w, "index", t->family_index);
      fputs(", \"elements\": [", fp);
      for (int k = 0; k < t->n_family; k++) {
        fputs(k ? ", {\"name\": " : "{\"name\": ", fp);
        jstr(fp, t->family_name[k]);
        fprintf(fp, ", \"allocation\": %d, ", t->family[k]);
        jsym(&w, "offset", t->family_off[k]);
        fputc('}', fp);
      }
      fputc(']', fp);
    }
    fputc('}', fp);
  }
  fputs("\n  ],\n  \"candidates\": [", fp);
  for (int i = 0; i < g->n_candidates; i++) {
    const graph_candidate *c = &g->candidates[i];
    fprintf(fp, "%s\n    {\"tensor\": %d, \"instance\": ", i ? "," : "", c->tensor);
    jstr(fp, c->instance);
    fputs(", ", fp);
    jsym(&w, "bytes", c->bytes);
    if (c->instance) fprintf(fp, ", \"instance_bytes\": %lld", (long long)c->bytes_value);
    fprintf(fp, ", \"last_use_op\": %d, \"next_use_op\": %d, \"idle_ops\": %lld, \"dead\": %s}",
            c->last_use_op, c->next_use_op, (long long)c->idle_ops, c->dead ? "true" : "false");
  }
  fputs("\n  ],\n", fp);
  if (g->unrolled_ops >= 0) fprintf(fp, "  \"unrolled_ops\": %lld,\n", (long long)g->unrolled_ops);
  else fputs("  \"unrolled_ops\": null,\n", fp);
  fputs("  \"unresolved\": [", fp);
  for (int i = 0; i < g->n_notes; i++) {
    fprintf(fp, "%s\n    {\"file\": ", i ? "," : "");
    jstr(fp, g->notes[i].file);
    fprintf(fp, ", \"line\": %u, \"col\": %u, \"message\": ", g->notes[i].line, g->notes[i].col);
    jstr(fp, g->notes[i].message);
    fputc('}', fp);
  }
  fputs("\n  ],\n  \"sites\": [", fp);
  for (int i = 0; i < g->n_sites; i++) jsite(fp, g, &g->sites[i], i);
  fputs("\n  ]\n}\n", fp);
  return ferror(fp) ? -1 : 0;
}
