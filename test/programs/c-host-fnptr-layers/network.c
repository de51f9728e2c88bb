#include <stdlib.h>
#include <cuda_runtime.h>
#include "layer.h"

network make_network(int n, int batch, int inputs) {
  network net = {0};
  net.n = n;
  net.batch = batch;
  net.inputs = inputs;
  net.layers = calloc(n, sizeof(layer)); /* C: no cast from void * */
  return net;
}

static void forward_network_gpu(network net) {
  int i;
  for (i = 0; i < net.n; ++i) {
    layer l = net.layers[i];
    l.forward_gpu(l, net);
    net.input_gpu = l.output_gpu;
  }
}

static void backward_network_gpu(network net) {
  int i;
  float *original_input = net.input_gpu;
  for (i = net.n - 1; i >= 0; --i) {
    layer l = net.layers[i];
    if (i == 0) {
      net.input_gpu = original_input;
      net.delta_gpu = 0;
    } else {
      layer prev = net.layers[i - 1];
      net.input_gpu = prev.output_gpu;
      net.delta_gpu = prev.delta_gpu;
    }
    l.backward_gpu(l, net);
  }
}

static void update_network_gpu(network net) {
  int i;
  for (i = 0; i < net.n; ++i) {
    layer l = net.layers[i];
    if (l.update_gpu) l.update_gpu(l, net.rate);
  }
}

/* One step; returns the summed squared error of the batch. */
float train_network_gpu(network *net) {
  layer out = net->layers[net->n - 1];
  int n = out.batch * out.outputs, i;
  float *cost = malloc(n * sizeof(float)), sum = 0;
  forward_network_gpu(*net);
  backward_network_gpu(*net);
  update_network_gpu(*net);
  cudaMemcpy(cost, out.output_gpu, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (i = 0; i < n; ++i) sum += cost[i];
  free(cost);
  return sum;
}
