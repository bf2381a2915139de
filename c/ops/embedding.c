/* Embedding lookup and its gradient: argument checks, then the device's kernel, which checks
 * the index values. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* table (rows × dim) contiguous; indices int64 on its device, contiguous; rows is the
 * indices' shape followed by dim, contiguous. */
static int check_lookup(const char *fn, const char *table_arg, const fused_tensor *table,
                        const char *rows_arg, const fused_tensor *rows,
                        const fused_tensor *indices) {
  FUSED_TRY(check_tensor(fn, table_arg, table));
  FUSED_TRY(check_ndim(fn, table_arg, table, 2));
  FUSED_TRY(check_contiguous(fn, table_arg, table));
  FUSED_TRY(check_tensor(fn, "indices", indices));
  FUSED_TRY(check_dtype(fn, "indices", indices, FUSED_INT64));
  FUSED_TRY(check_same_device(fn, "indices", indices, table_arg, table));
  FUSED_TRY(check_contiguous(fn, "indices", indices));
  if (indices->ndim >= FUSED_MAX_DIMS)
    return fused_error("%s: argument 'indices' expected at most %d dims, got %d", fn,
                       FUSED_MAX_DIMS - 1, indices->ndim);
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < indices->ndim; d++) want[d] = indices->sizes[d];
  want[indices->ndim] = table->sizes[1];
  FUSED_TRY(check_tensor(fn, rows_arg, rows));
  FUSED_TRY(check_same_dtype_device(fn, rows_arg, rows, table_arg, table));
  FUSED_TRY(check_shape(fn, rows_arg, rows, indices->ndim + 1, want));
  return check_contiguous(fn, rows_arg, rows);
}

int fused_embedding_forward(fused_tensor *out, const fused_tensor *weight,
                            const fused_tensor *indices) {
  const char *fn = "embedding_forward";
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_lookup(fn, "weight", weight, "out", out, indices));
  FUSED_TRY(check_no_overlap(fn, "out", out, "weight", weight, 0));
  FUSED_TRY(check_no_overlap(fn, "out", out, "indices", indices, 0));
  FUSED_CALL_KERNEL(fn, "weight", weight, embedding_forward, out, weight, indices);
}

int fused_embedding_backward(fused_tensor *grad_weight, const fused_tensor *grad_out,
                             const fused_tensor *indices) {
  const char *fn = "embedding_backward";
  FUSED_TRY(check_output(fn, "grad_weight", grad_weight));
  FUSED_TRY(check_lookup(fn, "grad_weight", grad_weight, "grad_out", grad_out, indices));
  FUSED_TRY(check_no_overlap(fn, "grad_weight", grad_weight, "grad_out", grad_out, 0));
  FUSED_TRY(check_no_overlap(fn, "grad_weight", grad_weight, "indices", indices, 0));
  FUSED_CALL_KERNEL(fn, "grad_weight", grad_weight, embedding_backward, grad_weight, grad_out,
                    indices);
}
