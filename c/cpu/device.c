/* The CPU device: aligned host memory, copies, and the kernel tables (one per dtype, of the
 * capability capability.c chose). */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../core/backend.h"
#include "../core/error.h"

/* Tensors from 8 MiB up sit on 2 MiB boundaries and ask for transparent huge pages (which
 * Debian gives only where asked): the first touch of fresh pages is then a fault per 2 MiB,
 * not per 4 KiB, 5x faster on 128 MiB (docs/scan.md). The tail costs at most 2 MiB, 25%. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)8 << 20)

/* 64-byte alignment lets the compiler's vector loads start on cache lines. */
static void *cpu_alloc(size_t bytes) {
  size_t align = bytes >= HUGE_FROM ? HUGE_PAGE : 64;
  void *p = aligned_alloc(align, bytes ? (bytes + align - 1) / align * align : 64); /* an empty tensor's too */
  if (!p) fused_error("tensor_new: out of memory allocating %zu bytes on the cpu", bytes);
  if (align == HUGE_PAGE) madvise(p, bytes, MADV_HUGEPAGE); /* a hint: refused, nothing changes */
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
