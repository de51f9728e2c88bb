// An AdamW update shaped like gpt2's (idx = blockIdx.x*blockDim.x +
// threadIdx.x; if (idx >= N) return; then params/grads/m/v touched only at
// [idx], powf on a scalar parameter) is elementwise over N: it may run as
// launches over sub-ranges (split.c, Note [elementwise split]).  Its launch
// from a wrapper, every pointer a tensor and the grid CEIL_DIV(n, thr),
// is a split op over argument 4 with each access's element size.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s
// RUN: %tidal kernels %s --format json -- %stubflags | FileCheck %s --check-prefix=JSON
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s --check-prefix=GRAPH
// RUN: %tidal graph %s -- %stubflags | FileCheck %s --check-prefix=TEXT
// --no-split: the same launch runs whole.
// RUN: %tidal graph %s --no-split --format json -- %stubflags | FileCheck %s --check-prefix=NOSPLIT
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void adamw_kernel(float *params, const float *grads, float *m, float *v, int N,
                             float lr, float beta1, float beta2, float eps, float wd, int t) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N) return;
  float param = params[idx];
  float grad = grads[idx];
  float m_val = beta1 * m[idx] + (1.0f - beta1) * grad;
  float v_val = beta2 * v[idx] + (1.0f - beta2) * grad * grad;
  float m_hat = m_val / (1.0f - powf(beta1, t));
  float v_hat = v_val / (1.0f - powf(beta2, t));
  m[idx] = m_val;
  v[idx] = v_val;
  params[idx] = param - lr * (m_hat / (sqrtf(v_hat) + eps) + wd * param);
}
// CHECK-LABEL: kernel adamw_kernel
// CHECK: flags: inplace
// CHECK-NEXT: split: count=N{{$}}
// JSON: "name": "adamw_kernel", {{.*}}"split": {"count": "N", "grid_stride": false},

typedef struct Model { float *params_memory; size_t num_parameters; } Model;
typedef struct Opt { float *m_memory, *v_memory; int t; } Opt;

void gpt2_update(Model *model, float *grads, Opt *opt) {
  opt->t++;
  int thr = 256;
  int num_blocks = CEIL_DIV(model->num_parameters, thr);
  adamw_kernel<<<num_blocks, thr>>>(model->params_memory, grads, opt->m_memory, opt->v_memory,
                                    model->num_parameters, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f,
                                    opt->t);
}

int main() {
  Model model;
  Opt opt;
  float *grads;
  model.num_parameters = 1 << 20;
  cudaMalloc((void **)&model.params_memory, model.num_parameters * sizeof(float));
  cudaMalloc((void **)&grads, model.num_parameters * sizeof(float));
  cudaMalloc((void **)&opt.m_memory, model.num_parameters * sizeof(float));
  cudaMalloc((void **)&opt.v_memory, model.num_parameters * sizeof(float));
  opt.t = 0;
#pragma tidal train
  for (int step = 0; step < 3; step++) gpt2_update(&model, grads, &opt);
  return 0;
}
// GRAPH: "kernels": [
// GRAPH-NEXT: {"name": "adamw_kernel", {{.*}}"split": {"count": "N", "grid_stride": false}}
// GRAPH: "callee": "adamw_kernel", "label": "gpt2_update -> adamw_kernel"
// GRAPH-SAME: "grid": "num_blocks", "block": "thr", "shmem": null, "stream": null, "split": {"count_arg": 4, "count": "model.num_parameters", "count_value": 1048576, "grid_stride": false}
// GRAPH: "accesses": [
// GRAPH-NEXT: "mode": "readwrite", "bytes": "4*model.num_parameters", "bytes_value": 4194304, {{.*}}"split_elem_bytes": 4, "arg": 0, "param": "params"}
// GRAPH-NEXT: "mode": "read", "bytes": "4*model.num_parameters", {{.*}}"split_elem_bytes": 4, "arg": 1, "param": "grads"}
// GRAPH-NEXT: "mode": "readwrite", {{.*}}"split_elem_bytes": 4, "arg": 2, "param": "m"}
// GRAPH-NEXT: "mode": "readwrite", {{.*}}"split_elem_bytes": 4, "arg": 3, "param": "v"}]}
// TEXT: gpt2_update -> adamw_kernel {{.*}} split over model->num_parameters
// NOSPLIT: "callee": "adamw_kernel", {{.*}}"stream": null, "split": null,
// NOSPLIT-NOT: split_elem_bytes
