/* The CPU kernels' general helpers around the GEMM providers: a transpose, scratch memory, and
 * a row-major GEMM on int64_t sizes. */
#include <omp.h>
#include <stdlib.h>

/* The VEC_LANES×VEC_LANES block at src transposed into dst, in registers: log2(VEC_LANES)
 * rounds in which rows i and i + L/2 interleave into rows 2i (their low halves) and 2i + 1
 * (their high halves). A third of the instructions of the scalar copy per element, which
 * made the sequence engine's per-call weight transposes cost more than a one-step GEMM. */
static inline void cpu_transpose_block(scalar_t *dst, int64_t ld_dst, const scalar_t *src,
                                       int64_t ld_src) {
  enum { L = VEC_LANES };
  ubits lo, hi;
  for (int i = 0; i < L / 2; i++) {
    lo[2 * i] = i, lo[2 * i + 1] = i + L;
    hi[2 * i] = i + L / 2, hi[2 * i + 1] = i + L / 2 + L;
  }
  vec r[L], t[L];
  for (int i = 0; i < L; i++) r[i] = vload(src + i * ld_src, L);
  for (int round = 1; round < L; round *= 2) {
    for (int i = 0; i < L / 2; i++) {
      t[2 * i] = __builtin_shuffle(r[i], r[i + L / 2], lo);
      t[2 * i + 1] = __builtin_shuffle(r[i], r[i + L / 2], hi);
    }
    for (int i = 0; i < L; i++) r[i] = t[i];
  }
  for (int i = 0; i < L; i++) vstore(dst + i * ld_dst, r[i], L);
}

/* dst[c * ld_dst + r] = src[r * ld_src + c] for a rows×cols src: whole blocks in registers,
 * the edges element by element. */
static void cpu_transpose(scalar_t *dst, int64_t ld_dst, const scalar_t *src, int64_t ld_src,
                          int64_t rows, int64_t cols) {
  int64_t r0 = 0;
  for (; r0 + VEC_LANES <= rows; r0 += VEC_LANES) {
    int64_t c0 = 0;
    for (; c0 + VEC_LANES <= cols; c0 += VEC_LANES)
      cpu_transpose_block(dst + c0 * ld_dst + r0, ld_dst, src + r0 * ld_src + c0, ld_src);
    for (int64_t c = c0; c < cols; c++)
      for (int64_t r = r0; r < r0 + VEC_LANES; r++) dst[c * ld_dst + r] = src[r * ld_src + c];
  }
  for (int64_t c = 0; c < cols && r0 < rows; c++)
    for (int64_t r = r0; r < rows; r++) dst[c * ld_dst + r] = src[r * ld_src + c];
}

/* n elements, or NULL with the error set (naming fn). Not inlined: GCC then no longer sees
 * fresh malloc memory handed to BLAS before the loops that fill it, and stops warning that it
 * may be read uninitialised. */
__attribute__((noinline)) static scalar_t *cpu_scratch(const char *fn, int64_t n) {
  scalar_t *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(scalar_t)); /* malloc(0) may be NULL */
  if (!p) fused_error("%s: out of memory for %lld elements of scratch", fn, (long long)n);
  return p;
}

/* The threads a product issued here runs on: one inside a parallel region. */
static inline int cpu_gemm_threads(void) { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

/* c (m×n) = alpha·op(a)·op(b) + beta·c, row-major, on the provider the chooser picks for the
 * shape (c/cpu/gemm_choice.h); BLAS takes int sizes (the ops check they fit). */
static void cpu_gemm_scaled(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m,
                            int64_t n, int64_t k, scalar_t alpha, const scalar_t *a, int64_t lda,
                            const scalar_t *b, int64_t ldb, scalar_t beta, scalar_t *c,
                            int64_t ldc) {
  const bool at = ta == CblasTrans, bt = tb == CblasTrans;
  cpu_blas_gemm(cpu_gemm_choose(SCALAR_IS_FLOAT64, at, bt, m, n, k, cpu_gemm_threads(), NULL),
                at, bt, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void cpu_gemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                     int64_t k, const scalar_t *a, int64_t lda, const scalar_t *b, int64_t ldb,
                     scalar_t beta, scalar_t *c, int64_t ldc) {
  cpu_gemm_scaled(ta, tb, m, n, k, 1, a, lda, b, ldb, beta, c, ldc);
}

/* c (m×n, ldc) = a·wᵀ for a m×k (lda) and w n×k (ldw), computed as cᵀ = w·aᵀ: at a few rows
 * OpenBLAS runs this "NT" product at about half the speed of "NN" (one thread, float32,
 * 16×384×128: 23.5 against 13.5 µs), and transposing a and c costs less than re-laying out
 * w when w serves one product. From CPU_GEMM_NT_ROWS rows the NT product runs as it is: at
 * 64×1536×768 the transposes cost the one-step LLTM cell 4%. scratch: m·(k + n) elements. */
#define CPU_GEMM_NT_ROWS 32
static void cpu_gemm_nt(int64_t m, int64_t n, int64_t k, const scalar_t *a, int64_t lda,
                        const scalar_t *w, int64_t ldw, scalar_t *c, int64_t ldc,
                        scalar_t *scratch) {
  if (m >= CPU_GEMM_NT_ROWS) {
    cpu_gemm(CblasNoTrans, CblasTrans, m, n, k, a, lda, w, ldw, 0, c, ldc);
    return;
  }
  scalar_t *at = scratch, *ct = scratch + k * m;
  cpu_transpose(at, m, a, lda, m, k);
  cpu_gemm(CblasNoTrans, CblasNoTrans, n, m, k, w, ldw, at, m, 0, ct, m);
  cpu_transpose(c, ldc, ct, m, n, m);
}
