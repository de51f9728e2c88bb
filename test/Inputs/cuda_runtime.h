/* Stub <cuda_runtime.h>: the runtime API lives in the stub cuda.h. */
#include "cuda.h"
