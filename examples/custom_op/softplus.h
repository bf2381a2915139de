/* Softplus, y = log(1 + e^x), an op written outside fused against c/fused_ext.h
 * (docs/extending.md). The declarations between the markers are what fused.ext.load gives
 * to ffi.cdef. Each returns 0, or -1 with fused_last_error() saying why. */
#include <fused_ext.h>

#ifdef __cplusplus
extern "C" {
#endif
/* ffi-begin */
/* out = softplus(x); x and out contiguous, float32 or float64, same shape, on the CPU or CUDA. */
int softplus_forward(fused_tensor *out, const fused_tensor *x);
/* d_x = d_out · sigmoid(x). */
int softplus_backward(fused_tensor *d_x, const fused_tensor *d_out, const fused_tensor *x);
/* The CUDA halves (softplus.cu), called by the two above for CUDA tensors. */
int softplus_forward_cuda(fused_tensor *out, const fused_tensor *x);
int softplus_backward_cuda(fused_tensor *d_x, const fused_tensor *d_out, const fused_tensor *x);
/* ffi-end */
#ifdef __cplusplus
}
#endif
