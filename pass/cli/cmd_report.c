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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Renders trace_path to svg_path; shared with `tidal replay --timeline`.
 * The trace is streamed (timeline_from_file), so its size is not bounded
 * by memory; it must be a regular file (it is read twice), which also
 * refuses /dev/zero, a FIFO or a directory up front. */
int report_render(const char *trace_path, const char *svg_path, int iteration, const char *title,
                  unsigned long long unmanaged_bytes) {
  /* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused */
  int fd = open(trace_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    diag_error(trace_path, 0, 0, "cannot read the trace: %s", strerror(errno));
    return TIDAL_EXIT_BAD_INPUT;
  }
  struct stat st;
  memset(&st, 0, sizeof st);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    diag_error(trace_path, 0, 0, "the trace is %s, not a regular file",
               S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or other special file");
    close(fd);
    return TIDAL_EXIT_BAD_INPUT;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    diag_error(trace_path, 0, 0, "cannot read the trace: %s", strerror(errno));
    close(fd);
    return TIDAL_EXIT_BAD_INPUT;
  }
  timeline t;
  char err[256];
  int bad = timeline_from_file(f, iteration, &t, err, sizeof err);
  if (!bad && ferror(f)) {
    snprintf(err, sizeof err, "reading the trace failed: %s", strerror(errno));
    timeline_free(&t);
    bad = 1;
  }
  fclose(f);
  if (bad) {
    diag_error(trace_path, 0, 0, "%s", err);
    return TIDAL_EXIT_BAD_INPUT;
  }
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
