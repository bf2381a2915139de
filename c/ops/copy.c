/* copy and fill: the two ops that take any strides. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

int fused_copy(fused_tensor *dst, const fused_tensor *src) {
  const char *fn = "copy";
  FUSED_TRY(check_output(fn, "dst", dst));
  FUSED_TRY(check_tensor(fn, "src", src));
  if (fused_tensor_numel(dst) != fused_tensor_numel(src)) {
    char want[160], got[160];
    return fused_error("%s: argument 'src' expected %lld elements (shape %s, as 'dst'), got %lld (shape %s)",
                       fn, (long long)fused_tensor_numel(dst),
                       format_shape(want, sizeof want, dst->ndim, dst->sizes),
                       (long long)fused_tensor_numel(src),
                       format_shape(got, sizeof got, src->ndim, src->sizes));
  }
  /* Same numel but different shapes: copy in row-major order, which needs both contiguous. */
  int same_shape = dst->ndim == src->ndim;
  for (int32_t d = 0; same_shape && d < dst->ndim; d++) same_shape = dst->sizes[d] == src->sizes[d];
  if (!same_shape) {
    FUSED_TRY(check_contiguous(fn, "dst", dst));
    FUSED_TRY(check_contiguous(fn, "src", src));
  }
  if (dst->device_type != src->device_type) {
    if (dst->scalar_type != src->scalar_type)
      return fused_error("%s: argument 'src' expected dtype %s (as 'dst') for a copy between "
                         "devices, got %s", fn, dtype_name(dst->scalar_type),
                         dtype_name(src->scalar_type));
    FUSED_TRY(check_contiguous(fn, "dst", dst));
    FUSED_TRY(check_contiguous(fn, "src", src));
  }
  /* A copy between the host and a device is the device's to do. */
  int32_t device = dst->device_type != FUSED_CPU ? dst->device_type : src->device_type;
  const fused_device_ops *ops = fused_device_ops_for(fn, device);
  if (!ops) return -1;
  if (tensors_overlap(dst, src)) {
    /* Writing dst would overwrite elements of src not yet read (t:copy(t:t()) gave 1,3,3,4 for
     * 1,3,2,4): read src whole into a temporary first, as NumPy does where PyTorch raises. */
    fused_tensor tmp;
    FUSED_TRY(fused_tensor_init(&tmp, src->ndim, src->sizes, src->scalar_type, src->device_type));
    int rc = ops->copy(&tmp, src);
    if (rc == 0) rc = fused_copy(dst, &tmp);
    fused_tensor_release(&tmp);
    return rc;
  }
  if (!same_shape) {
    /* View src with dst's shape: both are contiguous, so the element order is the same. */
    fused_tensor flat = *src;
    flat.ndim = dst->ndim;
    for (int32_t d = 0; d < dst->ndim; d++) {
      flat.sizes[d] = dst->sizes[d];
      flat.strides[d] = dst->strides[d];
    }
    return ops->copy(dst, &flat);
  }
  return ops->copy(dst, src);
}

int fused_fill(fused_tensor *t, double value) {
  FUSED_TRY(check_output("fill", "t", t));
  FUSED_TRY(fused_check_scalar("fill", "value", value, t->scalar_type));
  FUSED_CALL_KERNEL("fill", "t", t, fill, t, value);
}
