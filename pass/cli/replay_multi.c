/* replay_multi.c - several programs replayed at once under one shared
 * budget (replay_multi.h, docs/replay.md "Several programs").
 *
 * Note [multi-replay protocol]: per child, an up pipe (child -> parent) and
 * a down pipe (parent -> child), one line per message:
 *   child: "F <demand>"  after building its trace (bytes of its allocations)
 *   parent: "S <sum>"    once every live child has sent F: the sum of the
 *                        demands, so each child plans for total * demand / sum,
 *                        the share libtidal's arbiter will give it
 *   child: "M"           its unmanaged run is done; the managed run is next
 *   parent: "G"          once every live child has sent M: all managed runs
 *                        start together, so the budget is really shared
 *   child: "P <rc> <peak>" its exit code and the group's peak so far
 *   child: "R" then its report until EOF.
 * A child that dies or fails early closes its pipe: it counts as failed and
 * no longer holds the others up.  The group's peak is the largest any
 * child saw (the last to finish saw all of it). */
#define _POSIX_C_SOURCE 200809L
#include "cli/replay_multi.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "cli/output.h"
#include "replay/replay.h"

/* ---- child side ---- */

static void say(replay_child *c, const char *fmt, unsigned long long a, unsigned long long b) {
  char line[96];
  int n = snprintf(line, sizeof line, fmt, a, b);
  if (n > 0 && write(c->up, line, (size_t)n) != n) {
    /* the parent is gone: nothing to report to */
  }
}

/* One line from the parent ("" when it is gone). */
static void hear(replay_child *c, char *line, size_t cap) {
  size_t n = 0;
  char ch;
  while (n + 1 < cap && read(c->down, &ch, 1) == 1 && ch != '\n') line[n++] = ch;
  line[n] = '\0';
}

uint64_t replay_child_share(replay_child *c, uint64_t demand) {
  say(c, "F %llu\n", (unsigned long long)demand, 0);
  char line[64];
  hear(c, line, sizeof line);
  unsigned long long sum = 0;
  if (sscanf(line, "S %llu", &sum) != 1 || sum < demand || sum == 0) return c->total;
  return (uint64_t)((double)c->total * (double)demand / (double)sum);
}

void replay_child_ready(void *child) {
  replay_child *c = child;
  say(c, "M\n", 0, 0);
  char line[16];
  hear(c, line, sizeof line);
}

void replay_child_result(replay_child *c, int rc, uint64_t shared_peak) {
  say(c, "P %llu %llu\nR\n", (unsigned long long)rc, (unsigned long long)shared_peak);
}

/* ---- parent side ---- */

typedef struct child_state {
  const char *input;
  pid_t pid;
  int up, down;          /* our ends */
  int phase;             /* 0 wants F, 1 wants M, 2 wants P, 3 reading the report, 4 done */
  int sent;              /* 1: S sent, 2: G sent */
  uint64_t demand;
  int rc;                /* exit code it reported; -1 none */
  uint64_t peak;
  char *line;            /* partial line */
  size_t nline, capline;
  char *report;          /* the report text */
  size_t nreport, capreport;
} child_state;

static int append(char **buf, size_t *n, size_t *cap, const char *p, size_t len) {
  if (*n + len + 1 > *cap) {
    size_t nc = *cap ? *cap * 2 : 4096;
    while (nc < *n + len + 1) nc *= 2;
    char *b = realloc(*buf, nc);
    if (!b) return -1;
    *buf = b;
    *cap = nc;
  }
  memcpy(*buf + *n, p, len);
  *n += len;
  (*buf)[*n] = '\0';
  return 0;
}

/* One protocol line from a child. */
static void on_line(child_state *k, const char *line) {
  unsigned long long a = 0, b = 0;
  if (k->phase == 0 && sscanf(line, "F %llu", &a) == 1) {
    k->demand = a;
    k->phase = 1;
  } else if (k->phase == 1 && !strcmp(line, "M")) {
    k->phase = 2;
  } else if (k->phase <= 2 && sscanf(line, "P %llu %llu", &a, &b) == 2) {
    k->rc = (int)a;
    k->peak = b;
    k->phase = 2; /* R follows */
  } else if (k->phase == 2 && !strcmp(line, "R")) {
    k->phase = 3;
  }
}

static int on_data(child_state *k, const char *p, size_t len) {
  for (size_t i = 0; i < len; i++) {
    if (k->phase == 3)
      return append(&k->report, &k->nreport, &k->capreport, p + i, len - i);
    if (p[i] == '\n') {
      on_line(k, k->line ? k->line : "");
      k->nline = 0;
      if (k->line) k->line[0] = '\0';
    } else if (append(&k->line, &k->nline, &k->capline, p + i, 1) != 0) {
      return -1;
    }
  }
  return 0;
}

static void tell(child_state *k, const char *line) {
  if (k->down >= 0 && write(k->down, line, strlen(line)) < 0) {
    /* it died: its EOF on the up pipe says so */
  }
}

/* Sends S once every child has passed F (or ended), G once every child has
 * passed M (or ended). */
static void advance(child_state *ks, int n) {
  int all_f = 1, all_m = 1;
  uint64_t sum = 0;
  for (int i = 0; i < n; i++) {
    if (ks[i].phase < 1) all_f = 0;
    if (ks[i].phase < 2) all_m = 0;
    if (ks[i].phase >= 1) sum += ks[i].demand;
  }
  char line[64];
  snprintf(line, sizeof line, "S %llu\n", (unsigned long long)sum);
  for (int i = 0; i < n; i++) {
    if (all_f && ks[i].sent < 1) {
      tell(&ks[i], line);
      ks[i].sent = 1;
    }
    if (all_m && ks[i].sent < 2) {
      tell(&ks[i], "G\n");
      ks[i].sent = 2;
    }
  }
}

static void print_json(FILE *f, child_state *ks, int n, uint64_t budget, uint64_t peak, int ok) {
  fprintf(f, "{\n  \"budget_bytes\": %llu,\n  \"combined_peak_bytes\": %llu,\n  \"workloads\": [",
          (unsigned long long)budget, (unsigned long long)peak);
  for (int i = 0; i < n; i++) {
    const child_state *k = &ks[i];
    fputs(i ? ",\n" : "\n", f);
    /* The child's own report, with the program's name put first. */
    const char *r = k->report ? strchr(k->report, '{') : NULL;
    fputs("{\"program\": ", f);
    replay_json_string(f, k->input);
    if (r) {
      size_t len = strlen(r + 1);
      while (len && (r[1 + len - 1] == '\n' || r[1 + len - 1] == ' ')) len--;
      fputs(",", f);
      fwrite(r + 1, 1, len, f);
    } else {
      fputs(", \"checksums_match\": false, \"ok\": false, \"error\": \"the replay of this program "
            "did not report\"}", f);
    }
  }
  fprintf(f, "\n  ],\n  \"ok\": %s\n}\n", ok ? "true" : "false");
}

int replay_multi(tidal_options *o, const char *const *inputs, int n, uint64_t budget,
                 replay_program_fn fn, void *ud) {
  child_state *ks = calloc((size_t)n, sizeof *ks);
  if (!ks) {
    diag_error(NULL, 0, 0, "out of memory");
    return TIDAL_EXIT_INTERNAL;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char group[64];
  snprintf(group, sizeof group, "replay-%d-%lx", (int)getpid(), (unsigned long)ts.tv_nsec);
  fflush(NULL);
  int rc = TIDAL_EXIT_OK;
  for (int i = 0; i < n; i++) {
    int up[2], down[2];
    ks[i].input = inputs[i];
    ks[i].rc = -1;
    ks[i].up = ks[i].down = -1;
    if (pipe(up) != 0 || pipe(down) != 0) {
      diag_error(NULL, 0, 0, "pipe: %s", strerror(errno));
      rc = TIDAL_EXIT_INTERNAL;
      ks[i].phase = 4;
      continue;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(up[0]);
      close(down[1]);
      for (int j = 0; j < i; j++) {
        close(ks[j].up);
        close(ks[j].down);
      }
      replay_child c;
      memset(&c, 0, sizeof c);
      c.up = up[1];
      c.down = down[0];
      c.total = budget;
      snprintf(c.group, sizeof c.group, "%s", group);
      c.report = fdopen(dup(up[1]), "w");
      tidal_options mine = *o;
      mine.input = inputs[i]; /* this program alone (not a whole program of several files) */
      mine.inputs = (const char **)&inputs[i];
      mine.n_inputs = 1;
      int r = c.report ? fn(&mine, ud, &c) : TIDAL_EXIT_INTERNAL;
      if (c.report) fclose(c.report);
      _exit(r);
    }
    close(up[1]);
    close(down[0]);
    ks[i].up = up[0];
    ks[i].down = down[1];
    ks[i].pid = pid;
    if (pid < 0) {
      diag_error(NULL, 0, 0, "fork: %s", strerror(errno));
      rc = TIDAL_EXIT_INTERNAL;
      ks[i].phase = 4;
    }
  }
  signal(SIGPIPE, SIG_IGN); /* a child that died is seen on its up pipe */
  struct pollfd *pf = calloc((size_t)n, sizeof *pf);
  for (;;) {
    int open = 0;
    for (int i = 0; i < n; i++) {
      pf[i].fd = ks[i].phase < 4 ? ks[i].up : -1;
      pf[i].events = POLLIN;
      open += ks[i].phase < 4;
    }
    if (!open) break;
    if (poll(pf, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; i++) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t got = read(ks[i].up, buf, sizeof buf);
      if (got > 0) {
        if (on_data(&ks[i], buf, (size_t)got) != 0) rc = TIDAL_EXIT_INTERNAL;
      } else {
        ks[i].phase = 4; /* EOF: done, or died */
        close(ks[i].up);
        close(ks[i].down);
        ks[i].down = -1;
      }
    }
    advance(ks, n);
  }
  free(pf);
  uint64_t peak = 0;
  int all_ok = 1;
  for (int i = 0; i < n; i++) {
    int st = 0;
    if (ks[i].pid > 0) waitpid(ks[i].pid, &st, 0);
    int exit_rc = WIFEXITED(st) ? WEXITSTATUS(st) : TIDAL_EXIT_INTERNAL;
    if (ks[i].rc < 0) ks[i].rc = exit_rc != 0 ? exit_rc : TIDAL_EXIT_INTERNAL;
    if (ks[i].rc != 0) all_ok = 0;
    if (ks[i].rc == TIDAL_EXIT_INTERNAL) rc = TIDAL_EXIT_INTERNAL;
    if (ks[i].peak > peak) peak = ks[i].peak;
  }
  int within = peak <= budget;
  int ok = all_ok && within;
  output_file out;
  if (output_open(&out, o->output) == 0) {
    if (o->format == FORMAT_JSON) {
      print_json(out.fp, ks, n, budget, peak, ok);
    } else {
      for (int i = 0; i < n; i++) {
        fprintf(out.fp, "== %s ==\n", ks[i].input);
        fputs(ks[i].report ? ks[i].report : "  (no report: the replay failed early)\n", out.fp);
      }
      fprintf(out.fp, "%d programs under one %.2f MiB budget: combined peak %.2f MiB%s; %s\n", n,
              (double)budget / 1048576.0, (double)peak / 1048576.0,
              within ? "" : " (OVER BUDGET)", all_ok ? "every replay succeeded" : "SOME FAILED");
    }
    if (output_commit(&out) != 0 && rc == TIDAL_EXIT_OK) rc = TIDAL_EXIT_BAD_INPUT;
  } else if (rc == TIDAL_EXIT_OK) {
    rc = TIDAL_EXIT_BAD_INPUT;
  }
  if (rc == TIDAL_EXIT_OK && !ok) {
    if (!within)
      diag_error(NULL, 0, 0, "the programs together held %llu bytes, over the %llu-byte budget",
                 (unsigned long long)peak, (unsigned long long)budget);
    else
      diag_error(NULL, 0, 0, "the replay of at least one program failed (see above)");
    rc = TIDAL_EXIT_BAD_INPUT;
  }
  for (int i = 0; i < n; i++) {
    free(ks[i].line);
    free(ks[i].report);
  }
  free(ks);
  return rc;
}
