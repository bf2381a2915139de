/* Cross-entropy of logits against class indices: log-softmax and the negative log-likelihood
 * in one pass per row. Each row's max is subtracted before exp, so any finite logits give a
 * finite loss. Targets are int64 class indices counted from 1 (check_indices). */

/* A row's max and log(sum(exp(row - max))): logsumexp(row) is their sum, but kept apart so
 * that row[c] - logsumexp is (row[c] - max) - log_sum, exact even where max dwarfs log_sum
 * (logits of 1e30 in float32). */
static inline scalar_t row_max(const scalar_t *row, int64_t n) {
  scalar_t max = row[0];
  for (int64_t c = 1; c < n; c++) max = row[c] > max ? row[c] : max;
  return max;
}

static inline scalar_t log_sum_shifted(const scalar_t *row, int64_t n, scalar_t max) {
  scalar_t sum = 0;
  for (int64_t c = 0; c < n; c++) sum += exp(row[c] - max);
  return log(sum);
}

static int cross_entropy_forward(fused_tensor *loss, const fused_tensor *logits,
                                 const fused_tensor *targets) {
  const int64_t rows = logits->sizes[0], classes = logits->sizes[1];
  const scalar_t *x = (const scalar_t *)logits->data;
  const int64_t *tg = (const int64_t *)targets->data;
  FUSED_TRY(check_indices("cross_entropy_forward", "targets", "class indices", tg, rows, classes));
  double total = 0; /* in double: a float32 mean over many rows keeps its digits */
#pragma omp parallel for reduction(+ : total) if (rows * classes > PARALLEL_MIN_ELEMENTS)
  for (int64_t r = 0; r < rows; r++) {
    const scalar_t *row = x + r * classes;
    const scalar_t max = row_max(row, classes);
    total += (double)((max - row[tg[r] - 1]) + log_sum_shifted(row, classes, max));
  }
  *(scalar_t *)loss->data = (scalar_t)(total / (double)rows);
  return 0;
}

static int cross_entropy_backward(fused_tensor *d_logits, const fused_tensor *logits,
                                  const fused_tensor *targets, double grad_loss) {
  const int64_t rows = logits->sizes[0], classes = logits->sizes[1];
  const scalar_t *x = (const scalar_t *)logits->data;
  const int64_t *tg = (const int64_t *)targets->data;
  scalar_t *dx = (scalar_t *)d_logits->data;
  const scalar_t scale = (scalar_t)(grad_loss / (double)rows);
  FUSED_TRY(check_indices("cross_entropy_backward", "targets", "class indices", tg, rows, classes));
#pragma omp parallel for if (rows * classes > PARALLEL_MIN_ELEMENTS)
  for (int64_t r = 0; r < rows; r++) {
    const scalar_t *row = x + r * classes;
    scalar_t *drow = dx + r * classes;
    const scalar_t max = row_max(row, classes), log_sum = log_sum_shifted(row, classes, max);
    for (int64_t c = 0; c < classes; c++) drow[c] = scale * exp((row[c] - max) - log_sum);
    drow[tg[r] - 1] -= scale;
  }
  return 0;
}
