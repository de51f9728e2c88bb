// The JSON output is versioned and names the loop, its reason and the
// rewriter's offsets (training loop statement/body, allocation calls).
// RUN: %tidal graph %s --format json -o %t.json -- %stubflags
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['version']==1; assert d['loop']['line']==15; assert d['allocations'][0]['call']['editable']; assert d['ops'][0]['accesses'][0]['bytes_value']==4*100; print('ok', len(d['ops']))" %t.json | FileCheck %s

__global__ void k(float *p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = 1.f;
}

int main() {
  float *p;
  cudaMalloc((void **)&p, 100 * sizeof(float));
#pragma tidal train
  for (int s = 0; s < 2; s++)
    k<<<1, 128>>>(p, 100);
  cudaFree(p);
  return 0;
}
// CHECK: ok 1
