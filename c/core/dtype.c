/* The dtype table (fused.h's FUSED_DTYPES), read by C through fused_dtype_info_of and by the
 * binding. */
#include <stdbool.h>

#include "error.h"
#include "../fused.h"

#define INFO(id, ctype, name, npy, safetensors, floating, torch7, ...) \
  [id] = {#name, (int32_t)sizeof(ctype), npy, safetensors, floating, #ctype "*", #torch7},
static const fused_dtype_info dtypes[] = {FUSED_DTYPES(INFO)};
#undef INFO
_Static_assert(sizeof dtypes / sizeof *dtypes == FUSED_NUM_DTYPES, "one row per dtype");

const fused_dtype_info *fused_dtype_info_of(int32_t dtype) {
  return dtype >= 0 && dtype < FUSED_NUM_DTYPES ? &dtypes[dtype] : NULL;
}

size_t fused_dtype_size(int32_t dtype) {
  const fused_dtype_info *info = fused_dtype_info_of(dtype);
  if (!info) {
    fused_error("dtype_size: argument 'dtype' expected 0 to %d, got %d", FUSED_NUM_DTYPES - 1,
                dtype);
    return 0;
  }
  return (size_t)info->size;
}
