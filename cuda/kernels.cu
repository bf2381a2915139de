/* The kernel tables that fused_cuda_init registers, one per dtype, from c/core/kernel_list.h:
 * every dtype has the ANY_DTYPE kernels, every one but bool the ARITHMETIC ones, the floating
 * ones the rest. */
#include "common.cuh"

#define FUSED_CUDA_ENTRY(name, params) k.name = cuda_##name<T>;
/* The 16-bit types (fused_bfloat16, fused_float16: structs) store and select, and do not
 * compute yet. */
template <typename T, bool floating> static fused_kernels make_kernels() {
  fused_kernels k = {};
  FUSED_KERNELS_ANY_DTYPE(FUSED_CUDA_ENTRY)
  if constexpr (!std::is_same<T, bool>::value && !std::is_class<T>::value) {
    FUSED_KERNELS_ARITHMETIC(FUSED_CUDA_ENTRY)
  }
  if constexpr (floating && !std::is_class<T>::value) {
    FUSED_KERNELS_FLOATING(FUSED_CUDA_ENTRY)
  }
  return k;
}

#define FUSED_CUDA_TABLE(id, ctype, name, npy, safetensors, floating, ...) \
  make_kernels<ctype, floating>(),
const fused_kernels cuda_kernels[FUSED_NUM_DTYPES] = {FUSED_DTYPES(FUSED_CUDA_TABLE)};
