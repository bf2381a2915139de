/* spec/cuda_emu/kernels.cu's functions: fused.ext.load gives the text between the ffi markers
 * to ffi.cdef when this header is among the sources. */
#include <fused_ext.h>

#ifdef __cplusplus
extern "C" {
#endif
/* ffi-begin */
int emu_neighbours(fused_tensor *out, int32_t blocks, int32_t barrier, int64_t tag);
int emu_warp_sum(fused_tensor *out);
int emu_launch_threads(int32_t threads, int32_t shared_bytes);
int emu_read_past(fused_tensor *out, const fused_tensor *in, int64_t extra);
int emu_gemm_batched(fused_tensor *c, const fused_tensor *a, const fused_tensor *b, double alpha,
                     double beta, int32_t lda_less);
int emu_gemm_ex(fused_tensor *c, const fused_tensor *a, const fused_tensor *b, int32_t c_double);
/* ffi-end */
#ifdef __cplusplus
}
#endif
