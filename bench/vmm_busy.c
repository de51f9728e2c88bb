/* vmm_busy.c - do the CUDA driver's VMM calls wait for the device?
 *
 * libtidal remaps 2 MiB chunks while the program's kernels run.  If
 * cuMemUnmap, cuMemMap or cuMemSetAccess waited for work already queued on
 * the device (an implicit synchronization), every remap would drain the GPU
 * and host and device would run in turn instead of side by side; the H100
 * trace of 2026-11-26 (docs/gpu-runs.md) is consistent with that.  This
 * program times each call on an idle device and while about BUSY_MS of
 * copies are queued on another stream touching other memory, and prints
 * both as comment lines, with the busy/idle verdict.
 *
 * GPU only; not built by default.  On the GPU machine:
 *     cc -O2 -std=c11 bench/vmm_busy.c -I/usr/local/cuda/include \
 *        -L/usr/local/cuda/lib64 -lcuda -o vmm_busy && ./vmm_busy
 * Exit status 77 when there is no device. */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "vmm_busy"
#include "cudrv_bench.h"

#define CHUNK ((size_t)2 << 20)
#define BIG ((size_t)1 << 30) /* the memory the busy work copies */
#define REPS 9

int main(void) {
  CUdevice dev;
  CUmemAllocationProp prop;
  if (bench_open(&dev, &prop) != 0)
    return 77;
  CUmemAccessDesc acc = {prop.location, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CUmemGenericAllocationHandle h;
  CK(cuMemCreate(&h, CHUNK, &prop, 0));
  CUdeviceptr va, a, b;
  CK(cuMemAddressReserve(&va, CHUNK, CHUNK, 0, 0));
  CK(cuMemAlloc(&a, BIG));
  CK(cuMemAlloc(&b, BIG));
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUevent e0, e1;
  CK(cuEventCreate(&e0, 0));
  CK(cuEventCreate(&e1, 0));
  /* how long one 1 GiB device-to-device copy takes */
  CK(cuEventRecord(e0, s));
  CK(cuMemcpyDtoDAsync(b, a, BIG, s));
  CK(cuEventRecord(e1, s));
  CK(cuEventSynchronize(e1));
  float one_ms = 0;
  CK(cuEventElapsedTime(&one_ms, e0, e1));
  int ncopies = one_ms > 0 ? (int)(20.0 / one_ms) + 1 : 20; /* about 20 ms queued */

  double t_idle[3][REPS], t_busy[3][REPS], left[REPS];
  for (int busy = 0; busy < 2; busy++)
    for (int k = 0; k < REPS; k++) {
      CK(cuCtxSynchronize());
      if (busy)
        for (int i = 0; i < ncopies; i++)
          CK(cuMemcpyDtoDAsync(b, a, BIG, s));
      double t0 = now();
      CK(cuMemMap(va, CHUNK, 0, h, 0));
      double t1 = now();
      CK(cuMemSetAccess(va, CHUNK, &acc, 1));
      double t2 = now();
      CK(cuMemUnmap(va, CHUNK));
      double t3 = now();
      double (*t)[REPS] = busy ? t_busy : t_idle;
      t[0][k] = t1 - t0, t[1][k] = t2 - t1, t[2][k] = t3 - t2;
      if (busy) /* was the queued work still running when the calls returned? */
        left[k] = cuStreamQuery(s) == CUDA_ERROR_NOT_READY;
    }
  CK(cuCtxSynchronize());
  char name[256];
  CK(cuDeviceGetName(name, sizeof name, dev));
  int still = 0;
  for (int k = 0; k < REPS; k++)
    still += left[k] > 0;
  static const char *what[3] = {"cuMemMap", "cuMemSetAccess", "cuMemUnmap"};
  printf("# vmm_busy: %s; busy = %d queued 1 GiB device copies (%.1f ms each) on another stream\n",
         name, ncopies, one_ms);
  for (int i = 0; i < 3; i++) {
    double idle = median(t_idle[i], REPS), busy = median(t_busy[i], REPS);
    printf("# %-15s idle %8.1f us   busy %8.1f us   %s\n", what[i], idle * 1e6, busy * 1e6,
           busy > idle + 1e-3 ? "WAITS for queued device work" : "does not wait");
  }
  printf("# queued work still running after the three calls: %d of %d times\n", still, REPS);
  return 0;
}
