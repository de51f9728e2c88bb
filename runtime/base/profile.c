/* profile.c - per-op-site durations, written at tidal_shutdown when
 * TIDAL_PROFILE (tidal_config.profile_path) is set.
 *
 * The CUDA backend measures each op with a pair of timing events around
 * its launch; the sim backend reports its modelled durations (so the file
 * format is tested without a GPU).  `tidal replay --profile FILE` reads it
 * back and uses the measured durations instead of the roofline estimate.
 *
 * Format (docs/replay.md, "Profiles"): a comment header ("# tidal profile
 * v2"), then one line per site, tab-separated:
 *     FILE:LINE <TAB> COUNT <TAB> MEAN_SECONDS <TAB> LAUNCH_SECONDS <TAB> LABEL
 * MEAN_SECONDS is the op's device time, LAUNCH_SECONDS the host time its
 * launch took (from the end of tidal_op_begin to tidal_op_end: the
 * program's launch call), both means over COUNT executions.  Version 1
 * files had no LAUNCH_SECONDS column.
 * Sites are keyed by their tidal_site object (the rewriter emits one static
 * object per site), so two sites on one line stay apart.
 *
 * Note [cold samples]: executions before the first tidal_iteration_end are
 * left out of a site's means when the site also ran later.  The first
 * iteration pays one-time costs inside the op's timing events: cuBLAS
 * initialises itself and CUDA loads each kernel's module at its first
 * launch, on the host, while the device waits between the two events.  On
 * the H200 (bench/gpu/h200-2026-11-27/README.md) iteration 0 spent 99 ms
 * in the first calls of matmul_forward's cublasSgemm alone; averaged into
 * 660 calls that made the site's mean 262 us instead of 112 us, and the
 * profile's step 41.3 ms against the 35.3 ms the same run measured per
 * step.  A site that only ever ran in the first iteration (set-up before
 * the loop) keeps its cold mean. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"

typedef struct prof_entry {
  const tidal_site *site;
  uint64_t count, cold_count; /* warm and cold executions (Note [cold samples]) */
  double sum, launch_sum, cold_sum, cold_launch_sum;
} prof_entry;

static prof_entry *tab;
static size_t cap, used;

static size_t slot_of(const tidal_site *s, size_t n) {
  uintptr_t h = (uintptr_t)s;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 29)) & (n - 1);
}

static int grow(void) {
  size_t ncap = cap ? cap * 2 : 256;
  prof_entry *n = calloc(ncap, sizeof *n);
  if (!n)
    return 0;
  for (size_t i = 0; i < cap; i++)
    if (tab[i].site) {
      size_t j = slot_of(tab[i].site, ncap);
      while (n[j].site)
        j = (j + 1) & (ncap - 1);
      n[j] = tab[i];
    }
  free(tab);
  tab = n;
  cap = ncap;
  return 1;
}

void rt_profile_add(const tidal_site *site, double seconds, double launch_s, int cold) {
  if (!site)
    return;
  if (2 * (used + 1) > cap && !grow())
    return; /* out of memory: the profile misses this sample, nothing else */
  size_t j = slot_of(site, cap);
  while (tab[j].site && tab[j].site != site)
    j = (j + 1) & (cap - 1);
  if (!tab[j].site) {
    tab[j].site = site;
    used++;
  }
  if (cold) {
    tab[j].cold_count++;
    tab[j].cold_sum += seconds;
    tab[j].cold_launch_sum += launch_s;
  } else {
    tab[j].count++;
    tab[j].sum += seconds;
    tab[j].launch_sum += launch_s;
  }
}

tidal_status rt_profile_check(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd >= 0) { /* a new file: it can be written; the real one comes at shutdown */
    close(fd);
    unlink(path);
    return TIDAL_OK;
  }
  if (errno == EEXIST)
    fd = open(path, O_WRONLY | O_CLOEXEC); /* an existing one is not truncated here */
  if (fd < 0)
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PROFILE=%s: cannot be written: %s", path,
                    strerror(errno));
  close(fd);
  return TIDAL_OK;
}

/* A field of the tab-separated format: control bytes (a tab or newline in
 * a label) become spaces, so every site stays one line of five fields. */
static void put_field(FILE *f, const char *s) {
  for (; *s; s++)
    fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

tidal_status rt_profile_write(const char *path, int measured) {
  FILE *f = fopen(path, "w");
  if (!f)
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PROFILE=%s: %s", path, strerror(errno));
  fprintf(f, "# tidal profile v2: per op site, %s durations; the first iteration left out "
             "where the site ran later\n",
          measured ? "measured (CUDA events, host clock for launches)" : "modelled (sim)");
  fprintf(f, "# file:line\tcount\tmean_seconds\tlaunch_seconds\tlabel\n");
  for (size_t i = 0; i < cap; i++) {
    const prof_entry *e = &tab[i];
    if (!e->site)
      continue;
    int warm = e->count > 0; /* Note [cold samples] */
    uint64_t n = warm ? e->count : e->cold_count;
    double sum = warm ? e->sum : e->cold_sum, lsum = warm ? e->launch_sum : e->cold_launch_sum;
    put_field(f, e->site->file ? e->site->file : "?");
    fprintf(f, ":%d\t%llu\t%.9g\t%.9g\t", e->site->line, (unsigned long long)n,
            sum / (double)n, lsum / (double)n);
    put_field(f, e->site->label ? e->site->label : "");
    fputc('\n', f);
  }
  if (fclose(f) != 0)
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PROFILE=%s: %s", path, strerror(errno));
  return TIDAL_OK;
}

void rt_profile_destroy(void) {
  free(tab);
  tab = NULL;
  cap = used = 0;
}
