/* cmd_report.c - `tidal report TRACE.json -o FILE.svg [--iteration N]
 * [--title TEXT] [--unmanaged SIZE]`.
 *
 * Draws the memory timeline of one iteration (report/timeline.h) from a
 * trace that libtidal wrote (TIDAL_TRACE=FILE on a GPU run, or `tidal
 * replay --trace`).  Its own option parser: none of the analysis options
 * (--bind, --loop, -p, --plan, --budget, clang flags) mean anything here,
 * so they are refused rather than ignored. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "report/timeline.h"

static void usage(FILE *fp) {
  fputs("usage: tidal report TRACE.json -o FILE.svg [--iteration N] [--title TEXT]\n"
        "Draws resident device memory over one iteration of a libtidal trace\n"
        "(TIDAL_TRACE=FILE, or tidal replay --trace FILE): stacked by tensor group when\n"
        "the trace has groups, with the budget line and swap / prefetch / fault /\n"
        "recompute / drop marks.\n"
        "  -o FILE          write the SVG to FILE (atomically; '-' for stdout)\n"
        "  --iteration N    which iteration (0 is the first); default: the last complete one\n"
        "  --title TEXT     the picture's title\n"
        "  -h, --help       print this help\n",
        fp);
}

/* Reads a whole file; NULL with errno set on failure. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
      } else {
        buf = nb;
      }
    }
  }
  int bad = buf && ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  *len = n;
  return buf;
}

/* Renders trace_path to svg_path; shared with `tidal replay --timeline`. */
int report_render(const char *trace_path, const char *svg_path, int iteration, const char *title,
                  unsigned long long unmanaged_bytes) {
  size_t len = 0;
  char *text = slurp(trace_path, &len);
  if (!text) {
    diag_error(trace_path, 0, 0, "cannot read the trace: %s", strerror(errno));
    return TIDAL_EXIT_BAD_INPUT;
  }
  timeline t;
  char err[256];
  if (timeline_from_trace(text, len, iteration, &t, err, sizeof err) != 0) {
    free(text);
    diag_error(trace_path, 0, 0, "%s", err);
    return TIDAL_EXIT_BAD_INPUT;
  }
  free(text);
  if (title) t.title = strdup(title);
  /* the caller's footprint (replay: the unmanaged run's peak in whole
   * chunks) is in the budget line's units; the trace's allocated bytes are
   * not (gpt at 90%: a budget above 28.9 MiB allocated, below the 36 MiB
   * of chunks they take, and tidal swapping "under" its own line) */
  if (unmanaged_bytes) t.unmanaged_bytes = unmanaged_bytes;
  output_file out;
  int rc = output_open(&out, svg_path);
  if (rc == 0) {
    if (timeline_write_svg(&t, out.fp) != 0) {
      diag_error(NULL, 0, 0, "writing the picture failed");
      output_abort(&out);
      rc = TIDAL_EXIT_BAD_INPUT;
    } else {
      rc = output_commit(&out);
    }
  }
  timeline_free(&t);
  return rc;
}

int cmd_report(int argc, char **argv) {
  const char *input = NULL, *output = NULL, *title = NULL;
  int iteration = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return TIDAL_EXIT_OK;
    }
    const char *val = NULL;
    const char *opts[] = {"-o", "--iteration", "--title"};
    int which = -1;
    for (int k = 0; k < 3; k++) {
      size_t n = strlen(opts[k]);
      if (!strncmp(a, opts[k], n) && (a[n] == '\0' || a[n] == '=')) {
        which = k;
        if (a[n] == '=') {
          val = a + n + 1;
        } else if (i + 1 < argc) {
          val = argv[++i];
        } else {
          diag_error(NULL, 0, 0, "option '%s' needs a value", opts[k]);
          return TIDAL_EXIT_BAD_INPUT;
        }
      }
    }
    if (which == 0) {
      output = val;
    } else if (which == 1) {
      char *end;
      errno = 0;
      long v = strtol(val, &end, 10);
      if (errno || *end || end == val || v < 0 || v > 1000000000) {
        diag_error(NULL, 0, 0, "--iteration expects a non-negative integer, got '%s'", val);
        return TIDAL_EXIT_BAD_INPUT;
      }
      iteration = (int)v;
    } else if (which == 2) {
      title = val;
    } else if (a[0] == '-' && a[1]) {
      const char *close = options_suggest("report", a);
      if (close)
        diag_error(NULL, 0, 0, "'tidal report' has no option '%s' (did you mean '%s'?)", a, close);
      else
        diag_error(NULL, 0, 0, "'tidal report' has no option '%s' (see tidal report --help)", a);
      return TIDAL_EXIT_BAD_INPUT;
    } else if (input) {
      diag_error(NULL, 0, 0, "more than one trace ('%s' and '%s')", input, a);
      return TIDAL_EXIT_BAD_INPUT;
    } else {
      input = a;
    }
  }
  if (!input) {
    diag_error(NULL, 0, 0, "no trace file (usage: tidal report TRACE.json -o FILE.svg)");
    return TIDAL_EXIT_BAD_INPUT;
  }
  if (!output) {
    diag_error(NULL, 0, 0, "no output: give -o FILE.svg (or -o - for stdout)");
    return TIDAL_EXIT_BAD_INPUT;
  }
  output_protect(input); /* -o naming the trace is refused (output.c) */
  return report_render(input, output, iteration, title, 0);
}
