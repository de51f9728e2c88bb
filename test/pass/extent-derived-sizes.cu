// Note [derived sizes] (kernels_stmt.c): a local size computed from parameters
// whose sign is not decided - `H_out = H - F + 1` - is assumed >= 0 like
// the parameters, so `idx % W_out`, `oh * W_out` bound an index; the
// extent is over the parameters.  A guard `oh >= 0` makes `oh` >= 0.
// RUN: %tidal kernels %s -- %stubflags | FileCheck %s

__global__ void conv_fwd(const float *in, const float *w, float *out, int B, int H, int W, int F) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int H_out = H - F + 1;
  int W_out = W - F + 1;
  if (idx >= B * H_out * W_out) return;
  int ow = idx % W_out;
  int oh = (idx / W_out) % H_out;
  int b = idx / (W_out * H_out);
  float s = 0.0f;
  for (int fh = 0; fh < F; fh++)
    for (int fw = 0; fw < F; fw++) s += in[b * H * W + (oh + fh) * W + (ow + fw)] * w[fh * F + fw];
  out[b * H_out * W_out + oh * W_out + ow] = s;
}
// CHECK-LABEL: kernel conv_fwd
// CHECK-NEXT: param in: mode=read extent=B*H*W elem=float
// CHECK-NEXT: param w: mode=read extent=F*F elem=float
// CHECK-NEXT: param out: mode=write extent=B*H*W + B*H + B*W + B + B*F*F - B*H*F - 2*B*F - B*F*W elem=float

__global__ void conv_bwd_in(const float *g_out, float *g_in, int H, int W, int F) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * W) return;
  int w = idx % W, h = idx / W;
  int H_out = H - F + 1, W_out = W - F + 1;
  float s = 0.0f;
  for (int fh = 0; fh < F; fh++)
    for (int fw = 0; fw < F; fw++) {
      int oh = h - fh, ow = w - fw;
      if (oh >= 0 && oh < H_out && ow >= 0 && ow < W_out) s += g_out[oh * W_out + ow];
    }
  g_in[idx] = s;
}
// CHECK-LABEL: kernel conv_bwd_in
// CHECK-NEXT: param g_out: mode=read extent=min(H, H - F + 1)*W + {{.*}} elem=float

// A value provably <= 0 is not a size: the index may be negative.
__global__ void shifted(float *out, int C, int N) {
  int back = -C;
  int i = threadIdx.x;
  if (i < N) out[i + back] = 0.0f;
}
// CHECK-LABEL: kernel shifted
// CHECK-NEXT: param out: mode=write extent=unknown {{.*}}why="index may be negative"
