/* config.c - configuration defaults and the TIDAL_* environment.
 *
 * Zeros in tidal_config mean "the backend's default"; the defaults
 * themselves are resolved in api.c at tidal_init, where the device size is
 * known.  Sizes go through the one parser (size.c, Note [size syntax]); an
 * empty variable counts as unset.  A malformed value is TIDAL_ERR_CONFIG
 * naming the variable, never a silent default.  TIDAL_* variables that
 * nothing reads are warned about once per tidal_init: a typo
 * (TIDAL_BUGDET=1G) would otherwise run without a budget, silently. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "base/base.h"

extern char **environ;

void tidal_config_default(tidal_config *cfg) {
  if (!cfg)
    return;
  memset(cfg, 0, sizeof *cfg);
  cfg->device = TIDAL_DEVICE_DEFAULT;
  cfg->log_level = 1;
}

/* A size variable: `name` is for the message; percent_ok: may be "N%". */
static tidal_status env_size(const char *name, const char *v, tidal_size *out) {
  if (!rt_size_parse(v, out)) {
    char why[400];
    snprintf(why, sizeof why, "%s", tidal_last_error());
    return rt_error(TIDAL_ERR_CONFIG, "%s: %s", name, why);
  }
  return TIDAL_OK;
}

static tidal_status env_bytes(const char *name, const char *v, size_t *bytes) {
  tidal_size sz;
  tidal_status st = env_size(name, v, &sz);
  if (st != TIDAL_OK)
    return st;
  if (sz.kind != TIDAL_SIZE_BYTES)
    return rt_error(TIDAL_ERR_CONFIG, "%s: '%s': expected bytes (such as 64M), not a percentage",
                    name, v);
  if (sz.bytes == 0)
    return rt_error(TIDAL_ERR_CONFIG, "%s: '%s': must be more than 0 bytes", name, v);
  *bytes = (size_t)sz.bytes;
  return TIDAL_OK;
}

static void set_budget(tidal_config *cfg, const tidal_size *sz) {
  cfg->budget_bytes = sz->kind == TIDAL_SIZE_BYTES ? (size_t)sz->bytes : 0;
  cfg->budget_percent = sz->kind == TIDAL_SIZE_PEAK_PERCENT ? sz->percent : 0;
  cfg->budget_device_percent = sz->kind == TIDAL_SIZE_DEVICE_PERCENT ? sz->percent : 0;
}

static tidal_status budget_from(const char *name, const char *v, tidal_config *cfg) {
  tidal_size sz;
  tidal_status st = env_size(name, v, &sz);
  if (st != TIDAL_OK)
    return st;
  if (sz.kind == TIDAL_SIZE_BYTES && sz.bytes == 0)
    return rt_error(TIDAL_ERR_CONFIG,
                    "%s: '%s': a budget must be more than 0 bytes (for no budget, leave it unset)",
                    name, v);
  set_budget(cfg, &sz);
  return TIDAL_OK;
}

tidal_status tidal_config_set_budget(tidal_config *cfg, const char *text) {
  if (!cfg || !text)
    return rt_error(TIDAL_ERR_INVALID, "tidal_config_set_budget: cfg or text is NULL");
  return budget_from("tidal_config_set_budget", text, cfg);
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

int rt_parse_planner(const char *s, tidal_planner *out) {
  static const char *const names[] = {"runtime", "hints", "lru"};
  for (int i = 0; i < 3; i++)
    if (strcasecmp(s, names[i]) == 0) {
      *out = (tidal_planner)(TIDAL_PLANNER_RUNTIME + i);
      return 1;
    }
  return 0;
}

static int parse_flag(const char *s, int *on) {
  static const char *const yes[] = {"1", "yes", "on", "true"}, *const no[] = {"0", "no", "off",
                                                                              "false"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0)
      return *on = 1, 1;
    if (strcasecmp(s, no[i]) == 0)
      return *on = 0, 1;
  }
  return 0;
}

static tidal_status device_from(const char *v, tidal_device *device) {
  if (strcasecmp(v, "cuda") == 0)
    *device = TIDAL_DEVICE_CUDA;
  else if (strcasecmp(v, "sim") == 0)
    *device = TIDAL_DEVICE_SIM;
  else
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_DEVICE: '%s': expected cuda or sim", v);
  return TIDAL_OK;
}

tidal_status rt_config_device_from_env(tidal_device *device) {
  const char *v = getenv("TIDAL_DEVICE");
  return v && *v ? device_from(v, device) : TIDAL_OK;
}

tidal_status tidal_config_from_env(tidal_config *cfg) {
  if (!cfg)
    return rt_error(TIDAL_ERR_INVALID, "tidal_config_from_env: cfg is NULL");
  tidal_config c = *cfg; /* all or nothing: a malformed variable changes no field */
  const char *v;
  tidal_status st;
  if ((v = getenv("TIDAL_DEVICE")) && *v && (st = device_from(v, &c.device)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_BUDGET")) && *v && (st = budget_from("TIDAL_BUDGET", v, &c)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_HOST_BUDGET")) && *v &&
      (st = env_bytes("TIDAL_HOST_BUDGET", v, &c.host_budget_bytes)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_CHUNK")) && *v &&
      (st = env_bytes("TIDAL_CHUNK", v, &c.chunk_bytes)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_SHARED_BUDGET")) && *v &&
      (st = env_bytes("TIDAL_SHARED_BUDGET", v, &c.shared_budget_bytes)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_HOST_RESERVE")) && *v &&
      (st = env_bytes("TIDAL_HOST_RESERVE", v, &c.host_reserve_bytes)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_PROFILE")) && *v)
    c.profile_path = v;
  if ((v = getenv("TIDAL_SIM_COSTS")) && *v)
    c.sim_costs_path = v;
  if ((v = getenv("TIDAL_SHARED_NAME")) && *v)
    c.shared_name = v;
  if ((v = getenv("TIDAL_TRACE")) && *v)
    c.trace_path = v;
  if ((v = getenv("TIDAL_TRACE_MAX")) && *v &&
      (st = env_bytes("TIDAL_TRACE_MAX", v, &c.trace_max_bytes)) != TIDAL_OK)
    return st;
  if ((v = getenv("TIDAL_LOG")) && *v && !parse_level(v, &c.log_level))
    return rt_error(TIDAL_ERR_CONFIG,
                    "TIDAL_LOG: '%s': expected 0-4 or quiet/error/warning/info/debug", v);
  if ((v = getenv("TIDAL_STATS")) && *v && !parse_flag(v, &c.stats))
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_STATS: '%s': expected 1/0, yes/no, on/off", v);
  if ((v = getenv("TIDAL_PLANNER")) && *v && !rt_parse_planner(v, &c.planner))
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PLANNER: '%s': expected runtime, hints or lru", v);
  if ((v = getenv("TIDAL_PLANNER_FEEDBACK")) && *v) {
    int on;
    if (!parse_flag(v, &on))
      return rt_error(TIDAL_ERR_CONFIG, "TIDAL_PLANNER_FEEDBACK: '%s': expected 1/0, yes/no, on/off", v);
    c.planner_feedback_off = !on;
  }
  if ((v = getenv("TIDAL_VMM_THREAD")) && *v && !parse_flag(v, &c.vmm_thread))
    return rt_error(TIDAL_ERR_CONFIG, "TIDAL_VMM_THREAD: '%s': expected 1/0, yes/no, on/off", v);
  if ((v = getenv("TIDAL_RELOCATE")) && *v) {
    int on;
    if (!parse_flag(v, &on))
      return rt_error(TIDAL_ERR_CONFIG, "TIDAL_RELOCATE: '%s': expected 1/0, yes/no, on/off", v);
    c.relocate_off = !on;
  }
  if ((v = getenv("TIDAL_PREFETCH_ORDER")) && *v) {
    int on;
    if (!parse_flag(v, &on))
      return rt_error(TIDAL_ERR_CONFIG,
                      "TIDAL_PREFETCH_ORDER: '%s': expected 1/0, yes/no, on/off", v);
    c.prefetch_order_off = !on;
  }
  *cfg = c;
  return TIDAL_OK;
}

/* Variables read by the runtime (above) and by tidal's tools and tests:
 * none of them is a typo. */
static const char *const known_env[] = {
    "TIDAL_DEVICE", "TIDAL_BUDGET", "TIDAL_HOST_BUDGET", "TIDAL_CHUNK", "TIDAL_TRACE",
    "TIDAL_LOG", "TIDAL_STATS", "TIDAL_SHARED_BUDGET", "TIDAL_SHARED_NAME", "TIDAL_PLANNER",
    "TIDAL_PLANNER_FEEDBACK", "TIDAL_HOST_RESERVE", "TIDAL_PROFILE", "TIDAL_SIM_COSTS",
    "TIDAL_VMM_THREAD", "TIDAL_TRACE_MAX", "TIDAL_RELOCATE", "TIDAL_PREFETCH_ORDER",
    /* tidal-nvcc, the tidal tool and the test programs */
    "TIDAL_NVCC", "TIDAL_NVCC_VERBOSE", "TIDAL_TOOL", "TIDAL_PLAN", "TIDAL_CUDA_PATH",
    "TIDAL_REPLAY_BREAK", "TIDAL_TEST_SEED", "TIDAL_PROGRESS", "TIDAL_INCLUDE_DIR",
    "TIDAL_LIB_DIR", "TIDAL_TEST_RELOC",
    /* tidal replay's cost model (pass/plan/costmodel.c, docs/replay.md) */
    "TIDAL_COST_PEAK_FLOPS", "TIDAL_COST_HBM_BW", "TIDAL_COST_LAUNCH", "TIDAL_COST_H2D_BW",
    "TIDAL_COST_D2H_BW", "TIDAL_COST_LATENCY"};

/* Edit distance, to suggest the variable a typo meant. */
static size_t distance(const char *a, size_t na, const char *b) {
  size_t nb = strlen(b), row[64];
  if (na >= 63 || nb >= 63)
    return 99;
  for (size_t j = 0; j <= nb; j++)
    row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best)
        best = row[j] + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

void rt_config_warn_unknown_env(void) {
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "TIDAL_", 6) != 0)
      continue;
    const char *eq = strchr(*e, '=');
    size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
    const char *best = NULL;
    size_t best_d = 3; /* suggest only close names */
    int known = 0;
    for (size_t i = 0; i < sizeof known_env / sizeof *known_env; i++) {
      if (strlen(known_env[i]) == n && strncmp(*e, known_env[i], n) == 0) {
        known = 1;
        break;
      }
      size_t d = distance(*e, n, known_env[i]);
      if (d < best_d) {
        best_d = d;
        best = known_env[i];
      }
    }
    if (known)
      continue;
    /* A warning, printed unless TIDAL_LOG=quiet: at the default level
     * (errors) a typo would otherwise pass unnoticed. */
    if (rt_base.cfg.log_level >= 1)
      fprintf(stderr, "tidal: warning: %.*s is not a tidal variable; it is ignored%s%s%s\n",
              (int)n, *e, best ? " (did you mean " : "", best ? best : "", best ? "?)" : "");
  }
}
