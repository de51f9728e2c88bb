/* profile.c - per-op-site durations, written at tidal_shutdown when
 * TIDAL_PROFILE (tidal_config.profile_path) is set.
 *
 * The CUDA backend measures each op with a pair of timing events around
 * its launch; the sim backend reports its modelled durations (so the file
 * format is tested without a GPU).  `tidal replay --profile FILE` reads it
 * back and uses the measured durations instead of the roofline estimate.
 *
 * Format (docs/replay.md, "Profiles"): a comment header, then one line per
 * site, tab-separated:
 *     FILE:LINE <TAB> COUNT <TAB> MEAN_SECONDS <TAB> LABEL
 * Sites are keyed by their tidal_site object (the rewriter emits one static
 * object per site), so two sites on one line stay apart. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rt.h"

typedef struct prof_entry {
  const tidal_site *site;
  uint64_t count;
  double sum;
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

void rt_profile_add(const tidal_site *site, double seconds) {
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
  tab[j].count++;
  tab[j].sum += seconds;
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
 * a label) become spaces, so every site stays one line of four fields. */
static void put_field(FILE *f, const char *s) {
  for (; *s; s++)
    fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

tidal_status rt_profile_write(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PROFILE=%s: %s", path, strerror(errno));
  fprintf(f, "# tidal profile v1: per op site, %s durations\n",
          strcmp(rt_g.be->name, "cuda") == 0 ? "measured (CUDA events)" : "modelled (sim)");
  fprintf(f, "# file:line\tcount\tmean_seconds\tlabel\n");
  for (size_t i = 0; i < cap; i++) {
    const tidal_site *s = tab[i].site;
    if (!s)
      continue;
    put_field(f, s->file ? s->file : "?");
    fprintf(f, ":%d\t%llu\t%.9g\t", s->line, (unsigned long long)tab[i].count,
            tab[i].sum / (double)tab[i].count);
    put_field(f, s->label ? s->label : "");
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
