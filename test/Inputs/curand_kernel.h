/* Stub <curand_kernel.h> for tidal's lit tests: the device RNG API that
 * makes a kernel RNG-stateful (kernel flag "rng"). */
#ifndef TIDAL_STUB_CURAND_KERNEL_H
#define TIDAL_STUB_CURAND_KERNEL_H
#include "cuda.h"

struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
struct curandStatePhilox4_32_10 { unsigned int ctr[4], output[4], key[2], STATE; };
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateXORWOW_t *state);
__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStatePhilox4_32_10_t *state);
__device__ unsigned int curand(curandStateXORWOW_t *state);
__device__ float curand_uniform(curandStateXORWOW_t *state);
__device__ float curand_uniform(curandStatePhilox4_32_10_t *state);
__device__ float curand_normal(curandStateXORWOW_t *state);
__device__ float curand_normal(curandStatePhilox4_32_10_t *state);
#endif
