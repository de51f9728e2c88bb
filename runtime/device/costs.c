/* costs.c - reads the sim backend's cost model (runtime/device/sim_costs.txt).
 *
 * One small text format serves three writers and readers: the defaults in
 * the source tree (compiled in), files measured on a GPU by bench/vmm_costs,
 * and `tidal replay --costs FILE`.  A file is read over the values already
 * present, so a measured file may name only what it measured.
 *
 * Note [cost file checks]: a cost file is input like any other and is
 * checked before a value is used (issue 23: nan, inf, "1G" seconds, hex,
 * trailing junk, an embedded NUL, a directory and /dev/zero were all taken,
 * and replay then wrote "inf" into its JSON).  The file must be a regular
 * file or a pipe of at most COSTS_MAX_BYTES of text (no NUL or other
 * control byte); each line is one "key value" pair, a key at most once;
 * values are plain decimals (no sign, hex, inf or nan) with a suffix of the
 * key's kind - seconds (keys ending in _s) take n/u/m, rates (ending in
 * _per_s) K/M/G/T, the unitless vmm_in_situ_scale (at most COSTS_MAX_SCALE)
 * and one_copy_engine (0 or 1) none - and lie in the key's range.  Messages quote the file's
 * bytes with anything unprintable as \xNN. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "device/device.h"
#include "sim_costs_default.h" /* rt_sim_costs_default[]: runtime/device/sim_costs.txt */

#define COSTS_MAX_BYTES ((size_t)64 << 10) /* the defaults with comments are ~3 KiB */
#define COSTS_MAX_CALL_S 1.0               /* a per-call cost beyond a second is a unit slip */
#define COSTS_MAX_AHEAD_S 86400.0          /* host_ahead_s: "effectively unbounded" is 1 */
#define COSTS_MAX_RATE 1e15                /* bytes a second (PB/s) */
#define COSTS_MAX_SCALE 100.0              /* vmm_in_situ_scale: a factor over the microbenchmark */

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
    K(d2d_bytes_per_s),
    K(one_copy_engine),
#undef K
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* s[0..n) for a message (Note [cost file checks]). */
static const char *quote(const char *s, size_t n, char *out, size_t cap) {
  size_t o = 0, i = 0;
  out[0] = '\0';
  for (; i < n && o + 8 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    o += (size_t)snprintf(out + o, cap - o, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
  }
  if (i < n)
    snprintf(out + o, cap - o, "...");
  return out;
}

static int is_rate(size_t key) {
  const char *k = keys[key].key;
  size_t n = strlen(k);
  return n > 6 && strcmp(k + n - 6, "_per_s") == 0;
}

/* A key with no unit (vmm_in_situ_scale, one_copy_engine): no suffix. */
static int is_plain(size_t key) {
  const char *k = keys[key].key;
  size_t n = strlen(k);
  return !(n > 2 && strcmp(k + n - 2, "_s") == 0);
}

/* The value at v (ending at the first space or the line's end) for key:
 * 1 and *out, or 0 with the reason in why. */
static int parse_value(size_t key, const char *v, double *out, char *why, size_t cap) {
  const char *e = v;
  int digits = 0;
  while (isdigit((unsigned char)*e))
    e++, digits++;
  if (*e == '.') {
    e++;
    while (isdigit((unsigned char)*e))
      e++, digits++;
  }
  if (digits && (*e == 'e' || *e == 'E')) {
    const char *x = e + 1;
    if (*x == '+' || *x == '-')
      x++;
    if (isdigit((unsigned char)*x)) {
      while (isdigit((unsigned char)*x))
        x++;
      e = x;
    }
  }
  if (!digits) {
    snprintf(why, cap, "is not a plain decimal number");
    return 0;
  }
  double d = strtod(v, NULL);
  int rate = is_rate(key);
  if (*e && !isspace((unsigned char)*e)) {
    static const char rs[] = "KMGT", ss[] = "num";
    static const double rm[] = {1e3, 1e6, 1e9, 1e12}, sm[] = {1e-9, 1e-6, 1e-3};
    const char *hit = is_plain(key) ? NULL : strchr(rate ? rs : ss, *e);
    if (is_plain(key)) {
      snprintf(why, cap, "is not a plain number (no unit)");
      return 0;
    }
    if (!hit || (e[1] && !isspace((unsigned char)e[1]))) {
      snprintf(why, cap, "%s", rate ? "is not a rate in bytes a second (suffix K, M, G or T)"
                                    : "is not seconds (suffix n, u or m)");
      return 0;
    }
    d *= rate ? rm[hit - rs] : sm[hit - ss];
    e++;
  }
  double max = rate ? COSTS_MAX_RATE
               : strcmp(keys[key].key, "host_ahead_s") == 0 ? COSTS_MAX_AHEAD_S
               : strcmp(keys[key].key, "vmm_in_situ_scale") == 0 ? COSTS_MAX_SCALE
               : strcmp(keys[key].key, "one_copy_engine") == 0 ? 1.0
                                                                : COSTS_MAX_CALL_S;
  if (strcmp(keys[key].key, "one_copy_engine") == 0 && d != 0 && d != 1) {
    snprintf(why, cap, "is not 0 or 1");
    return 0;
  }
  if (!isfinite(d) || d > max || (rate && d <= 0)) {
    snprintf(why, cap, "is out of range (%s %g)", rate ? "more than 0, at most" : "0 to", max);
    return 0;
  }
  *out = d;
  return 1;
}

int rt_costs_parse(const char *text, const char *name, rt_costs *c, char *err, size_t errlen) {
  int line = 0, seen[NKEYS] = {0};
  rt_costs next = *c; /* all or nothing: a bad file changes no value */
  char q[64], why[96];
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
    for (size_t i = 0; i < n; i++)
      if ((unsigned char)buf[i] < 0x20 && buf[i] != '\t' && buf[i] != '\r') {
        snprintf(err, errlen, "%s:%d: a control byte (0x%02x): not a text file", name, line,
                 (unsigned char)buf[i]);
        return -1;
      }
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
    size_t klen = (size_t)(v - k);
    while (isspace((unsigned char)*v))
      v++;
    size_t i;
    for (i = 0; i < NKEYS; i++)
      if (strlen(keys[i].key) == klen && strncmp(keys[i].key, k, klen) == 0)
        break;
    if (i == NKEYS) {
      snprintf(err, errlen, "%s:%d: unknown key '%s'", name, line, quote(k, klen, q, sizeof q));
      return -1;
    }
    if (seen[i]) {
      snprintf(err, errlen, "%s:%d: %s is given twice (first on line %d)", name, line,
               keys[i].key, seen[i]);
      return -1;
    }
    seen[i] = line;
    char *vend = v;
    while (*vend && !isspace((unsigned char)*vend))
      vend++;
    double d;
    if (!*v) {
      snprintf(err, errlen, "%s:%d: %s has no value", name, line, keys[i].key);
      return -1;
    }
    if (!parse_value(i, v, &d, why, sizeof why)) {
      snprintf(err, errlen, "%s:%d: %s '%s' %s", name, line, keys[i].key,
               quote(v, (size_t)(vend - v), q, sizeof q), why);
      return -1;
    }
    char *rest = vend;
    while (isspace((unsigned char)*rest))
      rest++;
    if (*rest) {
      snprintf(err, errlen, "%s:%d: text after %s's value: '%s' (one \"key value\" a line)",
               name, line, keys[i].key, quote(rest, strlen(rest), q, sizeof q));
      return -1;
    }
    *(double *)((char *)&next + keys[i].off) = d;
  }
  *c = next;
  return 0;
}

/* The file's text (NUL-terminated; caller frees), within the Note's limits. */
static tidal_status read_file(const char *path, char **out) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO is not waited on here */
  if (fd < 0)
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s: %s", path, strerror(errno));
  struct stat st;
  memset(&st, 0, sizeof st);
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    close(fd);
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s: %s, not a text file", path,
                    S_ISDIR(st.st_mode) ? "a directory" : "a device or other special file");
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0)
    (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  char *text = malloc(COSTS_MAX_BYTES + 2);
  if (!text) {
    close(fd);
    return rt_error(TIDAL_ERR_HOST_MEMORY, "cost model %s: out of host memory", path);
  }
  size_t len = 0;
  while (len <= COSTS_MAX_BYTES) {
    ssize_t r = read(fd, text + len, COSTS_MAX_BYTES + 1 - len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      free(text);
      return rt_error(TIDAL_ERR_CONFIG, "cost model %s: %s", path, strerror(e));
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  if (len > COSTS_MAX_BYTES) {
    free(text);
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s: larger than %zu bytes: not a cost file",
                    path, COSTS_MAX_BYTES);
  }
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    int line = 1;
    for (const char *p = text; p < nul; p++)
      line += *p == '\n';
    free(text);
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s:%d: a NUL byte: not a text file", path,
                    line);
  }
  text[len] = '\0';
  *out = text;
  return TIDAL_OK;
}

tidal_status rt_costs_load(const char *path, rt_costs *c) {
  char err[256];
  memset(c, 0, sizeof *c);
  if (rt_costs_parse(rt_sim_costs_default, "sim_costs.txt", c, err, sizeof err) != 0)
    return rt_error(TIDAL_ERR_CONFIG, "built-in cost model: %s", err);
  if (!path)
    return TIDAL_OK;
  char *text;
  tidal_status st = read_file(path, &text);
  if (st != TIDAL_OK)
    return st;
  int rc = rt_costs_parse(text, path, c, err, sizeof err);
  free(text);
  if (rc != 0)
    return rt_error(TIDAL_ERR_CONFIG, "cost model %s", err);
  return TIDAL_OK;
}

tidal_status tidal_sim_copy_costs_read(const char *path, tidal_sim_copy_costs *out) {
  if (!out)
    return rt_error(TIDAL_ERR_INVALID, "tidal_sim_copy_costs_read: out is NULL");
  rt_costs c;
  tidal_status st = rt_costs_load(path, &c);
  if (st != TIDAL_OK)
    return st;
  out->h2d_bytes_per_s = c.h2d_bytes_per_s;
  out->d2h_bytes_per_s = c.d2h_bytes_per_s;
  out->copy_latency_s = c.copy_latency_s;
  return TIDAL_OK;
}
