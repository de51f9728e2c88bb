#include "include/layer.h"
int main() {
  std::vector<Layer *> layers;
  layers.push_back(make_scale(2.f));
  layers.push_back(make_relu());
  layers.push_back(make_scale(0.5f));
  layers.push_back(make_relu());
  std::vector<Blob<float> *> acts;
  for (int i = 0; i < 5; i++) acts.push_back(new Blob<float>(4096));
  for (int step = 0; step < 10; step++)
    for (size_t l = 0; l < layers.size(); l++) layers[l]->forward(*acts[l], *acts[l + 1]);
  return 0;
}
