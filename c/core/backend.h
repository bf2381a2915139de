/* The one place where an op meets its device and dtype.
 *
 * A backend (the CPU here, CUDA in libfused_cuda) registers a fused_device_ops: how to
 * allocate and copy on that device, and one fused_kernels table per dtype. Public API
 * functions validate their arguments, then end in FUSED_CALL_KERNEL: an op never switches
 * on device or dtype itself, and a new device or dtype is a new table, not an edit to ops.
 * Kernels receive validated tensors and may assume contiguous data where the API requires it.
 */
#ifndef FUSED_BACKEND_H
#define FUSED_BACKEND_H

#include "../fused.h"
#include "kernel_list.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One member per line of kernel_list.h, named as there. */
#define FUSED_KERNEL_MEMBER(name, params) int(*name) params;
typedef struct fused_kernels {
  FUSED_KERNELS(FUSED_KERNEL_MEMBER)
} fused_kernels;

typedef struct fused_device_ops {
  const char *name;
  void *(*alloc)(size_t bytes);             /* NULL with the error set on failure */
  void (*free)(void *ptr);
  /* Strided, dtype-converting copy within the device, or a contiguous same-dtype copy
   * between the host and the device (one side then lives on the CPU). */
  int (*copy)(fused_tensor *dst, const fused_tensor *src);
  const fused_kernels *kernels[FUSED_NUM_DTYPES];
} fused_device_ops;

/* tensor.c: the first byte of a storage, where offsets into it count from. */
const char *fused_storage_base(const fused_storage *s);

/* Called by a backend library when it loads and finds its device usable. */
int fused_register_device(int32_t device, const fused_device_ops *ops);

const fused_device_ops *fused_device_ops_for(const char *fn, int32_t device);
const fused_kernels *fused_kernels_for(const char *fn, const fused_tensor *t);

/* The error for a kernel (named kernel) that t's table leaves NULL: t (named arg) is not of a
 * dtype that has it, or the device has no such kernel yet. Returns -1. */
int fused_missing_kernel(const char *fn, const char *arg, const fused_tensor *t,
                         const char *kernel);

/* How every API function ends: returns kernels_for(fn, t)->op(...), or -1 with an error when
 * t's device has no backend, or its table has no such kernel (see fused_missing_kernel). arg
 * is t's name in the API, which the error names: an input of the caller's, never an out the
 * Lua layer made. */
#define FUSED_CALL_KERNEL(fn, arg, t, op, ...)                                                \
  do {                                                                                        \
    const fused_kernels *kernels_ = fused_kernels_for(fn, t);                                 \
    if (!kernels_) return -1;                                                                 \
    if (!kernels_->op) return fused_missing_kernel(fn, arg, t, #op);                           \
    return kernels_->op(__VA_ARGS__);                                                         \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
