/* The argument check both shims (c/dist/mpi.c, cuda/dist/nccl.cu) make of a collective's
 * tensor: on their device, floating when reduced, writable (no element shared), contiguous. */
#ifndef FUSED_DIST_CHECK_H
#define FUSED_DIST_CHECK_H

#include <stdio.h>

#include "../core/error.h"
#include "../fused.h"

/* c/core/check.h's (whose check_tensor the shims' own names would meet). */
#ifdef __cplusplus
extern "C" {
#endif
int fused_dtype_computes(int32_t dtype);
const char *fused_floating_names(void);
#ifdef __cplusplus
}
#endif

static inline int dist_check_tensor(const char *op, const fused_tensor *t, int32_t device,
                                    const char *engine, int floating) {
  if (!t) return fused_error("distributed.%s: argument 't' expected a tensor, got NULL", op);
  if (t->device_type != device) {
    return fused_error("distributed.%s: argument 't' expected a %s tensor (%s's side), got device "
                       "%d", op, device == FUSED_CPU ? "cpu" : "cuda", engine, t->device_type);
  }
  if (floating && !(fused_dtype_info_of(t->scalar_type)->is_floating &&
                    fused_dtype_computes(t->scalar_type))) {
    return fused_error("distributed.%s: argument 't' expected a %s tensor, got %s", op,
                       fused_floating_names(), fused_dtype_info_of(t->scalar_type)->name);
  }
  /* A collective writes t (the sum, or the root's values): no expanded view. */
  char fn[64];
  snprintf(fn, sizeof fn, "distributed.%s", op);
  FUSED_TRY(fused_check_writable(fn, "t", t));
  if (!fused_tensor_is_contiguous(t)) {
    return fused_error("distributed.%s: argument 't' expected a contiguous tensor, got a strided "
                       "view", op);
  }
  return 0;
}

#endif
