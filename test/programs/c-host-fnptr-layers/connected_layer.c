#include <stdlib.h>
#include "layer.h"
#include "kernels.h"

static void forward_connected_layer_gpu(layer l, network net) {
  gemm_nt_gpu(l.batch, l.outputs, l.inputs, net.input_gpu, l.weights_gpu, l.output_gpu);
  add_bias_gpu(l.output_gpu, l.biases_gpu, l.batch, l.outputs);
}

static void backward_connected_layer_gpu(layer l, network net) {
  backward_bias_gpu(l.bias_updates_gpu, l.delta_gpu, l.batch, l.outputs);
  gemm_tn_gpu(l.outputs, l.inputs, l.batch, l.delta_gpu, net.input_gpu, l.weight_updates_gpu);
  if (net.delta_gpu) gemm_nn_gpu(l.batch, l.inputs, l.outputs, l.delta_gpu, l.weights_gpu, net.delta_gpu);
}

static void update_connected_layer_gpu(layer l, float rate) {
  axpy_gpu(l.outputs, -rate / l.batch, l.bias_updates_gpu, l.biases_gpu);
  fill_gpu(l.outputs, 0, l.bias_updates_gpu);
  axpy_gpu(l.inputs * l.outputs, -rate / l.batch, l.weight_updates_gpu, l.weights_gpu);
  fill_gpu(l.inputs * l.outputs, 0, l.weight_updates_gpu);
}

layer make_connected_layer(int batch, int inputs, int outputs) {
  layer l = {0};
  float *w = malloc(inputs * outputs * sizeof(float)); /* C: no cast from void * */
  int i;
  l.type = CONNECTED;
  l.batch = batch;
  l.inputs = inputs;
  l.outputs = outputs;
  for (i = 0; i < inputs * outputs; ++i) w[i] = (rand() / (float)RAND_MAX - 0.5f) * 0.1f;
  l.weights_gpu = cuda_make_array(w, inputs * outputs);
  free(w);
  l.biases_gpu = cuda_make_array(0, outputs);
  l.weight_updates_gpu = cuda_make_array(0, inputs * outputs);
  l.bias_updates_gpu = cuda_make_array(0, outputs);
  l.output_gpu = cuda_make_array(0, batch * outputs);
  l.delta_gpu = cuda_make_array(0, batch * outputs);
  l.forward_gpu = forward_connected_layer_gpu;
  l.backward_gpu = backward_connected_layer_gpu;
  l.update_gpu = update_connected_layer_gpu;
  return l;
}
