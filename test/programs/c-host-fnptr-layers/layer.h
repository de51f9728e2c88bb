/* A C trainer's layer and network: layers carry their GPU entry points as
 * function pointers, set by each layer's constructor and called through
 * the struct by the network's forward, backward and update loops. */
#ifndef LAYER_H
#define LAYER_H

#include <stddef.h>

typedef enum { CONNECTED, ACTIVE, COST } LAYER_TYPE;

struct network;
typedef struct layer layer;

struct layer {
  LAYER_TYPE type;
  int batch, inputs, outputs;
  float *weights_gpu, *biases_gpu;
  float *weight_updates_gpu, *bias_updates_gpu;
  float *output_gpu, *delta_gpu;
  float *cost_gpu;
  void (*forward_gpu)(struct layer, struct network);
  void (*backward_gpu)(struct layer, struct network);
  void (*update_gpu)(struct layer, float rate);
};

typedef struct network {
  int n, batch, inputs;
  layer *layers;
  float *input_gpu, *truth_gpu, *delta_gpu;
  float rate;
} network;

network make_network(int n, int batch, int inputs);
layer make_connected_layer(int batch, int inputs, int outputs);
layer make_activation_layer(int batch, int inputs);
layer make_cost_layer(int batch, int inputs);
float train_network_gpu(network *net);

float *cuda_make_array(const float *x, size_t n);
void cuda_free(float *p);

#endif
