/* Uses the installed libtidal on its CPU simulation backend: allocate,
 * write through an op, swap out, read back through another op. */
#include <stdio.h>
#include <string.h>
#include "tidal.h"

int main(void) {
  tidal_config cfg;
  tidal_config_default(&cfg);
  cfg.device = TIDAL_DEVICE_SIM;
  cfg.sim_device_bytes = 64u << 20;
  cfg.budget_bytes = 16u << 20;
  if (tidal_init(&cfg) != TIDAL_OK) { fprintf(stderr, "init: %s\n", tidal_last_error()); return 1; }
  void *p;
  size_t n = 4u << 20;
  if (tidal_malloc(&p, n) != TIDAL_OK) return 1;
  tidal_site w = {"write", __FILE__, __LINE__, 0}, r = {"read", __FILE__, __LINE__, 0};
  tidal_access a = {p, n, TIDAL_WRITE};
  if (tidal_op_begin(&w, 1, &a) != TIDAL_OK) return 1;
  memset(p, 0x5a, n);
  tidal_op_end(&w);
  tidal_swap_out(p, n);
  a.mode = TIDAL_READ;
  if (tidal_op_begin(&r, 1, &a) != TIDAL_OK) return 1;
  int ok = ((unsigned char *)p)[n - 1] == 0x5a;
  tidal_op_end(&r);
  tidal_free(p);
  tidal_shutdown();
  printf("consumer: %s\n", ok ? "ok" : "DATA LOST");
  return ok ? 0 : 1;
}
