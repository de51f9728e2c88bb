#pragma once
#include <vector>
#include "blob.h"
// Layers in a vector of base pointers, defined in layer.cu.
struct Layer {
  virtual ~Layer() {}
  virtual void forward(Blob<float> &x, Blob<float> &y) = 0;
};
Layer *make_scale(float a);
Layer *make_relu();
