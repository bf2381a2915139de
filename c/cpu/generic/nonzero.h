/* The nonzero elements of a contiguous tensor in row-major order: their count, and (out not
 * NULL, with count rows) each one's position, counted from 1, as a row of out. */
static int nonzero(fused_tensor *out, int64_t *count, const fused_tensor *in) {
  const scalar_t *x = (const scalar_t *)in->data;
  const int64_t n = fused_tensor_numel(in);
  int64_t found = 0;
  int64_t *rows = out ? (int64_t *)out->data : NULL;
  for (int64_t i = 0; i < n; i++) {
    if (fused_value(x[i]) == 0) continue;
    if (rows) {
      int64_t rest = i;
      for (int32_t d = in->ndim - 1; d >= 0; d--) {
        rows[found * in->ndim + d] = rest % in->sizes[d] + 1;
        rest /= in->sizes[d];
      }
    }
    found++;
  }
  *count = found;
  return 0;
}
