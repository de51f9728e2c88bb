/* ref.h - the plain-C CPU reference of samples/mlp/train.cu.
 *
 * Same parameters, initialisation, data and SGD update as the CUDA trainer,
 * at a size chosen at run time, so tests can check it at a tiny size (loss
 * falls, finite-difference gradients agree) and GPU runs can be compared
 * with it at the sample's default size.
 *
 * REF_REAL is the arithmetic type: float for the reference program, double
 * for the gradient check. */
#ifndef SAMPLES_MLP_REF_H
#define SAMPLES_MLP_REF_H

#include <stddef.h>
#include <stdint.h>

#ifndef REF_REAL
#define REF_REAL float
#endif
typedef REF_REAL mlp_real;

typedef struct mlp_ref_config {
  int batch;   /* examples per step */
  int in_dim;  /* input features */
  int hidden;  /* units per hidden layer */
  int classes; /* output classes */
} mlp_ref_config;

/* w1, b1, w2, b2, w3, b3 */
#define MLP_REF_NUM_TENSORS 6
#define MLP_REF_LEARNING_RATE 0.2f
#define MLP_REF_NOISE 1.0f
#define MLP_REF_PARAM_SEED 1234u
#define MLP_REF_DATA_SEED 99u

typedef struct mlp_ref mlp_ref; /* opaque */

/* train.cu's compile-time sizes. */
void mlp_ref_default_config(mlp_ref_config *cfg);

/* train.cu's initialisation from seed; NULL on a bad config or no memory. */
mlp_ref *mlp_ref_create(const mlp_ref_config *cfg, uint64_t seed);
void mlp_ref_destroy(mlp_ref *m); /* NULL is a no-op */

/* The data: class centres (classes * in_dim) drawn once from rng, then per
 * step a batch of points x (batch * in_dim) and labels (batch). */
void mlp_ref_make_centres(const mlp_ref_config *cfg, uint64_t *rng, float *centres);
void mlp_ref_make_batch(const mlp_ref_config *cfg, uint64_t *rng, const float *centres, float *x,
                        int *labels);

/* Forward pass: returns the mean cross-entropy and keeps the activations. */
double mlp_ref_forward(mlp_ref *m, const float *x, const int *labels);
/* Gradients of the last forward pass (overwritten, not accumulated). */
void mlp_ref_backward(mlp_ref *m);
/* param -= lr * grad for every tensor. */
void mlp_ref_update(mlp_ref *m, float lr);

const char *mlp_ref_tensor_name(int i);
size_t mlp_ref_tensor_size(const mlp_ref *m, int i);
mlp_real *mlp_ref_tensor(mlp_ref *m, int i);
mlp_real *mlp_ref_tensor_grad(mlp_ref *m, int i);

#endif
