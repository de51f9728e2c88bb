/* C, not C++: an int initialises an enum member, a void * converts
 * implicitly; parsed as C++ (-x cuda) this file does not compile. */
#include <stdlib.h>
#include "ops.h"
typedef enum { SCALE, RELU } kind_t;
typedef struct { kind_t kind; float *w, *h; int n; } model_t;
int main(void) {
  model_t m = {0, 0, 0, 1024};
  float *host = malloc(m.n * sizeof(float));
  m.w = alloc_gpu(m.n);
  m.h = alloc_gpu(m.n);
  for (int step = 0; step < 10; step++) {
    scale_gpu(m.h, m.w, m.n);
    scale_gpu(m.w, m.h, m.n);
  }
  free(host);
  return 0;
}
