/* A C trainer in the shape of C frameworks of the darknet family: host code
 * in .c files compiled by the C compiler, kernels and their launchers in
 * .cu files (extern "C"), layers called through function pointers their
 * constructors store in the layer struct. */
#include <stdio.h>
#include <stdlib.h>
#include "layer.h"

#define BATCH 64
#define INPUTS 784
#define HIDDEN 256
#define OUTPUTS 10
#define STEPS 20

int main(void) {
  network net = make_network(4, BATCH, INPUTS);
  float *x = malloc(BATCH * INPUTS * sizeof(float));
  float *y = calloc(BATCH * OUTPUTS, sizeof(float));
  int i;
  for (i = 0; i < BATCH * INPUTS; ++i) x[i] = (float)(i % 7) / 7.0f;
  for (i = 0; i < BATCH; ++i) y[i * OUTPUTS + i % OUTPUTS] = 1.0f;
  net.layers[0] = make_connected_layer(BATCH, INPUTS, HIDDEN);
  net.layers[1] = make_activation_layer(BATCH, HIDDEN);
  net.layers[2] = make_connected_layer(BATCH, HIDDEN, OUTPUTS);
  net.layers[3] = make_cost_layer(BATCH, OUTPUTS);
  net.input_gpu = cuda_make_array(x, BATCH * INPUTS);
  net.truth_gpu = cuda_make_array(y, BATCH * OUTPUTS);
  net.rate = 0.01f;
  for (i = 0; i < STEPS; ++i) {
    float loss = train_network_gpu(&net);
    printf("step %d loss %f\n", i, loss);
  }
  free(x);
  free(y);
  return 0;
}
