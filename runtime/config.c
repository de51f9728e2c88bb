/* config.c - configuration defaults and the TIDAL_* environment.
 *
 * Zeros in tidal_config mean "the backend's default"; the defaults
 * themselves are resolved in api.c at tidal_init, where the device size is
 * known.  Sizes are decimal with a K/M/G/T suffix (powers of 1024, optional
 * "B" or "iB"), fractions ("1.5G"), and for TIDAL_BUDGET a percentage;
 * spaces around the parts are ignored, an empty variable counts as unset.  A malformed
 * value is TIDAL_ERR_CONFIG naming the variable, never a silent default. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "rt.h"

void tidal_config_default(tidal_config *cfg) {
  if (!cfg)
    return;
  memset(cfg, 0, sizeof *cfg);
  cfg->device = TIDAL_DEVICE_DEFAULT;
  cfg->log_level = 1;
}

int rt_parse_size(const char *s, size_t *bytes, double *percent) {
  if (!s)
    return 0;
  while (isspace((unsigned char)*s))
    s++;
  /* Decimal digits with at most one point: strtod alone would also take
   * hex ("0x1G" = 1 GiB), exponents, "inf" and "nan". */
  const char *q = s;
  int digits = 0, points = 0;
  for (; isdigit((unsigned char)*q) || *q == '.'; q++) {
    if (*q == '.')
      points++;
    else
      digits++;
  }
  if (!digits || points > 1)
    return 0;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (errno || end != q || !isfinite(v) || v < 0)
    return 0;
  while (isspace((unsigned char)*end))
    end++;
  if (*end == '%') {
    end++;
    while (isspace((unsigned char)*end))
      end++;
    if (!percent || v <= 0 || v > 100 || *end != '\0')
      return 0;
    *percent = v;
    return 1;
  }
  double mult = 1;
  switch (toupper((unsigned char)*end)) {
  case 'K': mult = 1024.0; end++; break;
  case 'M': mult = 1024.0 * 1024; end++; break;
  case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
  case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
  default: break;
  }
  if (mult > 1 && (*end == 'i' || *end == 'I'))
    end++;
  if (*end == 'b' || *end == 'B')
    end++;
  while (isspace((unsigned char)*end))
    end++;
  if (*end != '\0')
    return 0;
  v *= mult;
  if (v >= 18446744073709551615.0)
    return 0;
  *bytes = (size_t)v;
  if (percent)
    *percent = 0;
  return 1;
}

size_t rt_host_ram_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return (size_t)8 << 30; /* unknown: assume a small machine */
  return (size_t)pages * (size_t)page;
}

static int parse_level(const char *s, int *level) {
  static const char *const names[] = {"quiet", "error", "warning", "info", "debug"};
  for (int i = 0; i < 5; i++)
    if (strcasecmp(s, names[i]) == 0) {
      *level = i;
      return 1;
    }
  if (strcasecmp(s, "warn") == 0) {
    *level = 2;
    return 1;
  }
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < 0 || v > 4)
    return 0;
  *level = (int)v;
  return 1;
}

tidal_status tidal_config_from_env(tidal_config *cfg) {
  if (!cfg)
    return rt_error(TIDAL_ERR_INVALID, "tidal_config_from_env: cfg is NULL");
  const char *v;
  if ((v = getenv("TIDAL_DEVICE")) && *v) {
    if (strcasecmp(v, "cuda") == 0)
      cfg->device = TIDAL_DEVICE_CUDA;
    else if (strcasecmp(v, "sim") == 0)
      cfg->device = TIDAL_DEVICE_SIM;
    else
      return rt_error(TIDAL_ERR_CONFIG, "TIDAL_DEVICE=%s: expected cuda or sim", v);
  }
  if ((v = getenv("TIDAL_BUDGET")) && *v) {
    size_t b = 0;
    double pct = 0;
    if (!rt_parse_size(v, &b, &pct) || (pct == 0 && b == 0))
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_BUDGET=%s: expected bytes with an optional K/M/G suffix or NN%%", v);
    cfg->budget_bytes = b;
    cfg->budget_percent = pct;
  }
  if ((v = getenv("TIDAL_HOST_BUDGET")) && *v) {
    size_t b = 0;
    if (!rt_parse_size(v, &b, NULL) || b == 0)
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_HOST_BUDGET=%s: expected bytes with an optional K/M/G suffix", v);
    cfg->host_budget_bytes = b;
  }
  if ((v = getenv("TIDAL_HOST_RESERVE")) && *v) {
    size_t b = 0;
    if (!rt_parse_size(v, &b, NULL))
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_HOST_RESERVE=%s: expected bytes with an optional K/M/G suffix", v);
    cfg->host_reserve_bytes = b;
  }
  if ((v = getenv("TIDAL_PROFILE")) && *v)
    cfg->profile_path = v;
  if ((v = getenv("TIDAL_SIM_COSTS")) && *v)
    cfg->sim_costs_path = v;
  if ((v = getenv("TIDAL_CHUNK")) && *v) {
    size_t b = 0;
    if (!rt_parse_size(v, &b, NULL) || b == 0)
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_CHUNK=%s: expected bytes with an optional K/M/G suffix", v);
    cfg->chunk_bytes = b;
  }
  if ((v = getenv("TIDAL_SHARED_BUDGET")) && *v) {
    size_t b = 0;
    if (!rt_parse_size(v, &b, NULL) || b == 0)
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_SHARED_BUDGET=%s: expected bytes with an optional K/M/G suffix", v);
    cfg->shared_budget_bytes = b;
  }
  if ((v = getenv("TIDAL_SHARED_NAME")) && *v)
    cfg->shared_name = v;
  if ((v = getenv("TIDAL_TRACE")) && *v)
    cfg->trace_path = v;
  if ((v = getenv("TIDAL_LOG")) && *v) {
    int level;
    if (!parse_level(v, &level))
      return rt_error(TIDAL_ERR_CONFIG, "TIDAL_LOG=%s: expected 0-4 or quiet/error/warning/info/debug",
                      v);
    cfg->log_level = level;
  }
  return TIDAL_OK;
}
