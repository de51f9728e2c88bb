/* link_check.c - main() for tidal_cuda_link_check.
 *
 * Built with TIDAL_CUDA_DIRECT_LINK against the toolkit's stub libcuda.so so
 * that every driver entry point backend_cuda.c uses is resolved at link
 * time.  Run on a machine with a GPU it initialises the CUDA backend once. */
#include <stdio.h>
#include "tidal.h"

int main(void) {
  tidal_config cfg;
  tidal_config_default(&cfg);
  cfg.device = TIDAL_DEVICE_CUDA;
  tidal_status st = tidal_init(&cfg);
  printf("tidal_init(cuda): %s %s\n", tidal_status_string(st), tidal_last_error());
  if (st == TIDAL_OK)
    tidal_shutdown();
  return st == TIDAL_OK ? 0 : 1;
}
