/* Cross-entropy (fused log-softmax and negative log-likelihood): argument checks, then the
 * device's kernel, which checks the target values. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* logits N×C contiguous; targets N int64 on its device, contiguous. */
static int check_logits(const char *fn, const fused_tensor *logits, const fused_tensor *targets) {
  FUSED_TRY(check_tensor(fn, "logits", logits));
  FUSED_TRY(check_ndim(fn, "logits", logits, 2));
  FUSED_TRY(check_contiguous(fn, "logits", logits));
  const int64_t rows[1] = {logits->sizes[0]};
  FUSED_TRY(check_tensor(fn, "targets", targets));
  FUSED_TRY(check_dtype(fn, "targets", targets, FUSED_INT64));
  FUSED_TRY(check_same_device(fn, "targets", targets, "logits", logits));
  FUSED_TRY(check_shape(fn, "targets", targets, 1, rows));
  return check_contiguous(fn, "targets", targets);
}

int fused_cross_entropy_forward(fused_tensor *loss, const fused_tensor *logits,
                                const fused_tensor *targets) {
  const char *fn = "cross_entropy_forward";
  FUSED_TRY(check_logits(fn, logits, targets));
  const int64_t one[1] = {1};
  FUSED_TRY(check_output(fn, "loss", loss));
  FUSED_TRY(check_same_dtype_device(fn, "loss", loss, "logits", logits));
  FUSED_TRY(check_shape(fn, "loss", loss, 1, one));
  FUSED_TRY(check_no_overlap(fn, "loss", loss, "logits", logits, 0));
  FUSED_TRY(check_no_overlap(fn, "loss", loss, "targets", targets, 0));
  FUSED_CALL_KERNEL(fn, "logits", logits, cross_entropy_forward, loss, logits, targets);
}

int fused_cross_entropy_backward(fused_tensor *d_logits, const fused_tensor *logits,
                                 const fused_tensor *targets, double grad_loss) {
  const char *fn = "cross_entropy_backward";
  FUSED_TRY(check_logits(fn, logits, targets));
  FUSED_TRY(check_output(fn, "d_logits", d_logits));
  FUSED_TRY(check_like(fn, "d_logits", d_logits, "logits", logits));
  FUSED_TRY(check_contiguous(fn, "d_logits", d_logits));
  FUSED_TRY(check_no_overlap(fn, "d_logits", d_logits, "logits", logits, 0));
  FUSED_TRY(check_no_overlap(fn, "d_logits", d_logits, "targets", targets, 0));
  FUSED_CALL_KERNEL(fn, "logits", logits, cross_entropy_backward, d_logits, logits, targets,
                    grad_loss);
}
