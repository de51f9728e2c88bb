// Sizes from runtime values stay symbolic: JSON has no *_value for them and
// the graph is not unrolled; --bind makes them concrete, and a constant in
// the source (static const, #define) is bound without being asked.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck --check-prefix=SYM %s
// RUN: %tidal graph %s --format json --bind B=8 -- %stubflags | FileCheck --check-prefix=BOUND %s

#define C 32
static const int L = 2;

__global__ void k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

int atoi(const char *);
int main(int argc, char **argv) {
  int B = atoi(argv[1]);
  float *x, *y;
  cudaMalloc((void **)&x, L * B * C * sizeof(float));
  cudaMalloc((void **)&y, L * B * C * sizeof(float));
  for (int step = 0; step < 4; step++)
    for (int l = 0; l < L; l++)
      k<<<B, C>>>(y + l * B * C, x + l * B * C, B * C);
  return 0;
}

// SYM: "bindings": [
// SYM-DAG: {"name": "L", "value": 2, "source": "const"}
// SYM-DAG: {"name": "C", "value": 32, "source": "macro"}
// SYM-NOT: "name": "B"
// SYM: "mode": "write", "bytes": "4*B*C", "bytes_local": "4*B*C"
// SYM: "unrolled_ops": null,
// BOUND: {"name": "B", "value": 8, "source": "bind"}
// BOUND: "mode": "write", "bytes": "4*B*C", "bytes_value": 1024,
// BOUND: "unrolled_ops": 2,
// RUN: %tidal graph %s -- %stubflags | FileCheck --check-prefix=TEXT %s
// TEXT: ops: 1 static (not unrolled: 'B' is unbound (use --bind B=VALUE))
