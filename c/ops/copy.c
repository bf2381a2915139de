/* copy and fill: the two ops that take any strides. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

int fused_copy(fused_tensor *dst, const fused_tensor *src) {
  const char *fn = "copy";
  FUSED_TRY(check_output(fn, "dst", dst));
  FUSED_TRY(check_tensor(fn, "src", src));
  /* One shape: a broadcast src is an expanded view, a reshaped one a view of it (a copy that
   * reshaped same-count tensors in silence took a 16x8 into an 8x16). */
  FUSED_TRY(check_shape(fn, "src", src, dst->ndim, dst->sizes));
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
  return ops->copy(dst, src);
}

int fused_fill(fused_tensor *t, double value) {
  FUSED_TRY(check_output("fill", "t", t));
  FUSED_TRY(fused_check_scalar("fill", "value", value, t->scalar_type));
  FUSED_CALL_KERNEL("fill", "t", t, fill, t, value);
}
