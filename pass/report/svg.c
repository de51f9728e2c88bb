/* svg.c - the timeline as a standalone SVG picture (timeline.h).
 *
 * One plot: time on x (ms within the iteration), resident bytes on y;
 * stacked step areas per tensor group (or one area when the trace has no
 * groups), the budget as a red dashed step line, the program's footprint
 * without tidal as a grey dashed line, and below the plot one row of ticks
 * per kind of action (swap-out, prefetch, fault, recompute, drop).  Plain
 * SVG 1.1, no script or external resource, so any browser or viewer shows
 * it and a test can check it with an XML parser. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/timeline.h"

enum { W = 1000, H = 520, ML = 120, MR = 170, MT = 56, MB = 150 };
#define PW (W - ML - MR)
#define PH (H - MT - MB)

static const char *const group_colors[TL_NGROUPS] = {"#4e79a7", "#b07aa1", "#f28e2b", "#59a14f",
                                                     "#bab0ac"};
static const char *const mark_colors[TL_NMARKS] = {"#e15759", "#4e79a7", "#edc948", "#76b7b2",
                                                   "#9c755f"};

static void put_escaped(FILE *fp, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", fp); break;
    case '>': fputs("&gt;", fp); break;
    case '&': fputs("&amp;", fp); break;
    case '"': fputs("&quot;", fp); break;
    default:
      if ((unsigned char)*s >= 0x20) fputc(*s, fp);
    }
  }
}

/* "512 MiB", "1.5 GiB". */
static void fmt_bytes(char *buf, size_t cap, double b) {
  if (b >= 1024.0 * 1024 * 1024)
    snprintf(buf, cap, "%.3g GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024)
    snprintf(buf, cap, "%.3g MiB", b / (1024.0 * 1024));
  else if (b >= 1024.0)
    snprintf(buf, cap, "%.3g KiB", b / 1024.0);
  else
    snprintf(buf, cap, "%.0f B", b);
}

/* A "nice" step (1, 2 or 5 times a power of ten) giving about n ticks. */
static double nice_step(double span, int n) {
  if (span <= 0) return 1;
  double raw = span / n, p = pow(10, floor(log10(raw)));
  double m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

typedef struct scale {
  double span, ymax;
} scale;

static double X(const scale *s, double t) { return ML + (s->span > 0 ? t / s->span : 0) * PW; }
static double Y(const scale *s, double b) { return MT + PH - (s->ymax > 0 ? b / s->ymax : 0) * PH; }

/* Stacked value of groups [0, g) at sample i (g = TL_NGROUPS + 1: total). */
static double stacked(const timeline *t, int i, int g) {
  if (!t->has_groups) return g > 0 ? (double)t->samples[i].resident : 0;
  double v = 0;
  for (int k = 0; k < g && k < TL_NGROUPS; k++) v += (double)t->samples[i].group[k];
  return v;
}

/* One band between the stacked values below g and up to g, as a step path. */
static void band(FILE *fp, const timeline *t, const scale *s, int g, const char *color,
                 const char *label) {
  int n = t->n_samples;
  fprintf(fp, "<path class=\"band\" fill=\"%s\" fill-opacity=\"0.85\" stroke=\"none\" d=\"", color);
  for (int i = 0; i < n; i++) {
    double x0 = X(s, t->samples[i].t), x1 = X(s, i + 1 < n ? t->samples[i + 1].t : t->span);
    double y = Y(s, stacked(t, i, g + 1));
    fprintf(fp, "%s%.1f %.1f L%.1f %.1f ", i ? "L" : "M", x0, y, x1, y);
  }
  for (int i = n - 1; i >= 0; i--) {
    double x0 = X(s, t->samples[i].t), x1 = X(s, i + 1 < n ? t->samples[i + 1].t : t->span);
    double y = Y(s, stacked(t, i, g));
    fprintf(fp, "L%.1f %.1f L%.1f %.1f ", x1, y, x0, y);
  }
  fputs("Z\"><title>", fp);
  put_escaped(fp, label);
  fputs("</title></path>\n", fp);
}

/* At most two samples per pixel column: within each column keep the sample
 * with the most resident bytes (the peak is what the picture is for), so a
 * trace of 100,000 counter events draws in a file of tens of KiB. */
static timeline downsample(const timeline *t) {
  timeline d = *t;
  int cols = 2 * PW;
  if (t->n_samples <= cols || t->span <= 0) return d;
  tl_sample *v = malloc((size_t)cols * sizeof *v);
  if (!v) return d;
  int n = 0, last_col = -1;
  for (int i = 0; i < t->n_samples; i++) {
    int col = (int)(t->samples[i].t / t->span * (cols - 1));
    if (col != last_col) {
      v[n] = t->samples[i];
      v[n].t = (double)col / (cols - 1) * t->span;
      n++;
      last_col = col;
    } else if (t->samples[i].resident > v[n - 1].resident) {
      double keep_t = v[n - 1].t;
      v[n - 1] = t->samples[i];
      v[n - 1].t = keep_t;
    }
  }
  d.samples = v;
  d.n_samples = n;
  return d;
}

int timeline_write_svg(const timeline *full, FILE *fp) {
  timeline ds = downsample(full);
  const timeline *t = &ds;
  scale s = {t->span > 0 ? t->span : 1, 1};
  double ymax = (double)t->peak;
  if ((double)t->unmanaged_bytes > ymax) ymax = (double)t->unmanaged_bytes;
  for (int i = 0; i < t->n_samples; i++)
    if ((double)t->samples[i].budget > ymax) ymax = (double)t->samples[i].budget;
  s.ymax = ymax > 0 ? ymax * 1.1 : 1;

  fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
              "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
              "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
              W, H, W, H);
  fputs("<text x=\"120\" y=\"24\" font-size=\"15\" font-weight=\"bold\">", fp);
  put_escaped(fp, t->title ? t->title : "tidal: resident device memory");
  fputs("</text>\n", fp);
  char pk[32], um[32];
  fmt_bytes(pk, sizeof pk, (double)t->peak);
  fmt_bytes(um, sizeof um, (double)t->unmanaged_bytes);
  fprintf(fp, "<text x=\"120\" y=\"42\" fill=\"#555\">%s: peak resident %s", 
          t->iteration >= 0 ? "one iteration" : "whole trace", pk);
  if (t->iteration >= 0) fprintf(fp, " (iteration %d)", t->iteration);
  if (t->unmanaged_bytes) fprintf(fp, "; without tidal %s", um);
  fprintf(fp, "; %d ops</text>\n", t->n_ops);

  /* Grid and axes: byte ticks at round binary units (1, 2, 5 x KiB/MiB/GiB). */
  double unit = s.ymax >= 2.0 * 1024 * 1024 * 1024 ? 1024.0 * 1024 * 1024
                : s.ymax >= 2.0 * 1024 * 1024   ? 1024.0 * 1024
                : s.ymax >= 2.0 * 1024          ? 1024.0
                                                : 1.0;
  double ys = nice_step(s.ymax / unit, 6) * unit;
  for (double b = 0; b <= s.ymax; b += ys) {
    char lab[32];
    fmt_bytes(lab, sizeof lab, b);
    fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s</text>\n",
            ML, Y(&s, b), ML + PW, Y(&s, b), ML - 6, Y(&s, b) + 4, lab);
  }
  double span_ms = s.span * 1e3, xs = nice_step(span_ms, 8);
  for (double m = 0; m <= span_ms + 1e-9; m += xs)
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
            X(&s, m / 1e3), MT + PH, X(&s, m / 1e3), MT + PH + 5, X(&s, m / 1e3), MT + PH + 18, m);
  fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">time in the iteration (ms)</text>\n",
          ML + PW / 2, MT + PH + 34);
  fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n", ML, MT,
          PW, PH);

  /* Resident bytes. */
  if (t->n_samples > 0) {
    if (t->has_groups)
      for (int g = 0; g < TL_NGROUPS; g++)
        band(fp, t, &s, g, group_colors[g], timeline_group_names[g]);
    else
      band(fp, t, &s, 0, group_colors[0], "resident (managed by tidal)");
  }
  /* Without tidal. */
  if (t->unmanaged_bytes)
    fprintf(fp, "<line class=\"unmanaged\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#666\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"2 3\"><title>without tidal: %s</title></line>\n",
            ML, Y(&s, (double)t->unmanaged_bytes), ML + PW, Y(&s, (double)t->unmanaged_bytes), um);
  /* Budget. */
  int any_budget = 0;
  for (int i = 0; i < t->n_samples; i++) any_budget |= t->samples[i].budget != 0;
  if (any_budget) {
    fputs("<path class=\"budget\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" "
          "stroke-dasharray=\"6 4\" d=\"", fp);
    for (int i = 0; i < t->n_samples; i++) {
      double x0 = X(&s, t->samples[i].t);
      double x1 = X(&s, i + 1 < t->n_samples ? t->samples[i + 1].t : t->span);
      double y = Y(&s, (double)t->samples[i].budget);
      fprintf(fp, "%s%.1f %.1f L%.1f %.1f ", i ? "L" : "M", x0, y, x1, y);
    }
    fputs("\"><title>budget</title></path>\n", fp);
  }

  /* Action ticks, one row per kind. */
  int row_y = MT + PH + 50;
  for (int k = 0; k < TL_NMARKS; k++) {
    int y = row_y + k * 16, count = 0;
    for (int i = 0; i < t->n_marks; i++)
      if (t->marks[i].kind == (tl_mark_kind)k) count++;
    fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">%s (%d)</text>\n", ML - 6,
            y + 4, timeline_mark_names[k], count);
    fprintf(fp, "<g class=\"marks\" stroke=\"%s\" stroke-width=\"1.5\">", mark_colors[k]);
    int last_px = -1; /* one tick per pixel column and kind */
    for (int i = 0; i < t->n_marks; i++)
      if (t->marks[i].kind == (tl_mark_kind)k && (int)X(&s, t->marks[i].t) != last_px) {
        last_px = (int)X(&s, t->marks[i].t);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", X(&s, t->marks[i].t), y - 5,
                X(&s, t->marks[i].t), y + 5);
      }
    fputs("</g>\n", fp);
  }

  /* Legend. */
  int lx = ML + PW + 16, ly = MT + 8;
  if (t->has_groups) {
    for (int g = TL_NGROUPS - 1; g >= 0; g--, ly += 18)
      fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  "<text x=\"%d\" y=\"%d\">%s</text>\n",
              lx, ly, group_colors[g], lx + 18, ly + 10, timeline_group_names[g]);
  } else {
    fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">resident</text>\n",
            lx, ly, group_colors[0], lx + 18, ly + 10);
    ly += 18;
  }
  fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" stroke-width=\"2\" "
              "stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%d\">budget</text>\n",
          lx, ly + 6, lx + 12, ly + 6, lx + 18, ly + 10);
  ly += 18;
  fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#666\" stroke-width=\"1.5\" "
              "stroke-dasharray=\"2 3\"/><text x=\"%d\" y=\"%d\">without tidal</text>\n",
          lx, ly + 6, lx + 12, ly + 6, lx + 18, ly + 10);
  fputs("</svg>\n", fp);
  if (ds.samples != full->samples) free(ds.samples);
  return ferror(fp) ? -1 : 0;
}
