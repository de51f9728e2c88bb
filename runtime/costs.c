/* costs.c - reads the sim backend's cost model (runtime/sim_costs.txt).
 *
 * One small text format serves three writers and readers: the defaults in
 * the source tree (compiled in), files measured on a GPU by bench/vmm_costs,
 * and `tidal replay --costs FILE`.  A file is read over the values already
 * present, so a measured file may name only what it measured. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "rt.h"
#include "sim_costs_default.h" /* rt_sim_costs_default[]: runtime/sim_costs.txt */

static const struct {
  const char *key;
  size_t off;
} keys[] = {
#define K(f) {#f, offsetof(rt_costs, f)}
    K(map_s),          K(set_access_s),    K(unmap_s),         K(map_8m_s),
    K(set_access_8m_s), K(unmap_8m_s),     K(map_32m_s),       K(set_access_32m_s),
    K(unmap_32m_s),    K(vmm_in_situ_scale), K(event_record_s),
    K(event_query_s),  K(event_sync_s),    K(stream_wait_s),   K(launch_s),
    K(launch_gap_s),   K(copy_issue_s),    K(copy_latency_s),  K(h2d_bytes_per_s),
    K(d2h_bytes_per_s), K(pin_bytes_per_s), K(host_ahead_s),   K(vmm_enqueue_s),
    K(one_copy_engine),
#undef K
};

static int parse_value(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || v < 0)
    return 0;
  switch (*end) {
  case 'n': v *= 1e-9; end++; break;
  case 'u': v *= 1e-6; end++; break;
  case 'm': v *= 1e-3; end++; break;
  case 'K': case 'k': v *= 1e3; end++; break;
  case 'M': v *= 1e6; end++; break;
  case 'G': v *= 1e9; end++; break;
  case 'T': v *= 1e12; end++; break;
  default: break;
  }
  if (*end && !isspace((unsigned char)*end))
    return 0;
  *out = v;
  return 1;
}

int rt_costs_parse(const char *text, const char *name, rt_costs *c, char *err, size_t errlen) {
  int line = 0;
  for (const char *p = text; *p;) {
    line++;
    const char *eol = strchr(p, '\n');
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    char buf[512];
    if (n >= sizeof buf) {
      snprintf(err, errlen, "%s:%d: line too long", name, line);
      return -1;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    p += n + (eol ? 1 : 0);
    char *hash = strchr(buf, '#');
    if (hash)
      *hash = '\0';
    char *k = buf;
    while (isspace((unsigned char)*k))
      k++;
    if (!*k)
      continue;
    char *v = k;
    while (*v && !isspace((unsigned char)*v))
      v++;
    if (*v)
      *v++ = '\0';
    while (isspace((unsigned char)*v))
      v++;
    size_t i;
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
      if (strcmp(keys[i].key, k) == 0)
        break;
    if (i == sizeof keys / sizeof keys[0]) {
      snprintf(err, errlen, "%s:%d: unknown key '%s'", name, line, k);
      return -1;
    }
    double d;
    if (!parse_value(v, &d)) {
      snprintf(err, errlen, "%s:%d: '%s' is not a number with an optional n/u/m/K/M/G/T suffix",
               name, line, v);
      return -1;
    }
    *(double *)((char *)c + keys[i].off) = d;
  }
  return 0;
}

tidal_status rt_costs_load(const char *path, rt_costs *c) {
  char err[256];
  memset(c, 0, sizeof *c);
  if (rt_costs_parse(rt_sim_costs_default, "sim_costs.txt", c, err, sizeof err) != 0)
    return rt_error(TIDAL_ERR_CONFIG, "built-in cost model: %s", err);
  if (!path)
    return TIDAL_OK;
  FILE *f = fopen(path, "r");
  if (!f)
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s: %s", path, strerror(errno));
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  for (size_t got; text && (got = fread(text + len, 1, cap - len - 1, f)) > 0;) {
    len += got;
    if (len + 1 == cap) {
      char *n = realloc(text, cap *= 2);
      if (!n) {
        free(text);
        text = NULL;
      } else
        text = n;
    }
  }
  fclose(f);
  if (!text)
    return rt_error(TIDAL_ERR_HOST_MEMORY, "cost model %s: out of host memory", path);
  text[len] = '\0';
  int rc = rt_costs_parse(text, path, c, err, sizeof err);
  free(text);
  if (rc != 0)
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s", err);
  if (c->h2d_bytes_per_s <= 0 || c->d2h_bytes_per_s <= 0 || c->pin_bytes_per_s <= 0)
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s: bandwidths must be positive", path);
  return TIDAL_OK;
}
