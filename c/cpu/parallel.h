/* When a loop is worth OpenMP threads: below this many elements a pointwise loop finishes
 * in a few microseconds and waking threads costs more than it saves. */
#ifndef FUSED_PARALLEL_H
#define FUSED_PARALLEL_H

#define PARALLEL_MIN_ELEMENTS 32768

/* for (int64_t i = 0; i < n; i++) BODY, on OpenMP threads only when n is large: an OpenMP
 * region with a false if() clause still costs a runtime call (~0.3 µs per op measured). */
#define PARALLEL_FOR(n, i, BODY)                                       \
  do {                                                                 \
    const int64_t n_ = (n);                                            \
    if (n_ > PARALLEL_MIN_ELEMENTS) {                                  \
      _Pragma("omp parallel for simd") for (int64_t i = 0; i < n_; i++) BODY \
    } else {                                                           \
      _Pragma("omp simd") for (int64_t i = 0; i < n_; i++) BODY        \
    }                                                                  \
  } while (0)

#endif
