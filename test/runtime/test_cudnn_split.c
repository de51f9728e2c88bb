/* test_cudnn_split.c - a cuDNN call bigger than the budget runs over pieces
 * of its batch (include/tidal/cudnn.h, Note [batch split]).  Against a
 * host-side cuDNN stand-in (mock/cudnn.h) on the sim backend, whose device
 * memory the host can touch (a stale or evicted address faults):
 *   - pooling forward and backward over relocatable tensors whose working
 *     sets exceed the budget run in pieces of a power of two of samples,
 *     within the budget, and give the host reference's bytes exactly;
 *   - under a budget they fit in half of, they run as the one call;
 *   - a call whose tensors the pass did not all declare, or whose tensor is
 *     not packed along the batch, runs whole;
 *   - the narrowed descriptors are destroyed after each call. */
#include "testhelp.h"

#include <cudnn.h> /* mock/cudnn.h */

#include "tidal/cudnn.h"

enum { N = 64, C = 4, H = 32, W = 32 };
#define XE ((size_t)N * C * H * W)             /* elements of x and dx */
#define YE ((size_t)N * C * (H / 2) * (W / 2)) /* of y and dy */

static const float one = 1.0f, zero = 0.0f;
static tidal_site fwd_site = {"pool1 forward", "test_cudnn_split.c", 1, 0};
static tidal_site bwd_site = {"pool1 backward", "test_cudnn_split.c", 2, 0};
static tidal_site io_site = {"io", "test_cudnn_split.c", 3, 0};

static cudnnTensorDescriptor_t desc(int n, int c, int h, int w) {
  cudnnTensorDescriptor_t d;
  CHECK(cudnnCreateTensorDescriptor(&d) == CUDNN_STATUS_SUCCESS);
  CHECK(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, n, c, h, w, c * h * w, h * w, w, 1) ==
        CUDNN_STATUS_SUCCESS);
  return d;
}

static float *rmalloc(size_t elems) {
  void *p = NULL;
  CHECK_OK(tidal_malloc_grouped(&p, elems * sizeof(float), TIDAL_GROUP_RELOCATABLE));
  return (float *)p;
}

/* Host bytes into / out of a device tensor, in pieces that fit. */
static void put(float *dev, const float *host, size_t elems) {
  for (size_t o = 0; o < elems; o += 16384) {
    size_t l = elems - o < 16384 ? elems - o : 16384;
    tidal_access a = {dev + o, l * sizeof(float), TIDAL_WRITE};
    CHECK_OK(tidal_op_begin(&io_site, 1, &a));
    th_put(TIDAL_AT(dev + o), host + o, l * sizeof(float));
    CHECK_OK(tidal_op_end(&io_site));
  }
}
static void get(float *host, const float *dev, size_t elems) {
  for (size_t o = 0; o < elems; o += 16384) {
    size_t l = elems - o < 16384 ? elems - o : 16384;
    tidal_access a = {dev + o, l * sizeof(float), TIDAL_READ};
    CHECK_OK(tidal_op_begin(&io_site, 1, &a));
    th_get(host + o, TIDAL_AT(dev + o), l * sizeof(float));
    CHECK_OK(tidal_op_end(&io_site));
  }
}

typedef struct net {
  float *x, *y, *dy, *dx;
  cudnnTensorDescriptor_t xd, yd;
} net;

/* forward then backward through the wrappers, as the rewritten program
 * calls them: the pass's accesses, one per tensor in argument order */
static void step(net *t) {
  const tidal_access fa[2] = {{t->x, XE * 4, TIDAL_READ}, {t->y, YE * 4, TIDAL_WRITE}};
  CHECK(tidal_cudnnPoolingForward(&fwd_site, 2, fa, NULL, NULL, &one, t->xd, t->x, &zero, t->yd,
                                  t->y) == CUDNN_STATUS_SUCCESS);
  CHECK(th_stats().resident_bytes <= th_stats().budget_bytes);
  const tidal_access ba[4] = {{t->y, YE * 4, TIDAL_READ},
                              {t->dy, YE * 4, TIDAL_READ},
                              {t->x, XE * 4, TIDAL_READ},
                              {t->dx, XE * 4, TIDAL_WRITE}};
  CHECK(tidal_cudnnPoolingBackward(&bwd_site, 4, ba, NULL, NULL, &one, t->yd, t->y, t->yd, t->dy,
                                   t->xd, t->x, &zero, t->xd, t->dx) == CUDNN_STATUS_SUCCESS);
}

/* One run under `budget`: returns the calls the mock saw per step and
 * checks y and dx against the host reference. */
static int run(size_t budget, const float *hx, const float *hdy, const float *ry,
               const float *rdx, int *min_n) {
  tidal_config cfg;
  th_config(&cfg, 64 * 1024, budget);
  th_init(&cfg);
  net t = {rmalloc(XE), rmalloc(YE), rmalloc(YE), rmalloc(XE), desc(N, C, H, W),
           desc(N, C, H / 2, W / 2)};
  put(t.x, hx, XE);
  put(t.dy, hdy, YE);
  int calls = 0;
  for (int it = 0; it < 3; it++) {
    CHECK_OK(tidal_iteration_begin());
    mock_calls = 0;
    mock_min_n = 1 << 30;
    step(&t);
    calls = mock_calls;
    *min_n = mock_min_n;
    CHECK_OK(tidal_iteration_end());
  }
  CHECK(mock_live_descs == 2); /* the narrowed ones were destroyed */
  float *got = malloc(XE * sizeof(float));
  CHECK(got);
  get(got, t.y, YE);
  CHECK(memcmp(got, ry, YE * sizeof(float)) == 0);
  get(got, t.dx, XE);
  CHECK(memcmp(got, rdx, XE * sizeof(float)) == 0);
  CHECK(th_stats().total.peak_resident_bytes <= budget);
  free(got);
  cudnnDestroyTensorDescriptor(t.xd);
  cudnnDestroyTensorDescriptor(t.yd);
  CHECK_OK(tidal_free(t.x));
  CHECK_OK(tidal_free(t.y));
  CHECK_OK(tidal_free(t.dy));
  CHECK_OK(tidal_free(t.dx));
  CHECK_OK(tidal_shutdown());
  return calls;
}

/* A call the wrapper must not cut: it runs whole (one mock call). */
static void test_whole_when_unsure(void) {
  tidal_config cfg;
  th_config(&cfg, 64 * 1024, (size_t)1 << 30);
  th_init(&cfg);
  float *x = rmalloc(XE), *y = rmalloc(YE);
  cudnnTensorDescriptor_t xd = desc(N, C, H, W), yd = desc(N, C, H / 2, W / 2);
  /* x declared, y not: whole (and the undeclared y reaches cuDNN as it
   * was, through no tidal_at, as the plain rewrite passes it) */
  CHECK(tidal_split_batch(N, 1) == N);
  const tidal_access fa[1] = {{x, XE * 4, TIDAL_READ}};
  tidal_cudnn_batch_ b;
  const cudnnTensorDescriptor_t d[2] = {xd, yd};
  const void *const p[2] = {x, y};
  tidal_cudnn_batch_init_(&b, &fwd_site, 1, fa, 2, d, p);
  CHECK(!b.split && tidal_cudnn_batch_check_(&b) != NULL);
  tidal_cudnn_batch_fini_(&b);
  CHECK_OK(tidal_free(x));
  CHECK_OK(tidal_free(y));
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(yd);
  CHECK_OK(tidal_shutdown());
}

int main(int argc, char **argv) {
  th_seed_init(argc, argv);
  float *hx = malloc(XE * 4), *hdy = malloc(YE * 4), *ry = malloc(YE * 4), *rdx = malloc(XE * 4);
  CHECK(hx && hdy && ry && rdx);
  for (size_t i = 0; i < XE; i++) hx[i] = (float)th_below(2001) / 1000.0f - 1.0f;
  for (size_t i = 0; i < YE; i++) hdy[i] = (float)th_below(2001) / 1000.0f - 1.0f;
  /* the reference: the stand-in over host memory, whole */
  cudnnTensorDescriptor_t xd = desc(N, C, H, W), yd = desc(N, C, H / 2, W / 2);
  CHECK(cudnnPoolingForward(NULL, NULL, &one, xd, hx, &zero, yd, ry) == CUDNN_STATUS_SUCCESS);
  CHECK(cudnnPoolingBackward(NULL, NULL, &one, yd, ry, yd, hdy, xd, hx, &zero, xd, rdx) ==
        CUDNN_STATUS_SUCCESS);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(yd);
  CHECK(mock_live_descs == 0);

  /* 2.5 MiB of tensors (1 MiB x and dx, 256 KiB y and dy) under 2 MiB:
   * backward's 40 KiB a sample, a quarter budget holds 12, so pieces of 8
   * samples; forward's 1.25 MiB is over half the budget too (20 KiB a
   * sample: pieces of 16). */
  int min_n = 0;
  int calls = run((size_t)2 << 20, hx, hdy, ry, rdx, &min_n);
  CHECK(calls == N / 16 + N / 8 && min_n == 8);
  /* 8 MiB: both fit half of it, one call each, the whole batch */
  calls = run((size_t)8 << 20, hx, hdy, ry, rdx, &min_n);
  CHECK(calls == 2 && min_n == N);
  /* Without the split the backward call alone is over the budget. */
  CHECK(XE * 8 + YE * 8 > ((size_t)2 << 20));

  test_whole_when_unsure();
  free(hx), free(hdy), free(ry), free(rdx);
  printf("test_cudnn_split: ok\n");
  return 0;
}
