/* vmm_costs.c - measures, on a CUDA device, the per-call costs the sim
 * backend's cost model charges (runtime/device/sim_costs.txt), and prints them in
 * that file's format: `tidal replay --costs FILE` and TIDAL_SIM_COSTS=FILE
 * read it.
 *
 * GPU only; not built by default (no device in CI).  Build and run on the
 * GPU machine (docs/gpu-runs.md):
 *     cc -O2 -std=c11 bench/vmm_costs.c -I/usr/local/cuda/include \
 *        -L/usr/local/cuda/lib64 -lcuda -o vmm_costs && ./vmm_costs > h100.costs
 * Each figure is the median of many calls (host wall time, CLOCK_MONOTONIC),
 * on 2 MiB chunks (the CUDA backend's), the way libtidal makes the calls.
 * The lines at the end add map, set-access and unmap of ONE physical
 * handle of 8 MiB and of 32 MiB (a comment line each, and the keys
 * map_8m_s, set_access_8m_s, ... the sim reads for chunks of those sizes),
 * and set-access of 2 MiB of the 32 MiB handle: whether set-access costs
 * per handle, per 2 MiB page or per byte decides whether larger chunks
 * would pay (docs/gpu-runs.md says what to compare).
 * Exit status 77 when there is no device. */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "vmm_costs"
#include "cudrv_bench.h"

#define N 200          /* samples per figure */
#define CHUNK ((size_t)2 << 20)
#define RUN 8          /* chunks in a run for set-access */

#define NBIG 50 /* samples per large-handle figure */


static void one_handle(const CUmemAllocationProp *prop, const CUmemAccessDesc *acc,
                       size_t bytes);

int main(void) {
  CUdevice dev;
  CUmemAllocationProp prop;
  if (bench_open(&dev, &prop) != 0)
    return 77;
  char name[256];
  CK(cuDeviceGetName(name, sizeof name, dev));
  int drv = 0;
  CK(cuDriverGetVersion(&drv));

  CUmemAccessDesc acc = {prop.location, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CUmemGenericAllocationHandle h[RUN];
  for (int i = 0; i < RUN; i++)
    CK(cuMemCreate(&h[i], CHUNK, &prop, 0));
  CUdeviceptr va;
  CK(cuMemAddressReserve(&va, RUN * CHUNK, CHUNK, 0, 0));
  CUstream s, copy;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&copy, CU_STREAM_NON_BLOCKING));
  CUevent ev, ev2;
  CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
  CK(cuEventCreate(&ev2, CU_EVENT_DISABLE_TIMING));

  double map[N], access1[N], accessrun[N], unmap[N], rec[N], query[N], sync[N], wait[N];
  double launch[N], issue[N], lat[N];
  for (int k = 0; k < N; k++) {
    double t0 = now();
    CK(cuMemMap(va, CHUNK, 0, h[0], 0));
    double t1 = now();
    CK(cuMemSetAccess(va, CHUNK, &acc, 1));
    double t2 = now();
    CK(cuMemUnmap(va, CHUNK));
    double t3 = now();
    map[k] = t1 - t0, access1[k] = t2 - t1, unmap[k] = t3 - t2;
    for (int i = 0; i < RUN; i++)
      CK(cuMemMap(va + i * CHUNK, CHUNK, 0, h[i], 0));
    t0 = now();
    CK(cuMemSetAccess(va, RUN * CHUNK, &acc, 1)); /* one call per run (libtidal) */
    accessrun[k] = now() - t0;
    for (int i = 0; i < RUN; i++)
      CK(cuMemUnmap(va + i * CHUNK, CHUNK));
  }
  /* the device memory used below */
  for (int i = 0; i < RUN; i++)
    CK(cuMemMap(va + i * CHUNK, CHUNK, 0, h[i], 0));
  CK(cuMemSetAccess(va, RUN * CHUNK, &acc, 1));
  void *host;
  size_t pin_bytes = (size_t)256 << 20;
  double t0 = now();
  CK(cuMemHostAlloc(&host, pin_bytes, CU_MEMHOSTALLOC_PORTABLE));
  double pin_s = now() - t0;
  for (int k = 0; k < N; k++) {
    double a = now();
    CK(cuEventRecord(ev, s));
    double b = now();
    (void)cuEventQuery(ev); /* a poll: done or not, the cost is the same */
    double c = now();
    CK(cuStreamWaitEvent(copy, ev, 0));
    double d = now();
    rec[k] = b - a, query[k] = c - b, wait[k] = d - c;
    /* a small async op: what a launch costs the host (cuMemsetD8Async) */
    a = now();
    CK(cuMemsetD8Async(va, 0, 256, s));
    launch[k] = now() - a;
    /* a copy's issue, then its end-to-end latency (4 KiB) and the host's
     * wake-up from a blocking wait */
    CK(cuStreamSynchronize(s));
    a = now();
    CK(cuMemcpyHtoDAsync(va, host, 4096, copy));
    b = now();
    CK(cuEventRecord(ev2, copy));
    CK(cuEventSynchronize(ev2));
    c = now();
    issue[k] = b - a, lat[k] = c - a;
    /* sync: a wait on an event already done */
    a = now();
    CK(cuEventSynchronize(ev2));
    sync[k] = now() - a;
  }
  /* bandwidth: 16 MiB pinned each way, a few times */
  double h2d[8], d2h[8];
  size_t bw_bytes = RUN * CHUNK;
  for (int k = 0; k < 8; k++) {
    double a = now();
    CK(cuMemcpyHtoDAsync(va, host, bw_bytes, copy));
    CK(cuStreamSynchronize(copy));
    h2d[k] = (double)bw_bytes / (now() - a);
    a = now();
    CK(cuMemcpyDtoHAsync(host, va, bw_bytes, copy));
    CK(cuStreamSynchronize(copy));
    d2h[k] = (double)bw_bytes / (now() - a);
  }
  printf("# vmm_costs: measured on %s (driver %d.%d), %s\n", name, drv / 1000, (drv % 1000) / 10,
         "medians of host wall time per call; 2 MiB chunks");
  printf("# set_access of one chunk: %.3gu; of a run of %d chunks: %.3gu (one call per run; the\n"
         "# cost grows with the chunks a run covers, so set_access_s is per chunk)\n",
         median(access1, N) * 1e6, RUN, median(accessrun, N) * 1e6);
  printf("map_s           %.3gu\n", median(map, N) * 1e6);
  printf("set_access_s    %.3gu   # per 2 MiB chunk of the range\n",
         median(accessrun, N) / RUN * 1e6);
  printf("unmap_s         %.3gu\n", median(unmap, N) * 1e6);
  printf("event_record_s  %.3gu\n", median(rec, N) * 1e6);
  printf("event_query_s   %.3gu\n", median(query, N) * 1e6);
  printf("event_sync_s    %.3gu\n", median(sync, N) * 1e6);
  printf("stream_wait_s   %.3gu\n", median(wait, N) * 1e6);
  printf("launch_s        %.3gu   # cuMemsetD8Async as the launch proxy\n", median(launch, N) * 1e6);
  printf("copy_issue_s    %.3gu\n", median(issue, N) * 1e6);
  printf("copy_latency_s  %.3gu   # a 4 KiB copy, issue to completion seen by the host\n",
         median(lat, N) * 1e6);
  printf("h2d_bytes_per_s %.3gG\n", median(h2d, 8) / 1e9);
  printf("d2h_bytes_per_s %.3gG\n", median(d2h, 8) / 1e9);
  printf("pin_bytes_per_s %.3gG   # cuMemHostAlloc of %zu MiB\n", (double)pin_bytes / pin_s / 1e9,
         pin_bytes >> 20);
  /* One large handle (issue 10: is set-access per handle, per 2 MiB page
   * or per byte?).  Last, and never fatal: the lines above are the cost
   * file gpu_overhead.sh needs. */
  fflush(stdout);
  one_handle(&prop, &acc, 4 * CHUNK);
  one_handle(&prop, &acc, 16 * CHUNK);
  cuMemFreeHost(host);
  for (int i = 0; i < RUN; i++)
    cuMemUnmap(va + i * CHUNK, CHUNK);
  cuMemAddressFree(va, RUN * CHUNK);
  for (int i = 0; i < RUN; i++)
    cuMemRelease(h[i]);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}

/* Prints one comment line: map, set-access (all of it, then only its
 * first 2 MiB) and unmap of one physical handle of `bytes`, medians; or
 * which call failed. */
static void one_handle(const CUmemAllocationProp *prop, const CUmemAccessDesc *acc,
                       size_t bytes) {
  CUmemGenericAllocationHandle h;
  CUdeviceptr va;
  const char *what = "cuMemCreate";
  CUresult r = cuMemCreate(&h, bytes, prop, 0);
  if (r != CUDA_SUCCESS)
    goto fail;
  what = "cuMemAddressReserve";
  if ((r = cuMemAddressReserve(&va, bytes, CHUNK, 0, 0)) != CUDA_SUCCESS) {
    cuMemRelease(h);
    goto fail;
  }
  double map[NBIG], access[NBIG], first[NBIG], unmap[NBIG];
  int first_ok = 1;
  CUresult first_err = CUDA_SUCCESS;
  for (int k = 0; k < NBIG && r == CUDA_SUCCESS; k++) {
    double t0 = now();
    what = "cuMemMap";
    if ((r = cuMemMap(va, bytes, 0, h, 0)) != CUDA_SUCCESS)
      break;
    double t1 = now();
    what = "cuMemSetAccess";
    r = cuMemSetAccess(va, bytes, acc, 1);
    double t2 = now();
    CUresult u = cuMemUnmap(va, bytes);
    double t3 = now();
    if (r == CUDA_SUCCESS && u != CUDA_SUCCESS)
      what = "cuMemUnmap", r = u;
    if (r != CUDA_SUCCESS)
      break;
    map[k] = t1 - t0, access[k] = t2 - t1, unmap[k] = t3 - t2;
    /* the first 2 MiB only: a per-handle cost costs this much too; the
     * driver may also refuse a range that splits a handle (reported) */
    if (first_ok && (r = cuMemMap(va, bytes, 0, h, 0)) == CUDA_SUCCESS) {
      t0 = now();
      CUresult a = cuMemSetAccess(va, CHUNK, acc, 1);
      first[k] = now() - t0;
      if (a != CUDA_SUCCESS)
        first_ok = 0, first_err = a;
      r = cuMemUnmap(va, bytes);
      what = "cuMemUnmap";
    }
  }
  cuMemAddressFree(va, bytes);
  cuMemRelease(h);
  if (r != CUDA_SUCCESS)
    goto fail;
  printf("# one %zu MiB handle: map %.3gu, set_access %.3gu, unmap %.3gu; ", bytes >> 20,
         median(map, NBIG) * 1e6, median(access, NBIG) * 1e6, median(unmap, NBIG) * 1e6);
  if (first_ok)
    printf("set_access of its first 2 MiB %.3gu\n", median(first, NBIG) * 1e6);
  else
    printf("set_access of its first 2 MiB refused (CUresult %d)\n", (int)first_err);
  /* the same as keys: the sim charges a chunk of this size what one handle
   * costs (Note [vmm calls in situ], runtime/backend_sim.c) */
  printf("map_%zum_s %.3gu\nset_access_%zum_s %.3gu\nunmap_%zum_s %.3gu\n", bytes >> 20,
         median(map, NBIG) * 1e6, bytes >> 20, median(access, NBIG) * 1e6, bytes >> 20,
         median(unmap, NBIG) * 1e6);
  return;
fail:
  printf("# one %zu MiB handle: %s failed (CUresult %d)\n", bytes >> 20, what, (int)r);
}
