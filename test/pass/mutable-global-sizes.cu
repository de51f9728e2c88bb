// Sizes in mutable globals, C style (written.c, Note [mutable globals]):
// vocab_size starts at 0 and is counted while the vocabulary is read, so
// it is a run-time size - never its initialiser (0 would make zero-byte
// allocations); layer1_size is never written, so it is its initialiser
// (bound, no --bind needed); the code length is read from a host array at
// run time.  graph, replay and rewrite name every unbound size in one
// message (graph_unbound_message, from main), and
// --bind accepts each name as given, subscript included; the rewrite
// writes the sizes as the program computes them.  Before: one unbound name
// per run (layer1_size too), and "--bind 'vocab_codelen[vocab_size - 1]=40':
// NAME must be an identifier or a member path".
// RUN: %tidal graph %s -- %stubflags 2>&1 | FileCheck --check-prefix=GRAPH %s
// RUN: not %tidal replay %s --budget 50%% -- %stubflags 2>&1 | FileCheck --check-prefix=UNBOUND %s
// RUN: %tidal replay %s --budget 50%% --bind vocab_size=3000 --bind 'vocab_codelen[vocab_size - 1]=40' --format json -- %stubflags 2>/dev/null | FileCheck --check-prefix=REPLAY %s
// RUN: %tidal rewrite %s -o %t.cu -- %stubflags 2>&1 | FileCheck --check-prefix=REWRITE %s
// RUN: grep -v "^// " %t.cu | FileCheck --check-prefix=SITES %s
// GRAPH: bindings: layer1_size=100*
// GRAPH: not unrolled: 'vocab_size' and 'vocab_codelen[vocab_size - 1]' are unbound (use --bind vocab_size=VALUE --bind vocab_codelen[vocab_size - 1]=VALUE)
// UNBOUND: error: cannot unroll the training loop: the allocation size uses 'vocab_size'; 'vocab_size' and 'vocab_codelen[vocab_size - 1]' are unbound (use --bind vocab_size=VALUE --bind vocab_codelen[vocab_size - 1]=VALUE)
// REPLAY: "checksums_match": true,
// REPLAY: "budget_respected": true,
// REPLAY: "ok": true
// REWRITE: no plan: 'vocab_size' and 'vocab_codelen[vocab_size - 1]' are unbound (use --bind vocab_size=VALUE --bind vocab_codelen[vocab_size - 1]=VALUE)
// SITES: tidal_malloc_grouped((void **)((void **)&d_syn0), vocab_size * layer1_size * sizeof(float), TIDAL_GROUP_RELOCATABLE)
// SITES: tidal_malloc_grouped((void **)((void **)&d_code), vocab_codelen[vocab_size - 1] * sizeof(float), TIDAL_GROUP_RELOCATABLE)
#include <stdio.h>
#include <stdlib.h>
long long vocab_size = 0, layer1_size = 100;
int *vocab_codelen;
float *d_syn0, *d_syn1, *d_neu1, *d_code;
__global__ void scale(float *y, const float *x, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.5f * x[i];
}
static void add_word(void) { vocab_size++; }
static void read_vocab(FILE *f) {
  char w[64];
  while (fscanf(f, "%63s", w) == 1) add_word();
  vocab_codelen = (int *)calloc(vocab_size, sizeof(int));
  for (long long a = 0; a < vocab_size; a++) vocab_codelen[a] = 1 + (int)(a % 40);
}
int main(int argc, char **argv) {
  FILE *f = fopen(argc > 1 ? argv[1] : "vocab.txt", "r");
  if (!f) return 1;
  read_vocab(f);
  cudaMalloc((void **)&d_syn0, vocab_size * layer1_size * sizeof(float));
  cudaMalloc((void **)&d_syn1, vocab_size * layer1_size * sizeof(float));
  cudaMalloc((void **)&d_neu1, vocab_size * layer1_size * sizeof(float));
  cudaMalloc((void **)&d_code, vocab_codelen[vocab_size - 1] * sizeof(float));
  for (int it = 0; it < 5; it++) {
    scale<<<(vocab_size * layer1_size + 255) / 256, 256>>>(d_syn1, d_syn0, vocab_size * layer1_size);
    scale<<<(vocab_size * layer1_size + 255) / 256, 256>>>(d_neu1, d_syn1, vocab_size * layer1_size);
    scale<<<1, 64>>>(d_code, d_code, vocab_codelen[vocab_size - 1]);
  }
  return 0;
}
