/* Copies (within the device with any strides and dtypes, or between the host and the device)
 * and fill, the two ops that take any strides. */
#include "common.cuh"

template <typename D, typename S>
__global__ void copy_kernel(D *dst, Layout dst_layout, const S *src, Layout src_layout,
                            int64_t n) {
  GRID_STRIDE(i, n) dst[offset_of(dst_layout, i)] = (D)src[offset_of(src_layout, i)];
}

template <typename D, typename S>
static void launch_copy(fused_tensor *dst, const fused_tensor *src, int64_t n) {
  copy_kernel<D, S><<<blocks_for(n), THREADS, 0, cuda_stream>>>(
      (D *)dst->data, layout_of(dst), (const S *)src->data, layout_of(src), n);
}

/* fused_copy has checked the shapes, and that a copy between devices is contiguous and keeps
 * the dtype. Reading into host memory waits for the device, so the host sees the values. */
int cuda_copy(fused_tensor *dst, const fused_tensor *src) {
  const int64_t n = fused_tensor_numel(dst);
  const size_t bytes = (size_t)n * fused_dtype_size(dst->scalar_type);
  /* From pageable host memory the copy has taken the data when it returns, so the host
   * tensor may be freed at once; the device side is ordered on the stream. */
  if (src->device_type == FUSED_CPU) {
    FUSED_TRY(cuda_check("copy (host to device)",
                         cudaMemcpyAsync(dst->data, src->data, bytes, cudaMemcpyHostToDevice,
                                         cuda_stream)));
    return cuda_done("copy (host to device)");
  }
  if (dst->device_type == FUSED_CPU) {
    FUSED_TRY(cuda_check("copy (device to host)",
                         cudaMemcpyAsync(dst->data, src->data, bytes, cudaMemcpyDeviceToHost,
                                         cuda_stream)));
    return cuda_check("copy (device to host)", cudaStreamSynchronize(cuda_stream));
  }
  if (dst->scalar_type == src->scalar_type && fused_tensor_is_contiguous(dst) &&
      fused_tensor_is_contiguous(src)) {
    FUSED_TRY(cuda_check("copy", cudaMemcpyAsync(dst->data, src->data, bytes,
                                                 cudaMemcpyDeviceToDevice, cuda_stream)));
    return cuda_done("copy");
  }
  const bool dst64 = dst->scalar_type == FUSED_FLOAT64, src64 = src->scalar_type == FUSED_FLOAT64;
  if (dst64 && src64) launch_copy<double, double>(dst, src, n);
  else if (dst64) launch_copy<double, float>(dst, src, n);
  else if (src64) launch_copy<float, double>(dst, src, n);
  else launch_copy<float, float>(dst, src, n);
  return cuda_done("copy");
}

template <typename T>
__global__ void fill_kernel(T *t, Layout layout, T value, int64_t n) {
  GRID_STRIDE(i, n) t[offset_of(layout, i)] = value;
}

template <typename T> int cuda_fill(fused_tensor *t, double value) {
  const int64_t n = fused_tensor_numel(t);
  fill_kernel<T><<<blocks_for(n), THREADS, 0, cuda_stream>>>((T *)t->data, layout_of(t),
                                                             (T)value, n);
  return cuda_done("fill");
}

template int cuda_fill<float>(fused_tensor *, double);
template int cuda_fill<double>(fused_tensor *, double);

template <typename T> int cuda_read(const char *fn, const fused_tensor *t, std::vector<T> *out) {
  out->resize((size_t)fused_tensor_numel(t));
  FUSED_TRY(cuda_check(fn, cudaMemcpyAsync(out->data(), t->data, out->size() * sizeof(T),
                                           cudaMemcpyDeviceToHost, cuda_stream)));
  return cuda_check(fn, cudaStreamSynchronize(cuda_stream));
}

template int cuda_read<float>(const char *, const fused_tensor *, std::vector<float> *);
template int cuda_read<double>(const char *, const fused_tensor *, std::vector<double> *);
