/* Sparse matrices in CSR form (c/fused.h): the structure functions, which run on the host, and
 * the product, which dispatches to the device's kernel. */
#include <stdlib.h>
#include <string.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* A 1-D contiguous tensor of n elements (n < 0: any length) of dtype (< 0: any floating dtype). */
static int check_vector(const char *fn, const char *arg, const fused_tensor *t, int64_t n,
                        int32_t dtype) {
  FUSED_TRY(check_tensor(fn, arg, t));
  if (dtype >= 0) FUSED_TRY(check_dtype(fn, arg, t, dtype));
  else FUSED_TRY(check_floating(fn, arg, t));
  if (n >= 0) FUSED_TRY(check_shape(fn, arg, t, 1, &n));
  else FUSED_TRY(check_ndim(fn, arg, t, 1));
  return check_contiguous(fn, arg, t);
}

static int check_on_cpu(const char *fn, const char *arg, const fused_tensor *t) {
  if (t->device_type == FUSED_CPU) return 0;
  return fused_error("%s: argument '%s' expected a tensor on the cpu, got one on %s", fn, arg,
                     device_name(t->device_type));
}

/* A CSR matrix's three tensors, named in errors as names[0..2] (row_ptr, col_idx, values):
 * vectors on one device, at least 2 offsets, col_idx and values of one length; values of any
 * floating dtype, or of value_dtype when it is >= 0. */
static const char *const CSR_NAMES[3] = {"row_ptr", "col_idx", "values"};
static int check_csr_tensors(const char *fn, const char *const names[3],
                             const fused_tensor *row_ptr, const fused_tensor *col_idx,
                             const fused_tensor *values, int32_t value_dtype) {
  FUSED_TRY(check_vector(fn, names[0], row_ptr, -1, FUSED_INT64));
  if (row_ptr->sizes[0] < 2)
    return fused_error("%s: argument '%s' expected at least 2 offsets (rows + 1), got 1", fn,
                       names[0]);
  FUSED_TRY(check_vector(fn, names[1], col_idx, -1, FUSED_INT64));
  FUSED_TRY(check_same_device(fn, names[1], col_idx, names[0], row_ptr));
  FUSED_TRY(check_vector(fn, names[2], values, col_idx->sizes[0], value_dtype));
  return check_same_device(fn, names[2], values, names[0], row_ptr);
}

int fused_csr_check(const fused_tensor *row_ptr, const fused_tensor *col_idx,
                    const fused_tensor *values, int64_t n_cols) {
  const char *fn = "csr_check";
  FUSED_TRY(check_csr_tensors(fn, CSR_NAMES, row_ptr, col_idx, values, -1));
  FUSED_TRY(check_on_cpu(fn, "row_ptr", row_ptr));
  return check_csr(fn, (const int64_t *)row_ptr->data, row_ptr->sizes[0] - 1,
                   (const int64_t *)col_idx->data, col_idx->sizes[0], n_cols);
}

/* A workspace of size + extra int64s (size >= 0 from argument arg of fn, extra small); NULL
 * with the error set when its bytes pass SIZE_MAX (an n_cols of 2^61 wrapped round to 8 bytes,
 * which the sort then wrote 2^61 counts past) or malloc fails. */
static int64_t *int64_buffer(const char *fn, const char *arg, int64_t size, int64_t extra) {
  int64_t count;
  size_t bytes;
  if (__builtin_add_overflow(size, extra, &count) ||
      __builtin_mul_overflow((uint64_t)count, sizeof(int64_t), &bytes)) {
    fused_error("%s: argument '%s' is too large: a workspace of %lld + %lld int64 entries passes "
                "the largest allocation (%zu bytes)", fn, arg, (long long)size, (long long)extra,
                (size_t)SIZE_MAX);
    return NULL;
  }
  int64_t *buffer = malloc(bytes ? bytes : 1); /* malloc(0) may be NULL */
  if (!buffer)
    fused_error("%s: out of memory for a workspace of %lld + %lld int64 entries (from argument "
                "'%s')", fn, (long long)size, (long long)extra, arg);
  return buffer;
}

/* order[0..n) = the positions 0..n-1 stably sorted by key[position] (in 1..count). */
static void counting_sort(int64_t *order, const int64_t *positions, const int64_t *key, int64_t n,
                          int64_t count, int64_t *start) {
  memset(start, 0, (size_t)(count + 1) * sizeof *start);
  for (int64_t i = 0; i < n; i++) start[key[i]]++;
  for (int64_t c = 1; c <= count; c++) start[c] += start[c - 1];
  /* start[c - 1] is now where key c begins. */
  for (int64_t i = 0; i < n; i++) {
    const int64_t p = positions ? positions[i] : i;
    order[start[key[p] - 1]++] = p;
  }
}

int fused_csr_from_coo(fused_tensor *row_ptr, fused_tensor *col_idx, fused_tensor *values,
                       int64_t *nnz, const fused_tensor *rows, const fused_tensor *cols,
                       const fused_tensor *coo_values, int64_t n_cols) {
  const char *fn = "csr_from_coo";
  if (!nnz) return fused_error("%s: argument 'nnz' expected a pointer, got NULL", fn);
  FUSED_TRY(check_vector(fn, "rows", rows, -1, FUSED_INT64));
  const int64_t n = rows->sizes[0];
  FUSED_TRY(check_vector(fn, "cols", cols, n, FUSED_INT64));
  FUSED_TRY(check_vector(fn, "coo_values", coo_values, n, FUSED_FLOAT64));
  FUSED_TRY(check_csr_tensors(fn, CSR_NAMES, row_ptr, col_idx, values, FUSED_FLOAT64));
  FUSED_TRY(check_shape(fn, "col_idx", col_idx, 1, &n));
  const fused_arg outs[] = {{"row_ptr", row_ptr}, {"col_idx", col_idx}, {"values", values}};
  const fused_arg ins[] = {{"rows", rows}, {"cols", cols}, {"coo_values", coo_values}};
  FUSED_TRY(check_outputs_apart(fn, 3, outs, 3, ins, -1, -1));
  for (int i = 0; i < 3; i++) {
    FUSED_TRY(check_on_cpu(fn, outs[i].arg, outs[i].t));
    FUSED_TRY(check_on_cpu(fn, ins[i].arg, ins[i].t));
  }
  if (n_cols < 1)
    return fused_error("%s: argument 'n_cols' expected a positive number, got %lld", fn,
                       (long long)n_cols);
  const int64_t n_rows = row_ptr->sizes[0] - 1;
  const int64_t *r = (const int64_t *)rows->data, *c = (const int64_t *)cols->data;
  FUSED_TRY(check_indices(fn, "rows", "row indices", r, n, n_rows));
  FUSED_TRY(check_indices(fn, "cols", "column indices", c, n, n_cols));

  /* Sorted by column, then stably by row: by (row, column, position given). The keys' counts
   * need max(n_rows, n_cols) + 1 entries. */
  const int cols_larger = n_cols > n_rows;
  int64_t *start =
      int64_buffer(fn, cols_larger ? "n_cols" : "row_ptr", cols_larger ? n_cols : n_rows, 1);
  if (!start) return -1;
  int64_t *by_col = int64_buffer(fn, "rows", n, 0);
  int64_t *order = by_col ? int64_buffer(fn, "rows", n, 0) : NULL;
  if (!order) {
    free(by_col), free(start);
    return -1;
  }
  counting_sort(by_col, NULL, c, n, n_cols, start);
  counting_sort(order, by_col, r, n, n_rows, start);

  int64_t *offsets = (int64_t *)row_ptr->data, *out_cols = (int64_t *)col_idx->data;
  const double *v = (const double *)coo_values->data;
  double *out_values = (double *)values->data;
  int64_t k = 0;
  memset(offsets, 0, (size_t)(n_rows + 1) * sizeof *offsets);
  for (int64_t i = 0; i < n; i++) {
    const int64_t p = order[i];
    const int same = i > 0 && r[p] == r[order[i - 1]] && c[p] == c[order[i - 1]];
    if (same) {
      out_values[k - 1] += v[p];
    } else {
      out_cols[k] = c[p];
      out_values[k] = v[p];
      offsets[r[p]]++;
      k++;
    }
  }
  for (int64_t row = 1; row <= n_rows; row++) offsets[row] += offsets[row - 1];
  free(by_col), free(order), free(start);
  *nnz = k;
  return 0;
}

int fused_csr_transpose(fused_tensor *t_row_ptr, fused_tensor *t_col_idx, fused_tensor *t_values,
                        const fused_tensor *row_ptr, const fused_tensor *col_idx,
                        const fused_tensor *values) {
  const char *fn = "csr_transpose";
  static const char *const T_NAMES[3] = {"t_row_ptr", "t_col_idx", "t_values"};
  FUSED_TRY(check_csr_tensors(fn, CSR_NAMES, row_ptr, col_idx, values, -1));
  FUSED_TRY(check_csr_tensors(fn, T_NAMES, t_row_ptr, t_col_idx, t_values, values->scalar_type));
  FUSED_TRY(check_shape(fn, "t_col_idx", t_col_idx, 1, col_idx->sizes));
  const fused_arg outs[] = {{"t_row_ptr", t_row_ptr}, {"t_col_idx", t_col_idx},
                            {"t_values", t_values}};
  const fused_arg ins[] = {{"row_ptr", row_ptr}, {"col_idx", col_idx}, {"values", values}};
  FUSED_TRY(check_outputs_apart(fn, 3, outs, 3, ins, -1, -1));
  for (int i = 0; i < 3; i++) {
    FUSED_TRY(check_on_cpu(fn, outs[i].arg, outs[i].t));
    FUSED_TRY(check_on_cpu(fn, ins[i].arg, ins[i].t));
  }
  const int64_t n_rows = row_ptr->sizes[0] - 1, n_cols = t_row_ptr->sizes[0] - 1;
  const int64_t nnz = col_idx->sizes[0];
  const int64_t *rp = (const int64_t *)row_ptr->data, *ci = (const int64_t *)col_idx->data;
  FUSED_TRY(check_csr(fn, rp, n_rows, ci, nnz, n_cols));

  /* A counting sort by column, walking the rows in order: each new row's columns come sorted.
   * next[c] is where column c's next entry goes, kept in t_row_ptr shifted by one. */
  int64_t *next = (int64_t *)t_row_ptr->data + 1, *t_ci = (int64_t *)t_col_idx->data;
  memset(t_row_ptr->data, 0, (size_t)(n_cols + 1) * sizeof(int64_t));
  for (int64_t p = 0; p < nnz; p++) next[ci[p] - 1]++;
  for (int64_t col = 1; col < n_cols; col++) next[col] += next[col - 1];
  for (int64_t col = n_cols - 1; col > 0; col--) next[col] = next[col - 1];
  next[0] = 0;
  const size_t size = fused_dtype_size(values->scalar_type);
  for (int64_t row = 0; row < n_rows; row++)
    for (int64_t p = rp[row]; p < rp[row + 1]; p++) {
      const int64_t dst = next[ci[p] - 1]++;
      t_ci[dst] = row + 1;
      memcpy(t_values->data + (size_t)dst * size, values->data + (size_t)p * size, size);
    }
  /* next[c] has moved to where column c + 1 begins: t_row_ptr[c + 1], as it should be. */
  return 0;
}

int fused_spmm(fused_tensor *out, const fused_tensor *row_ptr, const fused_tensor *col_idx,
               const fused_tensor *values, const fused_tensor *x, const fused_tensor *bias,
               int32_t relu) {
  const char *fn = "spmm";
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_ndim(fn, "out", out, 2));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_csr_tensors(fn, CSR_NAMES, row_ptr, col_idx, values, -1));
  FUSED_TRY(check_same_dtype_device(fn, "values", values, "out", out));
  FUSED_TRY(check_tensor(fn, "x", x));
  FUSED_TRY(check_ndim(fn, "x", x, 2));
  FUSED_TRY(check_contiguous(fn, "x", x));
  FUSED_TRY(check_same_dtype_device(fn, "x", x, "out", out));
  const int64_t want[2] = {row_ptr->sizes[0] - 1, x->sizes[1]};
  FUSED_TRY(check_shape(fn, "out", out, 2, want));
  if (bias) FUSED_TRY(check_vector(fn, "bias", bias, x->sizes[1], out->scalar_type));
  if (bias) FUSED_TRY(check_same_device(fn, "bias", bias, "out", out));
  if (relu != 0 && relu != 1)
    return fused_error("%s: argument 'relu' expected 0 or 1, got %d", fn, relu);
  const fused_arg outs[] = {{"out", out}};
  const fused_arg ins[] = {{"row_ptr", row_ptr}, {"col_idx", col_idx}, {"values", values},
                           {"x", x}, {"bias", bias}};
  FUSED_TRY(check_outputs_apart(fn, 1, outs, 5, ins, -1, -1));
  FUSED_CALL_KERNEL(fn, "x", x, spmm, out, row_ptr, col_idx, values, x, bias, relu);
}
