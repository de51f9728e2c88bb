/* Entry points shared by C, C++ and CUDA files. */
#ifdef __cplusplus
extern "C" {
#endif
void scale_gpu(float *y, const float *x, int n);
float *alloc_gpu(int n);
#ifdef __cplusplus
}
#endif
