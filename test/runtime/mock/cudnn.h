/* mock/cudnn.h - a host-side stand-in for the parts of cuDNN that
 * include/tidal/cudnn.h calls, for test_cudnn_split.c on the sim backend
 * (whose device memory the host can touch: a stale or evicted address is
 * PROT_NONE and faults).  Tensor descriptors are real (4-d, strided, float
 * or double); pooling is a 2x2 max pool with stride 2 over float tensors;
 * activation is ReLU; softmax is over the channels of each (n, h, w).  Each
 * routine records the batch size it was called with, so the test sees the
 * pieces.  Not cuDNN: only what the wrapper relies on. */
#ifndef MOCK_CUDNN_H
#define MOCK_CUDNN_H

#include <stddef.h>
#include <stdlib.h>

typedef enum {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_BAD_PARAM = 3,
  CUDNN_STATUS_NOT_SUPPORTED = 9
} cudnnStatus_t;
typedef enum { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1 } cudnnDataType_t;
typedef enum { CUDNN_SOFTMAX_ACCURATE = 1 } cudnnSoftmaxAlgorithm_t;
typedef enum { CUDNN_SOFTMAX_MODE_CHANNEL = 1 } cudnnSoftmaxMode_t;

typedef struct mock_tensor {
  cudnnDataType_t type;
  int n, c, h, w, ns, cs, hs, ws, set;
} mock_tensor;
typedef mock_tensor *cudnnTensorDescriptor_t;
typedef struct mock_handle *cudnnHandle_t;
typedef struct mock_pool *cudnnPoolingDescriptor_t;
typedef struct mock_act *cudnnActivationDescriptor_t;

/* What the test reads: calls per routine and the batch of the last one. */
static int mock_calls, mock_last_n, mock_min_n = 1 << 30, mock_live_descs;

static inline cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) {
  *d = (mock_tensor *)calloc(1, sizeof(mock_tensor));
  if (!*d) return CUDNN_STATUS_BAD_PARAM;
  mock_live_descs++;
  return CUDNN_STATUS_SUCCESS;
}
static inline cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) {
  free(d);
  mock_live_descs--;
  return CUDNN_STATUS_SUCCESS;
}
static inline cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t d,
                                                         cudnnDataType_t t, int n, int c, int h,
                                                         int w, int ns, int cs, int hs, int ws) {
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0 || ns <= 0 || cs <= 0 || hs <= 0 || ws <= 0)
    return CUDNN_STATUS_BAD_PARAM;
  *d = (mock_tensor){t, n, c, h, w, ns, cs, hs, ws, 1};
  return CUDNN_STATUS_SUCCESS;
}
static inline cudnnStatus_t cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t d,
                                                       cudnnDataType_t *t, int *n, int *c, int *h,
                                                       int *w, int *ns, int *cs, int *hs,
                                                       int *ws) {
  if (!d->set) return CUDNN_STATUS_BAD_PARAM;
  *t = d->type, *n = d->n, *c = d->c, *h = d->h, *w = d->w;
  *ns = d->ns, *cs = d->cs, *hs = d->hs, *ws = d->ws;
  return CUDNN_STATUS_SUCCESS;
}
/* As cuDNN: the extent to the last element. */
static inline cudnnStatus_t cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t d, size_t *s) {
  if (!d->set) return CUDNN_STATUS_BAD_PARAM;
  size_t last = (size_t)(d->n - 1) * d->ns + (size_t)(d->c - 1) * d->cs +
                (size_t)(d->h - 1) * d->hs + (size_t)(d->w - 1) * d->ws + 1;
  *s = last * (d->type == CUDNN_DATA_DOUBLE ? 8 : 4);
  return CUDNN_STATUS_SUCCESS;
}

static inline size_t mock_at(const mock_tensor *d, int n, int c, int h, int w) {
  return (size_t)n * d->ns + (size_t)c * d->cs + (size_t)h * d->hs + (size_t)w * d->ws;
}
static inline void mock_called(int n) {
  mock_calls++;
  mock_last_n = n;
  if (n < mock_min_n) mock_min_n = n;
}

static inline cudnnStatus_t cudnnPoolingForward(cudnnHandle_t hd, const cudnnPoolingDescriptor_t pd,
                                                const void *alpha, const cudnnTensorDescriptor_t xd,
                                                const void *x, const void *beta,
                                                const cudnnTensorDescriptor_t yd, void *y) {
  (void)hd, (void)pd;
  if (xd->n != yd->n || yd->h * 2 != xd->h || yd->w * 2 != xd->w) return CUDNN_STATUS_BAD_PARAM;
  mock_called(xd->n);
  const float a = *(const float *)alpha, b = *(const float *)beta, *X = (const float *)x;
  float *Y = (float *)y;
  for (int n = 0; n < yd->n; n++)
    for (int c = 0; c < yd->c; c++)
      for (int i = 0; i < yd->h; i++)
        for (int j = 0; j < yd->w; j++) {
          float m = X[mock_at(xd, n, c, 2 * i, 2 * j)];
          for (int k = 1; k < 4; k++) {
            float v = X[mock_at(xd, n, c, 2 * i + k / 2, 2 * j + k % 2)];
            if (v > m) m = v;
          }
          float *o = &Y[mock_at(yd, n, c, i, j)];
          *o = a * m + (b != 0 ? b * *o : 0.0f);
        }
  return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t cudnnPoolingBackward(
    cudnnHandle_t hd, const cudnnPoolingDescriptor_t pd, const void *alpha,
    const cudnnTensorDescriptor_t yd, const void *y, const cudnnTensorDescriptor_t dyd,
    const void *dy, const cudnnTensorDescriptor_t xd, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxd, void *dx) {
  (void)hd, (void)pd;
  if (xd->n != yd->n || dyd->n != yd->n || dxd->n != xd->n) return CUDNN_STATUS_BAD_PARAM;
  mock_called(xd->n);
  const float a = *(const float *)alpha, b = *(const float *)beta;
  const float *Y = (const float *)y, *DY = (const float *)dy, *X = (const float *)x;
  float *DX = (float *)dx;
  for (int n = 0; n < xd->n; n++)
    for (int c = 0; c < xd->c; c++)
      for (int h = 0; h < xd->h; h++)
        for (int w = 0; w < xd->w; w++) {
          int i = h / 2, j = w / 2;
          float g = X[mock_at(xd, n, c, h, w)] == Y[mock_at(yd, n, c, i, j)]
                        ? DY[mock_at(dyd, n, c, i, j)]
                        : 0.0f;
          float *o = &DX[mock_at(dxd, n, c, h, w)];
          *o = a * g + (b != 0 ? b * *o : 0.0f);
        }
  return CUDNN_STATUS_SUCCESS;
}

static inline cudnnStatus_t cudnnActivationForward(cudnnHandle_t hd,
                                                   cudnnActivationDescriptor_t ad,
                                                   const void *alpha,
                                                   const cudnnTensorDescriptor_t xd, const void *x,
                                                   const void *beta,
                                                   const cudnnTensorDescriptor_t yd, void *y) {
  (void)hd, (void)ad;
  if (xd->n != yd->n || xd->c != yd->c || xd->h != yd->h || xd->w != yd->w)
    return CUDNN_STATUS_BAD_PARAM;
  mock_called(xd->n);
  const float a = *(const float *)alpha, b = *(const float *)beta, *X = (const float *)x;
  float *Y = (float *)y;
  for (int n = 0; n < xd->n; n++)
    for (int c = 0; c < xd->c; c++)
      for (int h = 0; h < xd->h; h++)
        for (int w = 0; w < xd->w; w++) {
          float v = X[mock_at(xd, n, c, h, w)], *o = &Y[mock_at(yd, n, c, h, w)];
          *o = a * (v > 0 ? v : 0.0f) + (b != 0 ? b * *o : 0.0f);
        }
  return CUDNN_STATUS_SUCCESS;
}

/* Declared for the wrappers; the test does not call them. */
static inline cudnnStatus_t cudnnActivationBackward(
    cudnnHandle_t hd, cudnnActivationDescriptor_t ad, const void *alpha,
    const cudnnTensorDescriptor_t yd, const void *y, const cudnnTensorDescriptor_t dyd,
    const void *dy, const cudnnTensorDescriptor_t xd, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxd, void *dx) {
  (void)hd, (void)ad, (void)alpha, (void)yd, (void)y, (void)dyd, (void)dy, (void)xd, (void)x;
  (void)beta, (void)dxd, (void)dx;
  return CUDNN_STATUS_NOT_SUPPORTED;
}
static inline cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t hd, cudnnSoftmaxAlgorithm_t al,
                                                cudnnSoftmaxMode_t m, const void *alpha,
                                                const cudnnTensorDescriptor_t xd, const void *x,
                                                const void *beta,
                                                const cudnnTensorDescriptor_t yd, void *y) {
  (void)hd, (void)al, (void)m, (void)alpha, (void)xd, (void)x, (void)beta, (void)yd, (void)y;
  return CUDNN_STATUS_NOT_SUPPORTED;
}
static inline cudnnStatus_t cudnnSoftmaxBackward(cudnnHandle_t hd, cudnnSoftmaxAlgorithm_t al,
                                                 cudnnSoftmaxMode_t m, const void *alpha,
                                                 const cudnnTensorDescriptor_t yd, const void *y,
                                                 const cudnnTensorDescriptor_t dyd, const void *dy,
                                                 const void *beta,
                                                 const cudnnTensorDescriptor_t dxd, void *dx) {
  (void)hd, (void)al, (void)m, (void)alpha, (void)yd, (void)y, (void)dyd, (void)dy, (void)beta;
  (void)dxd, (void)dx;
  return CUDNN_STATUS_NOT_SUPPORTED;
}

#endif /* MOCK_CUDNN_H */
