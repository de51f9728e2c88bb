// Shared declarations of a program split over three translation units.
typedef struct { float *data; int n; } tensor_t;
typedef struct { tensor_t w, h; } model_t;
tensor_t tensor_alloc(int n);
void model_init(model_t *m, int n);
__global__ void scale_kernel(float *out, const float *in, int n);
