/* size.c - the one size parser (tidal_parse_size), shared by the tidal
 * tool's options (--budget, --chunk, ...) and the runtime's TIDAL_*
 * variables, so that a size means the same thing everywhere.
 *
 * Note [size syntax]:
 *   size     := number unit              "512M", "8 GiB", "4096B"
 *   percent  := number "%"               "50%":    of the program's peak
 *             | number "%dev"            "50%dev": of the device memory free
 *                                                  at tidal_init
 *   number   := decimal digits; a percent may have a fraction ("12.5%"),
 *               a byte count may not ("1.5G": write 1536M)
 *   unit     := B | K | KB | KiB | M | MB | MiB | G | ... | T | TiB
 *               (case-insensitive; every K is 1024, every M 1024^2, ...:
 *               memory is counted in powers of two, as nvidia-smi does)
 * Spaces are allowed around the number and the unit.  A bare number is an
 * error with a hint ("did you mean 50M or 50%?"): "--budget 50" used to
 * mean 50 bytes.  Hex, exponents, signs, nan/inf, byte counts over 2^64 - 1
 * and percentages outside (0, 100] are errors.
 *
 * The message (tidal_last_error) is "'TEXT': why", so a caller writes
 * "NAME: " in front of it and every user of sizes reports alike.  Nothing
 * here logs or touches the runtime's state: the tool calls it without
 * tidal_init. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/base.h"

#define SIZE_SHOWN_MAX 40 /* characters of the input quoted in a message */

static const struct {
  const char *name;
  int shift; /* bytes = n << shift */
} units[] = {
    {"B", 0},    {"K", 10},   {"KB", 10},  {"KiB", 10}, {"M", 20},   {"MB", 20},
    {"MiB", 20}, {"G", 30},   {"GB", 30},  {"GiB", 30}, {"T", 40},   {"TB", 40},
    {"TiB", 40},
};

static const char *skip_spaces(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* The unit spelled by [s, e), or -1. */
static int unit_shift(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (strlen(units[i].name) == n && strncasecmp(units[i].name, s, n) == 0)
      return units[i].shift;
  return -1;
}

static int fail(const char *text, const char *fmt, ...) RT_PRINTF(2, 3);

static int fail(const char *text, const char *fmt, ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  size_t n = strlen(text);
  rt_set_error("'%.*s%s': %s", SIZE_SHOWN_MAX, text, n > SIZE_SHOWN_MAX ? "..." : "", why);
  return 0;
}

/* A hint for "1.5G": the same amount in a smaller unit, if it is whole. */
static void fraction_hint(char *out, size_t len, const char *digits, size_t nint,
                          const char *frac, size_t nfrac, int shift) {
  out[0] = '\0';
  static const char *const names[] = {"B", "K", "M", "G", "T"};
  for (int to = shift - 10; to >= 0; to -= 10) {
    /* value << shift >> to == int.frac * 2^(shift - to); whole if the
     * fraction times 2^(shift - to) is a whole number. */
    if (nint + nfrac > 15)
      return; /* exact in a double only up to ~15 digits */
    char buf[40];
    snprintf(buf, sizeof buf, "%.*s.%.*s", (int)nint, digits, (int)nfrac, frac);
    double v = strtod(buf, NULL) * (double)(1ull << (shift - to));
    if (v == (double)(uint64_t)v && v < 1e15) {
      snprintf(out, len, " (write %llu%s)", (unsigned long long)v, names[to / 10]);
      return;
    }
  }
}

int rt_size_parse(const char *text, tidal_size *out) {
  if (!text || !out)
    return fail(text ? text : "", "no text or no result to parse into");
  memset(out, 0, sizeof *out);
  const char *s = skip_spaces(text);
  if (!*s)
    return fail(text, "empty; expected a size such as 512M or 50%%");
  if (*s == '-' || *s == '+')
    return fail(text, "a size has no sign");
  const char *d = s;
  while (isdigit((unsigned char)*s))
    s++;
  size_t nint = (size_t)(s - d);
  const char *frac = NULL;
  size_t nfrac = 0;
  if (*s == '.') {
    frac = ++s;
    while (isdigit((unsigned char)*s))
      s++;
    nfrac = (size_t)(s - frac);
  }
  if (nint == 0 && nfrac == 0)
    return fail(text, "expected decimal digits, such as 512M or 50%%");
  if (frac && nfrac == 0)
    return fail(text, "expected digits after the decimal point");
  if (nint == 1 && *d == '0' && (*s == 'x' || *s == 'X'))
    return fail(text, "hexadecimal is not accepted; write the size in decimal");
  const char *u = skip_spaces(s);
  const char *ue = u;
  while (isalpha((unsigned char)*ue) || *ue == '%')
    ue++;
  const char *rest = skip_spaces(ue);
  if ((*u == 'e' || *u == 'E') && (isdigit((unsigned char)u[1]) || u[1] == '+' || u[1] == '-'))
    return fail(text, "exponents are not accepted; write the digits out with a unit (1000B, 1M)");
  if (*rest)
    return fail(text, "unexpected '%.8s' after the size", rest);

  if (*u == '%') {
    int dev = 0;
    if (ue - u == 4 && strncasecmp(u, "%dev", 4) == 0)
      dev = 1;
    else if (ue - u != 1)
      return fail(text, "expected N%% (of the program's peak) or N%%dev (of the device's free "
                        "memory)");
    if (nint + nfrac > 20)
      return fail(text, "too many digits for a percentage");
    char buf[48];
    snprintf(buf, sizeof buf, "%.*s%s%.*s", (int)nint, nint ? d : "0", frac ? "." : "",
             (int)nfrac, frac ? frac : "");
    double p = strtod(buf, NULL);
    if (!(p > 0 && p <= 100))
      return fail(text, "a percentage must be more than 0 and at most 100");
    out->kind = dev ? TIDAL_SIZE_DEVICE_PERCENT : TIDAL_SIZE_PEAK_PERCENT;
    out->percent = p;
    return 1;
  }

  if (u == ue) { /* a bare number */
    if (!frac && strspn(d, "0") >= nint)
      return fail(text, "a size needs a unit; 0 does not mean 'no limit' (leave the setting "
                        "out for that)");
    if (frac)
      return fail(text, "a size needs a unit: did you mean %.*s.%.*s%% (of the peak)?", (int)nint,
                  d, (int)nfrac, frac);
    if (nint >= 7) /* a million or more reads as a byte count, never a percentage */
      return fail(text, "a size needs a unit: did you mean %.*sB (bytes)?", (int)nint, d);
    if (nint > 3 || strtod(d, NULL) > 100)
      return fail(text, "a size needs a unit: did you mean %.*sM (MiB)?", (int)nint, d);
    return fail(text, "a size needs a unit: did you mean %.*sM (MiB) or %.*s%% (of the peak)?",
                (int)nint, d, (int)nint, d);
  }
  int shift = unit_shift(u, (size_t)(ue - u));
  if (shift < 0) {
    return fail(text, "unknown unit '%.*s': expected B, K/KiB, M/MiB, G/GiB, T/TiB, %% or %%dev",
                (int)(ue - u > 8 ? 8 : ue - u), u);
  }
  if (nfrac) {
    char hint[64];
    fraction_hint(hint, sizeof hint, d, nint, frac, nfrac, shift);
    return fail(text, "a byte count must be a whole number of its unit%s", hint);
  }
  uint64_t v = 0;
  for (const char *p = d; p < d + nint; p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return fail(text, "larger than the largest size (2^64 - 1 bytes)");
    v = v * 10 + digit;
  }
  if (shift && v > (UINT64_MAX >> shift))
    return fail(text, "larger than the largest size (2^64 - 1 bytes)");
  if ((uint64_t)(size_t)(v << shift) != (v << shift))
    return fail(text, "larger than this machine's address space");
  out->kind = TIDAL_SIZE_BYTES;
  out->bytes = v << shift;
  return 1;
}

tidal_status tidal_parse_size(const char *text, tidal_size *out) {
  if (!out)
    return rt_set_error("tidal_parse_size: out is NULL"), TIDAL_ERR_INVALID;
  return rt_size_parse(text, out) ? TIDAL_OK : TIDAL_ERR_CONFIG;
}
