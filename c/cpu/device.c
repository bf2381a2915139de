/* The CPU device: aligned host memory, copies, and the kernel tables (one per dtype, of the
 * capability capability.c chose). */
#include <stdlib.h>
#include <string.h>

#include "../core/backend.h"
#include "../core/error.h"

/* 64-byte alignment lets the compiler's vector loads start on cache lines. */
static void *cpu_alloc(size_t bytes) {
  void *p = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64); /* an empty tensor's too */
  if (!p) fused_error("tensor_new: out of memory allocating %zu bytes on the cpu", bytes);
  return p;
}

static void cpu_free(void *p) { free(p); }

static int cpu_copy(fused_tensor *dst, const fused_tensor *src);

fused_device_ops fused_cpu_device = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy = cpu_copy,
};

/* A plain memmove where it can, else dst's convert kernel (generic/convert.h). */
static int cpu_copy(fused_tensor *dst, const fused_tensor *src) {
  if (dst->scalar_type == src->scalar_type && fused_tensor_is_contiguous(dst) &&
      fused_tensor_is_contiguous(src)) {
    memmove(dst->data, src->data, (size_t)fused_tensor_numel(dst) * fused_dtype_size(dst->scalar_type));
    return 0;
  }
  return fused_cpu_device.kernels[dst->scalar_type]->convert(dst, src);
}
