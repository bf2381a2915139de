/* dst = src converted to scalar_t (dst's dtype): src of any dtype on the CPU, any strides, one
 * shape. C's conversions (the 16-bit types' are maths/convert.h's), except that a floating value becomes an int64 only when it fits
 * (maths/convert.h): the error names the first that does not, counted in row-major order. */
#include "../../maths/convert.h"

#define CONVERT_CHECKS_FITS(src_floating) (src_floating && !SCALAR_IS_FLOATING && sizeof(scalar_t) == 8)

#define CONVERT_FROM(id, SRC_T, name, npy, safetensors, src_floating, ...)                   \
  case id:                                                                                   \
    do {                                                                                     \
      const SRC_T *s = (const SRC_T *)src->data + it.offset[1];                              \
      for (int64_t i = 0; i < it.inner; i++) {                                               \
        const SRC_T v = s[i * it.inner_stride[1]];                                           \
        if (CONVERT_CHECKS_FITS(src_floating) && !fits_int64((double)fused_value(v)))        \
          return convert_error((double)fused_value(v), position + i + 1);                    \
        d[i * it.inner_stride[0]] = SCALAR_OF(fused_value(v));                               \
      }                                                                                      \
    } while (0);                                                                             \
    break;

static int convert(fused_tensor *dst, const fused_tensor *src) {
  strided_iter it;
  strided_iter_init(&it, dst, src, NULL);
  int64_t position = 0;
  do {
    scalar_t *d = (scalar_t *)dst->data + it.offset[0];
    switch (src->scalar_type) {
      FUSED_DTYPES(CONVERT_FROM)
      default: return fused_error("copy: argument 'src' has an unknown dtype %d", src->scalar_type);
    }
    position += it.inner;
  } while (strided_iter_next(&it));
  return 0;
}
#undef CONVERT_FROM
#undef CONVERT_CHECKS_FITS
