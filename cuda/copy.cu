/* Copies: within the device with any strides and dtypes (cuda_convert, the ANY_DTYPE kernel of
 * dst's dtype), or between the host and the device. */
#include <climits>
#include <type_traits>

#include "common.cuh"
#include "../c/core/check.h"
#include "../c/maths/convert.h"

/* A floating value becomes an int64 only when it fits (maths/convert.h): the first linear
 * index that does not is kept in *first_bad (ULLONG_MAX when none). */
template <typename D, typename S>
constexpr bool checks_fits =
    std::is_same<D, int64_t>::value &&
    (std::is_floating_point<S>::value || !std::is_same<decltype(fused_value(S())), S>::value);

template <typename D, typename S>
__global__ void convert_kernel(D *dst, Layout dst_layout, const S *src, Layout src_layout,
                               int64_t n, unsigned long long *first_bad) {
  GRID_STRIDE(i, n) {
    const S v = src[offset_of(src_layout, i)];
    if (checks_fits<D, S> && !fits_int64((double)fused_value(v))) {
      atomicMin(first_bad, (unsigned long long)i);
      continue;
    }
    dst[offset_of(dst_layout, i)] = fused_convert<D>(v);
  }
}

template <typename D, typename S>
static int launch_convert(fused_tensor *dst, const fused_tensor *src) {
  const int64_t n = fused_tensor_numel(dst);
  const Layout dst_layout = layout_of(dst), src_layout = layout_of(src);
  if (!checks_fits<D, S>) {
    FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, convert_kernel<D, S>)(
        (D *)dst->data, dst_layout, (const S *)src->data, src_layout, n, NULL);
    return cuda_done("copy");
  }
  Scratch flag("copy", sizeof(unsigned long long));
  if (!flag.ptr) return -1;
  unsigned long long first_bad = ULLONG_MAX;
  FUSED_TRY(cuda_check("copy", cudaMemcpyAsync(flag.ptr, &first_bad, sizeof first_bad,
                                               cudaMemcpyHostToDevice, cuda_stream)));
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, convert_kernel<D, S>)(
      (D *)dst->data, dst_layout, (const S *)src->data, src_layout, n,
      flag.as<unsigned long long>());
  FUSED_TRY(cuda_check("copy", cudaGetLastError()));
  FUSED_TRY(cuda_check("copy", cudaMemcpyAsync(&first_bad, flag.ptr, sizeof first_bad,
                                               cudaMemcpyDeviceToHost, cuda_stream)));
  FUSED_TRY(cuda_check("copy", cudaStreamSynchronize(cuda_stream)));
  if (first_bad == ULLONG_MAX) return 0;
  S v;
  FUSED_TRY(cuda_check("copy", cudaMemcpy(&v, (const S *)src->data +
                                                  offset_of(src_layout, (int64_t)first_bad),
                                          sizeof v, cudaMemcpyDeviceToHost)));
  return convert_error((double)fused_value(v), (int64_t)first_bad + 1);
}

template <typename T> int cuda_convert(fused_tensor *dst, const fused_tensor *src) {
#define FUSED_CUDA_CONVERT_FROM(id, ctype, ...) \
  case id: return launch_convert<T, ctype>(dst, src);
  switch (src->scalar_type) {
    FUSED_DTYPES(FUSED_CUDA_CONVERT_FROM)
    default: return fused_error("copy: argument 'src' has an unknown dtype %d", src->scalar_type);
  }
#undef FUSED_CUDA_CONVERT_FROM
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
  return cuda_kernels[dst->scalar_type].convert(dst, src);
}

int cuda_read(const char *fn, const fused_tensor *t, std::vector<int64_t> *out) {
  out->resize((size_t)fused_tensor_numel(t));
  FUSED_TRY(cuda_check(fn, cudaMemcpyAsync(out->data(), t->data, out->size() * sizeof(int64_t),
                                           cudaMemcpyDeviceToHost, cuda_stream)));
  return cuda_check(fn, cudaStreamSynchronize(cuda_stream));
}

FUSED_KERNELS_COPY(FUSED_CUDA_INSTANTIATE_ALL)
