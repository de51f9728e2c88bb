#include "layer.h"
#include "kernels.h"

static void forward_activation_layer_gpu(layer l, network net) {
  relu_gpu(l.batch * l.outputs, net.input_gpu, l.output_gpu);
}

static void backward_activation_layer_gpu(layer l, network net) {
  if (net.delta_gpu) relu_gradient_gpu(l.batch * l.outputs, net.input_gpu, l.delta_gpu, net.delta_gpu);
}

layer make_activation_layer(int batch, int inputs) {
  layer l = {0};
  l.type = ACTIVE;
  l.batch = batch;
  l.inputs = inputs;
  l.outputs = inputs;
  l.output_gpu = cuda_make_array(0, batch * inputs);
  l.delta_gpu = cuda_make_array(0, batch * inputs);
  l.forward_gpu = forward_activation_layer_gpu;
  l.backward_gpu = backward_activation_layer_gpu;
  return l; /* no parameters: update_gpu stays NULL */
}
