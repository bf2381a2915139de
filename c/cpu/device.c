/* The CPU device: aligned host memory, strided dtype-converting copies, the kernel tables. */
#include <stdlib.h>
#include <string.h>

#include "../core/backend.h"
#include "../core/error.h"
#include "strided.h"

extern const fused_kernels fused_cpu_float_kernels, fused_cpu_double_kernels;

/* 64-byte alignment lets the compiler's vector loads start on cache lines. */
static void *cpu_alloc(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) fused_error("tensor_new: out of memory allocating %zu bytes on the cpu", bytes);
  return p;
}

static void cpu_free(void *p) { free(p); }

#define COPY_LOOP(DST_T, SRC_T)                                                          \
  do {                                                                                    \
    strided_iter it;                                                                      \
    strided_iter_init(&it, dst, src);                                                     \
    do {                                                                                  \
      DST_T *d = (DST_T *)dst->data + it.offset[0];                                       \
      const SRC_T *s = (const SRC_T *)src->data + it.offset[1];                           \
      for (int64_t i = 0; i < it.inner; i++) d[i * it.inner_stride[0]] = (DST_T)s[i * it.inner_stride[1]]; \
    } while (strided_iter_next(&it));                                                     \
  } while (0)

static int cpu_copy(fused_tensor *dst, const fused_tensor *src) {
  if (dst->scalar_type == src->scalar_type && fused_tensor_is_contiguous(dst) &&
      fused_tensor_is_contiguous(src)) {
    memmove(dst->data, src->data, (size_t)fused_tensor_numel(dst) * fused_dtype_size(dst->scalar_type));
    return 0;
  }
  int dst64 = dst->scalar_type == FUSED_FLOAT64, src64 = src->scalar_type == FUSED_FLOAT64;
  if (dst64 && src64) COPY_LOOP(double, double);
  else if (dst64) COPY_LOOP(double, float);
  else if (src64) COPY_LOOP(float, double);
  else COPY_LOOP(float, float);
  return 0;
}

const fused_device_ops fused_cpu_device = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy = cpu_copy,
    .kernels = {[FUSED_FLOAT32] = &fused_cpu_float_kernels,
                [FUSED_FLOAT64] = &fused_cpu_double_kernels},
};
