/* C = A·B (+ C) for a B that many products share: the recurrent weight of the cell engine,
 * used by every step of a sequence. OpenBLAS packs B again on every call; at the engine's
 * per-step shapes (a few to a few dozen rows) that copy, and the zeroing of C before it
 * accumulates, took a fifth of a sequence's time (perf, (B, I, H) = (16, 32, 128)). Here B is
 * packed once per sequence and each call runs only the multiply.
 *
 * Measured side by side (AMD EPYC, AVX2, one thread, float32, rows × GH × H and rows × H × GH
 * for (B, H) = (8 to 64, 64 to 512)): 35 to 39 GFLOP/s where OpenBLAS's sgemm gave 14 to 34
 * (a 1024³ sgemm: 37). For the products over all steps OpenBLAS stays: at (6400, 1536, 256)
 * it gave 33 GFLOP/s, this kernel 26.
 *
 * The packed form: panels of PG_NR = 2 vectors of columns, each panel k rows of PG_NR
 * contiguous elements, the columns past n zero. A tile of PG_MR rows by one panel keeps its
 * 2·PG_MR accumulators in registers (12 of AVX2's 16, 16 of AVX-512's 32) and reads each
 * element of A once. With AVX-512's registers a tile of 8 rows: 8 rows (a thread's share of
 * a batch of 16 on two) ran as 6 + 2 at 74 GFLOP/s, as one tile at 94-102 (AMD EPYC Zen 4,
 * one thread, float32, 8×512×128 and 8×128×512; 16 rows 98-108 either way). */
#include <omp.h>

#define PG_NR (2 * VEC_LANES)
#if VEC_BYTES == 64
#define PG_MR 8
#else
#define PG_MR 6
#endif
/* Below this many multiply-adds per block of k, one thread. */
#define PG_PARALLEL_FLOPS (1 << 20)

/* Elements of the packed form of a k×n B. */
static inline int64_t packed_gemm_size(int64_t k, int64_t n) {
  return (n + PG_NR - 1) / PG_NR * PG_NR * k;
}

/* Packs the k×n B = b (b[kk·ldb + j]) or, with transposed, B = bᵀ for the n×k b
 * (b[j·ldb + kk]); a panel of bᵀ is a transpose (gemm.h). */
static void packed_gemm_pack(scalar_t *bp, const scalar_t *b, int64_t ldb, int64_t k, int64_t n,
                             bool transposed) {
  for (int64_t j0 = 0; j0 < n; j0 += PG_NR, bp += PG_NR * k) {
    const int64_t m = n - j0 < PG_NR ? n - j0 : PG_NR;
    if (transposed) {
      cpu_transpose(bp, PG_NR, b + j0 * ldb, ldb, m, k);
      for (int64_t kk = 0; m < PG_NR && kk < k; kk++)
        memset(bp + kk * PG_NR + m, 0, (size_t)(PG_NR - m) * sizeof(scalar_t));
      continue;
    }
    const int64_t m0 = m < VEC_LANES ? m : VEC_LANES, m1 = m - m0;
    for (int64_t kk = 0; kk < k; kk++) {
      const scalar_t *row = b + kk * ldb + j0;
      vstore(bp + kk * PG_NR, vload(row, m0), VEC_LANES);
      vstore(bp + kk * PG_NR + VEC_LANES, m1 > 0 ? vload(row + VEC_LANES, m1) : vsplat(0),
             VEC_LANES);
    }
  }
}

_Static_assert(PG_MR <= 8, "packed_gemm_panel's cases: one for each remainder");

/* rows (1 to PG_MR, a constant once inlined) rows of C by the first cols columns of a panel,
 * over k: element (i, kk) of A is a[i·rs + kk·ks]. */
__attribute__((always_inline)) static inline void packed_gemm_tile(
    const int rows, int64_t k, const scalar_t *a, int64_t rs, int64_t ks, const scalar_t *panel,
    bool add, scalar_t *c, int64_t ldc, int64_t cols) {
  vec acc0[PG_MR] = {}, acc1[PG_MR] = {};
  for (int64_t kk = 0; kk < k; kk++) {
    const vec b0 = vload(panel + kk * PG_NR, VEC_LANES);
    const vec b1 = vload(panel + kk * PG_NR + VEC_LANES, VEC_LANES);
    for (int i = 0; i < rows; i++) {
      const vec ai = vsplat(a[i * rs + kk * ks]);
      acc0[i] += ai * b0;
      acc1[i] += ai * b1;
    }
  }
  const int64_t m0 = cols < VEC_LANES ? cols : VEC_LANES, m1 = cols - m0;
  for (int i = 0; i < rows; i++) {
    scalar_t *ci = c + i * ldc;
    vstore(ci, add ? acc0[i] + vload(ci, m0) : acc0[i], m0);
    if (m1 > 0) vstore(ci + VEC_LANES, add ? acc1[i] + vload(ci + VEC_LANES, m1) : acc1[i], m1);
  }
}

/* C (m×n, ldc) = A·B, or C += A·B with add, for the m×k A of element (i, kk) at
 * a[i·rs + kk·ks] (rs = lda, ks = 1 for a row-major A; rs = 1, ks = lda for the transpose of
 * a row-major k×m) and bp, B packed by packed_gemm_pack. k in blocks of PG_KC, so that a
 * panel's block stays in the L1 cache for all the tiles that read it; the panels on OpenMP
 * threads when outside a parallel region and there are enough. */
#define PG_KC 256

/* One panel's columns of C over k (the tiles of PG_MR rows, then the rest). */
static void packed_gemm_panel(int64_t m, int64_t k, const scalar_t *a, int64_t rs, int64_t ks,
                              const scalar_t *panel, bool add, scalar_t *c, int64_t ldc,
                              int64_t cols) {
  int64_t i = 0;
  for (; i + PG_MR <= m; i += PG_MR)
    packed_gemm_tile(PG_MR, k, a + i * rs, rs, ks, panel, add, c + i * ldc, ldc, cols);
  a += i * rs, c += i * ldc;
  switch (m - i) {
#if PG_MR > 6
    case 7: packed_gemm_tile(7, k, a, rs, ks, panel, add, c, ldc, cols); break;
    case 6: packed_gemm_tile(6, k, a, rs, ks, panel, add, c, ldc, cols); break;
#endif
    case 5: packed_gemm_tile(5, k, a, rs, ks, panel, add, c, ldc, cols); break;
    case 4: packed_gemm_tile(4, k, a, rs, ks, panel, add, c, ldc, cols); break;
    case 3: packed_gemm_tile(3, k, a, rs, ks, panel, add, c, ldc, cols); break;
    case 2: packed_gemm_tile(2, k, a, rs, ks, panel, add, c, ldc, cols); break;
    case 1: packed_gemm_tile(1, k, a, rs, ks, panel, add, c, ldc, cols); break;
  }
}

static void packed_gemm(int64_t m, int64_t n, int64_t k, const scalar_t *a, int64_t rs,
                        int64_t ks, const scalar_t *bp, bool add, scalar_t *c, int64_t ldc) {
  for (int64_t k0 = 0; k0 < k; k0 += PG_KC) {
    const int64_t kc = k - k0 < PG_KC ? k - k0 : PG_KC;
    const bool acc = add || k0 > 0;
    const bool threads = !omp_in_parallel() && m * n * kc > PG_PARALLEL_FLOPS;
#pragma omp parallel for if (threads)
    for (int64_t j0 = 0; j0 < n; j0 += PG_NR)
      packed_gemm_panel(m, kc, a + k0 * ks, rs, ks, bp + j0 * k + k0 * PG_NR, acc, c + j0, ldc,
                        n - j0 < PG_NR ? n - j0 : PG_NR);
  }
}

/* The kernel as the chooser measures it (gemm_choice.h): B row-major, A row-major (rows lda
 * apart) or, with ta, the transpose of a row-major k×m. */
static int64_t packed_gemm_size_of(int64_t k, int64_t n) { return packed_gemm_size(k, n); }
static void packed_gemm_pack_rows(void *bp, const void *b, int64_t ldb, int64_t k, int64_t n) {
  packed_gemm_pack(bp, b, ldb, k, n, false);
}
static void packed_gemm_rows(int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, bool ta,
                             const void *bp, bool add, void *c, int64_t ldc) {
  packed_gemm(m, n, k, a, ta ? 1 : lda, ta ? lda : 1, bp, add, c, ldc);
}
static const cpu_gemm_packed packed_gemm_kernel = {packed_gemm_size_of, packed_gemm_pack_rows,
                                                   packed_gemm_rows};
