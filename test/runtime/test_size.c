/* test_size.c - tidal_parse_size, the one size parser (Note [size syntax]):
 * a table of accepted inputs with their value, and of rejected inputs
 * with a fragment their message must contain. */
#include "testhelp.h"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)
#define TiB ((uint64_t)1 << 40)

static const struct {
  const char *text;
  tidal_size_kind kind;
  uint64_t bytes;
  double percent;
} good[] = {
    {"512M", TIDAL_SIZE_BYTES, 512 * MiB, 0},
    {"512MiB", TIDAL_SIZE_BYTES, 512 * MiB, 0},
    {"512MB", TIDAL_SIZE_BYTES, 512 * MiB, 0}, /* every K/M/G/T is a power of 1024 */
    {"512m", TIDAL_SIZE_BYTES, 512 * MiB, 0},
    {"8 GiB", TIDAL_SIZE_BYTES, 8 * GiB, 0},
    {"  4K  ", TIDAL_SIZE_BYTES, 4 * KiB, 0},
    {"4096B", TIDAL_SIZE_BYTES, 4096, 0},
    {"4096 b", TIDAL_SIZE_BYTES, 4096, 0},
    {"1kb", TIDAL_SIZE_BYTES, KiB, 0},
    {"2T", TIDAL_SIZE_BYTES, 2 * TiB, 0},
    {"3TiB", TIDAL_SIZE_BYTES, 3 * TiB, 0},
    {"0B", TIDAL_SIZE_BYTES, 0, 0},
    {"007M", TIDAL_SIZE_BYTES, 7 * MiB, 0},
    {"16777215T", TIDAL_SIZE_BYTES, 16777215 * TiB, 0},
    {"18446744073709551615B", TIDAL_SIZE_BYTES, UINT64_MAX, 0},
    {"50%", TIDAL_SIZE_PEAK_PERCENT, 0, 50},
    {"50 %", TIDAL_SIZE_PEAK_PERCENT, 0, 50},
    {"12.5%", TIDAL_SIZE_PEAK_PERCENT, 0, 12.5},
    {".5%", TIDAL_SIZE_PEAK_PERCENT, 0, 0.5},
    {"100%", TIDAL_SIZE_PEAK_PERCENT, 0, 100},
    {"50%dev", TIDAL_SIZE_DEVICE_PERCENT, 0, 50},
    {"50%DEV ", TIDAL_SIZE_DEVICE_PERCENT, 0, 50},
    {"99.9 %dev", TIDAL_SIZE_DEVICE_PERCENT, 0, 99.9},
};

static const struct {
  const char *text;
  const char *why; /* a fragment of the message */
} bad[] = {
    {"50", "did you mean 50M (MiB) or 50% (of the peak)?"},
    {"0", "0 does not mean 'no limit'"},
    {"000", "0 does not mean 'no limit'"},
    {" 4096 ", "did you mean 4096M (MiB)?"},
    {"1551892480", "did you mean 1551892480B (bytes)?"},
    {"1.5", "did you mean 1.5% (of the peak)?"},
    {"1.5G", "(write 1536M)"},
    {"0.5K", "(write 512B)"},
    {"1.3G", "whole number"},
    {"0x10", "hexadecimal"},
    {"0x1G", "hexadecimal"},
    {"1e3", "exponents"},
    {"1E+3M", "exponents"},
    {"nan", "decimal digits"},
    {"inf", "decimal digits"},
    {"-5M", "sign"},
    {"+5M", "sign"},
    {"", "empty"},
    {"   ", "empty"},
    {"150%", "at most 100"},
    {"100.01%", "at most 100"},
    {"0%", "more than 0"},
    {"0.0%dev", "more than 0"},
    {"%", "decimal digits"},
    {"5M%", "unknown unit"},
    {"50%%", "N%dev"},
    {"50%devices", "N%dev"},
    {"16777216T", "larger than the largest size"},
    {"18446744073709551616B", "larger than the largest size"},
    {"99999999999999999999999999K", "larger than the largest size"},
    {"12Q", "unknown unit 'Q'"},
    {"12 KiBs", "unknown unit"},
    {"1.2.3M", "unexpected"},
    {".", "decimal digits"},
    {"5.M", "digits after the decimal point"},
    {"5 M B", "unexpected 'B'"},
    {"1_000M", "unexpected"},
    {"1,5G", "unexpected"},
};

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    tidal_size sz;
    tidal_status st = tidal_parse_size(good[i].text, &sz);
    if (st != TIDAL_OK)
      TH_FAIL("'%s' rejected: %s", good[i].text, tidal_last_error());
    if (sz.kind != good[i].kind || sz.bytes != good[i].bytes || sz.percent != good[i].percent)
      TH_FAIL("'%s' gave kind %d, %llu bytes, %g%%; expected kind %d, %llu bytes, %g%%",
              good[i].text, (int)sz.kind, (unsigned long long)sz.bytes, sz.percent,
              (int)good[i].kind, (unsigned long long)good[i].bytes, good[i].percent);
  }
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    tidal_size sz;
    tidal_status st = tidal_parse_size(bad[i].text, &sz);
    if (st != TIDAL_ERR_CONFIG)
      TH_FAIL("'%s' accepted (kind %d, %llu bytes, %g%%)", bad[i].text, (int)sz.kind,
              (unsigned long long)sz.bytes, sz.percent);
    /* One message style: "'TEXT': why". */
    char head[64];
    snprintf(head, sizeof head, "'%s': ", bad[i].text);
    if (strncmp(tidal_last_error(), head, strlen(head)) != 0)
      TH_FAIL("message for '%s' does not start with %s: %s", bad[i].text, head,
              tidal_last_error());
    CHECK_MESSAGE(bad[i].why);
  }
  /* Long input is quoted shortened, NULL arguments are errors, not crashes. */
  char longtext[200];
  memset(longtext, '7', sizeof longtext - 1);
  longtext[sizeof longtext - 1] = '\0';
  tidal_size sz;
  CHECK_STATUS(tidal_parse_size(longtext, &sz), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("...': ");
  CHECK_STATUS(tidal_parse_size(NULL, &sz), TIDAL_ERR_CONFIG);
  CHECK_STATUS(tidal_parse_size("1M", NULL), TIDAL_ERR_INVALID);
  /* tidal_config_set_budget: one budget field set, the others cleared. */
  tidal_config c;
  tidal_config_default(&c);
  CHECK_OK(tidal_config_set_budget(&c, "40%"));
  CHECK(c.budget_percent == 40 && c.budget_bytes == 0 && c.budget_device_percent == 0);
  CHECK_OK(tidal_config_set_budget(&c, "2G"));
  CHECK(c.budget_percent == 0 && c.budget_bytes == 2 * GiB && c.budget_device_percent == 0);
  CHECK_OK(tidal_config_set_budget(&c, "25%dev"));
  CHECK(c.budget_percent == 0 && c.budget_bytes == 0 && c.budget_device_percent == 25);
  CHECK_STATUS(tidal_config_set_budget(&c, "0M"), TIDAL_ERR_CONFIG);
  CHECK_MESSAGE("more than 0 bytes");
  CHECK(c.budget_device_percent == 25); /* a rejected budget changes nothing */
  CHECK_STATUS(tidal_config_set_budget(NULL, "1G"), TIDAL_ERR_INVALID);
  printf("ok: %zu accepted, %zu rejected\n", sizeof good / sizeof *good, sizeof bad / sizeof *bad);
  return 0;
}
