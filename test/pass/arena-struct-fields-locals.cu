// Arena pointers stored in struct fields by a setup function, the struct
// copied into a local and a field copied into a local inside the layer
// loop: all resolve to the carved regions, named by their fields.
// RUN: %tidal graph %s --format json -- %stubflags | FileCheck %s

static const int N = 128;
static const int L = 2;

typedef struct Acts { float *ln; float *fc; } Acts;
typedef struct Model { Acts acts; float *mem; } Model;

__global__ void k(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

static void point_acts(Acts *a, float *memory) {
  a->ln = memory;
  a->fc = a->ln + L * N;
}

static void build(Model *m) {
  cudaMalloc((void **)&m->mem, 2 * L * N * sizeof(float));
  point_acts(&m->acts, m->mem);
}

static void forward(Model *model) {
  Acts acts = model->acts;
  for (int l = 0; l < L; l++) {
    float *l_ln = acts.ln + l * N;
    float *l_fc = acts.fc + l * N;
    k<<<1, N>>>(l_fc, l_ln, N);
  }
}

int main() {
  Model model;
  build(&model);
  for (int step = 0; step < 3; step++) forward(&model);
  return 0;
}

// CHECK: "allocations": [
// CHECK-NEXT: {"id": 0, "name": "model.mem", "bytes": "8*L*N", "bytes_value": 2048
// CHECK: "regions": [
// CHECK-NEXT: "name": "model.acts.ln", "allocation": 0, "offset": "0", {{.*}}"bytes": "4*L*N"
// CHECK-NEXT: "name": "model.acts.fc", "allocation": 0, "offset": "4*L*N", {{.*}}"bytes": "4*L*N"
// CHECK: "label": "forward -> k"
// CHECK: "mode": "write", "bytes": "4*N", {{.*}}"offset": "4*L*N + 4*l*N", {{.*}}"pointer": "model.acts.fc + l*N", "pointer_valid_in_loop": false, "pointer_local": "l_fc"
// CHECK: "mode": "read", {{.*}}"pointer": "model.acts.ln + l*N"
// CHECK: "tensors": [
// CHECK-NEXT: "name": "model.acts.fc[l]"
// CHECK-NEXT: "name": "model.acts.ln[l]"
