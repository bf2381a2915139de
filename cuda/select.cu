/* Selection, as c/cpu/generic/select.h: where over operands of any strides, index_select and
 * gather along a dim. The indices are read and checked on the host first (the CPU's message
 * names the first bad one), which waits for the device. */
#include "common.cuh"
#include "../c/core/check.h"

template <typename T>
__global__ void where_kernel(T *y, const bool *cond, Layout lc, const T *a, Layout la,
                             const T *b, Layout lb, int64_t n) {
  GRID_STRIDE(i, n) y[i] = cond[offset_of(lc, i)] ? a[offset_of(la, i)] : b[offset_of(lb, i)];
}

template <typename T>
int cuda_where(fused_tensor *out, const fused_tensor *cond, const fused_tensor *a,
               const fused_tensor *b) {
  const int64_t n = fused_tensor_numel(out);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, where_kernel<T>)(
      (T *)out->data, (const bool *)cond->data, layout_of(cond), (const T *)a->data,
      layout_of(a), (const T *)b->data, layout_of(b), n);
  return cuda_done("where");
}

static int check_index(const char *fn, const fused_tensor *index, int64_t len) {
  std::vector<int64_t> values;
  FUSED_TRY(cuda_read(fn, index, &values));
  return check_indices(fn, "index", "integers", values.data(), (int64_t)values.size(), len);
}

/* out[o, k, i] = in[o, index[k], i] (index_select) or in[o, index[o, k, i], i] (gather). */
template <typename T>
__global__ void pick_kernel(T *y, const T *x, const int64_t *index, bool per_element,
                            int64_t len, int64_t n, int64_t inner, int64_t total) {
  GRID_STRIDE(j, total) {
    const int64_t k = j / inner % n;
    const int64_t at = index[per_element ? j : k] - 1;
    y[j] = x[(j / (n * inner) * len + at) * inner + j % inner];
  }
}

template <typename T>
static int pick(const char *fn, fused_tensor *out, const fused_tensor *in, int32_t dim,
                const fused_tensor *index, bool per_element) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  FUSED_TRY(check_index(fn, index, in->sizes[dim]));
  const int64_t n = out->sizes[dim], total = outer * n * inner;
  FUSED_LAUNCH(blocks_for(total), THREADS, 0, cuda_stream, pick_kernel<T>)(
      (T *)out->data, (const T *)in->data, (const int64_t *)index->data, per_element,
      in->sizes[dim], n, inner, total);
  return cuda_done(fn);
}

template <typename T>
int cuda_index_select(fused_tensor *out, const fused_tensor *in, int32_t dim,
                      const fused_tensor *index) {
  return pick<T>("index_select", out, in, dim, index, false);
}

template <typename T>
int cuda_gather(fused_tensor *out, const fused_tensor *in, int32_t dim,
                const fused_tensor *index) {
  return pick<T>("gather", out, in, dim, index, true);
}

/* Each input is a block of rows in out: one 2-D copy per input. */
template <typename T>
int cuda_cat(fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(out, dim, &outer, &inner);
  const size_t out_row = (size_t)(out->sizes[dim] * inner) * sizeof(T);
  size_t at = 0;
  for (int32_t k = 0; k < n; k++) {
    const size_t row = (size_t)(inputs[k]->sizes[dim] * inner) * sizeof(T);
    if (row == 0 || outer == 0) continue; /* an empty input, or out */
    FUSED_TRY(cuda_check("cat", cudaMemcpy2DAsync(out->data + at, out_row, inputs[k]->data, row,
                                                  row, (size_t)outer, cudaMemcpyDeviceToDevice,
                                                  cuda_stream)));
    at += row;
  }
  return cuda_done("cat");
}

FUSED_KERNELS_SELECT(FUSED_CUDA_INSTANTIATE_ALL)
