/* The CPU kernels' general helpers around OpenBLAS: a cache-tiled transpose, scratch memory,
 * and a row-major GEMM on int64_t sizes. */
#include <stdlib.h>

/* dst[c * ld_dst + r] = src[r * ld_src + c] for a rows×cols src, in tiles that stay in cache. */
static void cpu_transpose(scalar_t *dst, int64_t ld_dst, const scalar_t *src, int64_t ld_src,
                          int64_t rows, int64_t cols) {
  enum { TILE = 16 };
  for (int64_t r0 = 0; r0 < rows; r0 += TILE)
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {
      const int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
      const int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
      for (int64_t c = c0; c < c1; c++)
        for (int64_t r = r0; r < r1; r++) dst[c * ld_dst + r] = src[r * ld_src + c];
    }
}

/* n elements, or NULL with the error set (naming fn). Not inlined: GCC then no longer sees
 * fresh malloc memory handed to BLAS before the loops that fill it, and stops warning that it
 * may be read uninitialised. */
__attribute__((noinline)) static scalar_t *cpu_scratch(const char *fn, int64_t n) {
  scalar_t *p = malloc((size_t)n * sizeof(scalar_t));
  if (!p) fused_error("%s: out of memory for %lld elements of scratch", fn, (long long)n);
  return p;
}

/* c (m×n) = op(a)·op(b) + beta·c, row-major; BLAS takes int sizes (the ops check they fit). */
static void cpu_gemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                     int64_t k, const scalar_t *a, int64_t lda, const scalar_t *b, int64_t ldb,
                     scalar_t beta, scalar_t *c, int64_t ldc) {
  cblas_gemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1, a, (int)lda, b, (int)ldb, beta, c,
             (int)ldc);
}
