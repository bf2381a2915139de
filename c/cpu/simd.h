/* The CPU's vectors: GCC vector extensions of scalar_t, as wide as the capability the file is
 * compiled for (512 bits under -mavx512f, 256 under -mavx2, else 128: SSE2 on x86-64, and
 * GCC lowers them to whatever another target has). Kernels written over `vec` are vectorised
 * by construction rather than by the auto-vectoriser, which gave up on every loop with a
 * select in it under AVX2 (it may not speculate a trapping float operation without AVX-512's
 * masks). The Makefile compiles the kernel files once per capability (c/cpu/capability.c).
 * Included by generic/kernels.h once per floating dtype, after scalar_t, and by fused_simd.h
 * for both in one file (an extension's). vsplat and vlanes are macros over the `vec` and
 * scalar_t in scope, so that they serve either way. */
#include <stdint.h>
#include <string.h>

#if defined(__AVX512F__)
#define VEC_BYTES 64
#elif defined(__AVX2__)
#define VEC_BYTES 32
#else
#define VEC_BYTES 16
#endif
#define VEC_LANES ((int64_t)(VEC_BYTES / sizeof(scalar_t)))

typedef scalar_t vec __attribute__((vector_size(VEC_BYTES)));
/* The same lanes as unsigned integers, for the bit operations; comparisons give vmask (0 or
 * all ones per lane). */
typedef __typeof__(_Generic((scalar_t)0, float: (uint32_t)0, default: (uint64_t)0)) lane_bits;
typedef lane_bits ubits __attribute__((vector_size(VEC_BYTES)));
typedef __typeof__((vec){} < (vec){}) vmask;

#define VEC_SIGN ((lane_bits)1 << (8 * sizeof(scalar_t) - 1))

/* s − 0 is s for every s (0 + s is not, for −0): GCC then broadcasts s with no add. */
#define vsplat(s) ((scalar_t)(s) - (vec){})

/* The first n (1 to VEC_LANES) elements at p; the other lanes are zero. A whole vector is one
 * unaligned load: a memcpy of variable size is a byte loop, 1.4x the instructions of the
 * scalar code it replaced (callgrind). */
static inline vec vload(const scalar_t *p, int64_t n) {
  vec v = {};
  if (n == VEC_LANES) memcpy(&v, p, sizeof v);
  else memcpy(&v, p, (size_t)n * sizeof(scalar_t));
  return v;
}

static inline void vstore(scalar_t *p, vec v, int64_t n) {
  if (n == VEC_LANES) memcpy(p, &v, sizeof v);
  else memcpy(p, &v, (size_t)n * sizeof(scalar_t));
}

/* How many lanes the step at element i of n uses: all but in the last. */
#define vlanes(i, n) ((n) - (i) < VEC_LANES ? (n) - (i) : VEC_LANES)

/* for (i = 0; i < n; i += VEC_LANES) { body }, with m the lanes in use (vlanes): the whole
 * vectors in one loop, where m is the constant VEC_LANES and every vload and vstore one
 * instruction, then the partial one, if any. The body is the variadic part so that its commas
 * need no parentheses. */
#define VEC_FOR(n, i, m, ...)                                 \
  {                                                           \
    const int64_t vec_for_n_ = (n);                           \
    int64_t i = 0;                                            \
    for (; i + VEC_LANES <= vec_for_n_; i += VEC_LANES) {     \
      const int64_t m = VEC_LANES;                            \
      __VA_ARGS__                                             \
    }                                                         \
    if (i < vec_for_n_) {                                     \
      const int64_t m = vec_for_n_ - i;                       \
      __VA_ARGS__                                             \
    }                                                         \
  }

/* mask ? a : b per lane. */
static inline vec vselect(vmask mask, vec a, vec b) {
  return (vec)(((ubits)mask & (ubits)a) | (~(ubits)mask & (ubits)b));
}

static inline vec vabs(vec v) { return (vec)((ubits)v & ~VEC_SIGN); }

/* |magnitude| with sign's sign bit. */
static inline vec vcopysign(vec magnitude, vec sign) {
  return (vec)(((ubits)magnitude & ~VEC_SIGN) | ((ubits)sign & VEC_SIGN));
}

/* The lanes of the shared maths (c/maths/hd.h) on the CPU: these vectors. */
#define lane_t vec
#define lane_select vselect
#define lane_splat vsplat
#define lane_load vload
#define lane_store vstore
#define m_abs vabs
#define m_copysign vcopysign

/* VEC_FOR on OpenMP threads when n is large (parallel.h). */
#define PARALLEL_VEC_FOR(n, i, m, ...)                                         \
  do {                                                                         \
    const int64_t vn_ = (n);                                                   \
    if (vn_ > PARALLEL_MIN_ELEMENTS) {                                         \
      _Pragma("omp parallel for") for (int64_t i = 0; i < vn_; i += VEC_LANES) { \
        const int64_t m = vlanes(i, vn_);                                      \
        __VA_ARGS__                                                            \
      }                                                                        \
    } else {                                                                   \
      VEC_FOR(vn_, i, m, __VA_ARGS__)                                          \
    }                                                                          \
  } while (0)
