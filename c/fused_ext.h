/* Writing your own op or cell against libfused (docs/extending.md): what torch/extension.h
 * gives a PyTorch extension, for C. An extension's functions take fused_tensor pointers and
 * return 0, or -1 with fused_error's message, which fused.ext.check raises in Lua.
 *
 * fused.ext.load passes -I to this header's folder (c/ in a checkout, $(PREFIX)/include/fused
 * once installed) and links -lfused. */
#ifndef FUSED_EXT_H
#define FUSED_EXT_H

#include "fused.h"
#ifndef __cplusplus
#include "fused_simd.h" /* vec, vload, sigmoid_of, ...: fused's cells' steps over vectors */
#include <math.h>       /* FUSED_LANEWISE */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the message of fused_last_error() and returns -1: return fused_error("myop: ..."). */
int fused_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Argument checks: each returns 0, or sets an error naming the function (fn), the argument
 * (arg), what was expected and what came, and returns -1; so FUSED_TRY(fused_check_...). */
int fused_check_tensor(const char *fn, const char *arg, const fused_tensor *t);
int fused_check_contiguous(const char *fn, const char *arg, const fused_tensor *t);
int fused_check_dtype(const char *fn, const char *arg, const fused_tensor *t, int32_t dtype);
int fused_check_device(const char *fn, const char *arg, const fused_tensor *t, int32_t device);
/* ndim dims of the given sizes. */
int fused_check_shape(const char *fn, const char *arg, const fused_tensor *t, int32_t ndim,
                      const int64_t *sizes);
/* ref's shape, dtype and device (ref_arg names ref). */
int fused_check_like(const char *fn, const char *arg, const fused_tensor *t, const char *ref_arg,
                     const fused_tensor *ref);

#define FUSED_TRY(expr)         \
  do {                          \
    if ((expr) != 0) return -1; \
  } while (0)

/* A tensor's parts (the struct's fields, named). */
static inline int32_t fused_dtype_of(const fused_tensor *t) { return t->scalar_type; }
static inline int32_t fused_device_of(const fused_tensor *t) { return t->device_type; }
static inline int64_t fused_size(const fused_tensor *t, int32_t dim) { return t->sizes[dim]; }
static inline int64_t fused_stride(const fused_tensor *t, int32_t dim) { return t->strides[dim]; }
/* The first element as a scalar_t pointer: FUSED_DATA(t, float). */
#define FUSED_DATA(t, scalar_t) ((scalar_t *)(t)->data)

/* Runs the statements with scalar_t = float or double after t's dtype (PyTorch's
 * AT_DISPATCH_FLOATING_TYPES); another dtype returns fn's error naming arg. */
#define FUSED_DISPATCH_FLOATING(fn, arg, t, ...)                                               \
  do {                                                                                         \
    switch ((t)->scalar_type) {                                                                \
      case FUSED_FLOAT32: {                                                                    \
        typedef float scalar_t;                                                                \
        __VA_ARGS__                                                                            \
      } break;                                                                                 \
      case FUSED_FLOAT64: {                                                                    \
        typedef double scalar_t;                                                               \
        __VA_ARGS__                                                                            \
      } break;                                                                                 \
      default:                                                                                 \
        return fused_error("%s: argument '%s' expected dtype float32 or float64, got %s", fn,  \
                           arg, fused_dtype_info_of((t)->scalar_type)->name);                  \
    }                                                                                          \
  } while (0)

#ifndef __cplusplus
/* A custom cell's steps (fused_cell_def in fused.h), one body for both dtypes over scalar_t,
 * its vector `vec` (fused_simd.h) and the parameters H, s, gh, b_ih, b_hh, c, h_next, out
 * (forward) or H, s, d_out, dh, dc (backward): defines name_forward_f32/_f64 and
 * name_backward_f32/_f64, the symbols that fused.ext.cell looks up. The same body compiled as
 * CUDA defines the device steps instead (fused_cell_cuda.h). */
#define FUSED_CELL_FORWARD(name, ...)                                                          \
  void name##_forward_f32(int64_t H, float *s, const float *gh, const float *b_ih,             \
                          const float *b_hh, float *c, float *h_next, float *out) {            \
    typedef float scalar_t;                                                                    \
    typedef vec_f32 vec __attribute__((unused));                                               \
    __VA_ARGS__                                                                                \
  }                                                                                            \
  void name##_forward_f64(int64_t H, double *s, const double *gh, const double *b_ih,          \
                          const double *b_hh, double *c, double *h_next, double *out) {        \
    typedef double scalar_t;                                                                   \
    typedef vec_f64 vec __attribute__((unused));                                               \
    __VA_ARGS__                                                                                \
  }
#define FUSED_CELL_BACKWARD(name, ...)                                                         \
  void name##_backward_f32(int64_t H, float *s, const float *d_out, float *dh, float *dc) {    \
    typedef float scalar_t;                                                                    \
    typedef vec_f32 vec __attribute__((unused));                                               \
    __VA_ARGS__                                                                                \
  }                                                                                            \
  void name##_backward_f64(int64_t H, double *s, const double *d_out, double *dh, double *dc) { \
    typedef double scalar_t;                                                                   \
    typedef vec_f64 vec __attribute__((unused));                                               \
    __VA_ARGS__                                                                                \
  }

/* exp, log, log1p or sqrt (fn) of any argument, lane by lane through libm (fused_simd.h's exp
 * takes arguments <= 0 only); softplus, max(x, 0) + log1p(exp(-|x|)), without overflow. */
#define FUSED_LANEWISE(fn, x)                                                                  \
  ({                                                                                           \
    const __typeof__(x) x_ = (x);                                                              \
    __typeof__(x) r_ = x_;                                                                     \
    for (int64_t l_ = 0; l_ < (int64_t)(sizeof r_ / sizeof r_[0]); l_++)                       \
      r_[l_] = _Generic(r_[0], float: fn##f, default: fn)(x_[l_]);                             \
    r_;                                                                                        \
  })
#define FUSED_SOFTPLUS(x)                                                                      \
  ({                                                                                           \
    const __typeof__(x) y_ = (x);                                                              \
    vselect(y_ > 0, y_, vsplat(0)) + FUSED_LANEWISE(log1p, vexp_nonpos(-vabs(y_)));            \
  })
#endif

/* CUDA code: the stream fused's kernels run on and its cuBLAS handle (a cudaStream_t and a
 * cublasHandle_t), from libfused_cuda.so; NULL before a device is initialised. */
void *fused_cuda_stream(void);
void *fused_cuda_blas(void);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__) || defined(FUSED_CUDA_EMULATED)
#include "fused_cell_cuda.h"
#endif
#endif
