#include "layer.h"
#include "kernels.h"

static void forward_cost_layer_gpu(layer l, network net) {
  l2_gpu(l.batch * l.inputs, net.input_gpu, net.truth_gpu, l.delta_gpu, l.output_gpu);
}

static void backward_cost_layer_gpu(layer l, network net) {
  fill_gpu(l.batch * l.inputs, 0, net.delta_gpu);
  axpy_gpu(l.batch * l.inputs, 1, l.delta_gpu, net.delta_gpu);
}

layer make_cost_layer(int batch, int inputs) {
  layer l = {0};
  l.type = COST;
  l.batch = batch;
  l.inputs = inputs;
  l.outputs = inputs;
  l.output_gpu = cuda_make_array(0, batch * inputs); /* per-element cost */
  l.delta_gpu = cuda_make_array(0, batch * inputs);
  l.forward_gpu = forward_cost_layer_gpu;
  l.backward_gpu = backward_cost_layer_gpu;
  return l;
}
