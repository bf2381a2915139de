/* bfloat16 operands and products for the sequence engine (c/cpu/bf16.h). Compiled once with the
 * baseline flags: the functions that run AVX512_BF16 instructions carry their target, and run
 * only where cpu_bf16_native() says so. */
#include "bf16.h"

#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#include "../core/error.h"
#include "../maths/convert.h"

/* Each element rounded by fused_bf16_compute_bits, which CUDA's rounding shares (scalar, the
 * fallback's rounding passes took a fifth of a (16, 32, 128) training step; this loop
 * vectorises). */
typedef uint32_t __attribute__((may_alias)) float_bits;
static inline void round_row(float_bits *d, const float_bits *s, int64_t n) {
  for (int64_t j = 0; j < n; j++) d[j] = fused_bf16_compute_bits(s[j]);
}

static inline void round_rows(float *dst, int64_t ld_dst, const float *src, int64_t ld_src,
                              int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; r++)
    round_row((float_bits *)(dst + r * ld_dst), (const float_bits *)(src + r * ld_src), cols);
}

__attribute__((target("avx2"))) static void round_rows_avx2(float *dst, int64_t ld_dst,
                                                            const float *src, int64_t ld_src,
                                                            int64_t rows, int64_t cols) {
  round_rows(dst, ld_dst, src, ld_src, rows, cols);
}

void cpu_bf16_round(float *dst, int64_t ld_dst, const float *src, int64_t ld_src, int64_t rows,
                    int64_t cols) {
  if (__builtin_cpu_supports("avx2")) round_rows_avx2(dst, ld_dst, src, ld_src, rows, cols);
  else round_rows(dst, ld_dst, src, ld_src, rows, cols);
}

int64_t cpu_bf16_packed_size(int64_t k, int64_t n) { return (n + 31) / 32 * ((k + 1) / 2) * 64; }

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

void cpu_bf16_convert(bf16 *dst, int64_t ld_dst, const float *src, int64_t ld_src,
                      int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; r++) {
    const float *s = src + r * ld_src;
    bf16 *d = dst + r * ld_dst;
    for (int64_t j = 0; j < cols; j += 16) {
      const __mmask16 m = cols - j >= 16 ? 0xffff : (__mmask16)((1u << (cols - j)) - 1);
      const __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, s + j));
      _mm256_mask_storeu_epi16(d + j, m, (__m256i)v);
    }
    if ((cols & 1) && ld_dst > cols) d[cols] = 0; /* the pair a packed product reads */
  }
}

/* Panel j0 holds, for each pair p of k, 64 elements: column j's (B[2p][j], B[2p + 1][j]) for
 * j = 0..31, zero past k and n. Converted 32 elements at a time; B as it lies has the pair's
 * two rows interleaved by a permutation of words, Bᵀ (b n×k) has each pair side by side in a
 * row of b, stored as one 32-bit word. (Element by element, the packing took 6% of a
 * (16, 32, 128) LSTM step.) */
static inline __mmask16 first_lanes(int64_t n) {
  return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1);
}

static inline __m512i converted(const float *row, int64_t n) {
  const __m512 lo = _mm512_maskz_loadu_ps(first_lanes(n), row);
  const __m512 hi = n > 16 ? _mm512_maskz_loadu_ps(first_lanes(n - 16), row + 16)
                           : _mm512_setzero_ps();
  return (__m512i)_mm512_cvtne2ps_pbh(hi, lo); /* words 0..15 from lo, 16..31 from hi */
}

void cpu_bf16_pack(bf16 *bp, const float *b, int64_t ldb, int64_t k, int64_t n, bool transposed) {
  const int64_t pairs = (k + 1) / 2;
  uint16_t lo_idx[32], hi_idx[32];
  for (int j = 0; j < 16; j++) {
    lo_idx[2 * j] = (uint16_t)j, lo_idx[2 * j + 1] = (uint16_t)(32 + j);
    hi_idx[2 * j] = (uint16_t)(16 + j), hi_idx[2 * j + 1] = (uint16_t)(48 + j);
  }
  const __m512i lo_perm = _mm512_loadu_si512(lo_idx), hi_perm = _mm512_loadu_si512(hi_idx);
  for (int64_t j0 = 0; j0 < n; j0 += 32, bp += pairs * 64) {
    const int64_t cols = n - j0 < 32 ? n - j0 : 32;
    if (transposed) {
      if (cols < 32) memset(bp, 0, (size_t)(pairs * 64) * sizeof(bf16));
      for (int64_t j = 0; j < cols; j++) {
        const float *row = b + (j0 + j) * ldb;
        for (int64_t kk = 0; kk < k; kk += 32) {
          uint32_t w[16];
          _mm512_storeu_si512(w, converted(row + kk, k - kk));
          const int64_t np = (k - kk < 32 ? k - kk + 1 : 32) / 2;
          for (int64_t q = 0; q < np; q++) memcpy(bp + (kk / 2 + q) * 64 + j * 2, &w[q], 4);
        }
      }
      continue;
    }
    for (int64_t p = 0; p < pairs; p++) {
      const __m512i r0 = converted(b + 2 * p * ldb + j0, cols);
      const __m512i r1 = 2 * p + 1 < k ? converted(b + (2 * p + 1) * ldb + j0, cols)
                                       : _mm512_setzero_si512();
      _mm512_storeu_si512(bp + p * 64, _mm512_permutex2var_epi16(r0, lo_perm, r1));
      _mm512_storeu_si512(bp + p * 64 + 32, _mm512_permutex2var_epi16(r0, hi_perm, r1));
    }
  }
}

/* rows (1 to PB_MR, a constant once inlined) rows of C by one panel's first cols columns, over
 * `pairs` pairs of k: 2·rows accumulators of 16 lanes in registers, A's pair broadcast. */
#define PB_MR 8
__attribute__((always_inline)) static inline void packed_tile(const int rows, int64_t pairs,
                                                              const bf16 *a, int64_t lda,
                                                              const bf16 *panel, bool add,
                                                              float *c, int64_t ldc, int64_t cols) {
  __m512 acc0[PB_MR], acc1[PB_MR];
  for (int i = 0; i < rows; i++) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int64_t p = 0; p < pairs; p++) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(panel + p * 64);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(panel + p * 64 + 32);
    for (int i = 0; i < rows; i++) {
      uint32_t pair;
      memcpy(&pair, a + i * lda + 2 * p, sizeof pair);
      const __m512bh ai = (__m512bh)_mm512_set1_epi32((int)pair);
      acc0[i] = _mm512_dpbf16_ps(acc0[i], ai, b0);
      acc1[i] = _mm512_dpbf16_ps(acc1[i], ai, b1);
    }
  }
  const __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? 0xffff : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0;
  for (int i = 0; i < rows; i++) {
    float *ci = c + i * ldc;
    if (add) {
      acc0[i] = _mm512_add_ps(acc0[i], _mm512_maskz_loadu_ps(m0, ci));
      acc1[i] = _mm512_add_ps(acc1[i], _mm512_maskz_loadu_ps(m1, ci + 16));
    }
    _mm512_mask_storeu_ps(ci, m0, acc0[i]);
    _mm512_mask_storeu_ps(ci + 16, m1, acc1[i]);
  }
}

static void packed_panel(int64_t m, int64_t pairs, const bf16 *a, int64_t lda, const bf16 *panel,
                         bool add, float *c, int64_t ldc, int64_t cols) {
  int64_t i = 0;
  for (; i + PB_MR <= m; i += PB_MR)
    packed_tile(PB_MR, pairs, a + i * lda, lda, panel, add, c + i * ldc, ldc, cols);
  a += i * lda, c += i * ldc;
  switch (m - i) {
    case 7: packed_tile(7, pairs, a, lda, panel, add, c, ldc, cols); break;
    case 6: packed_tile(6, pairs, a, lda, panel, add, c, ldc, cols); break;
    case 5: packed_tile(5, pairs, a, lda, panel, add, c, ldc, cols); break;
    case 4: packed_tile(4, pairs, a, lda, panel, add, c, ldc, cols); break;
    case 3: packed_tile(3, pairs, a, lda, panel, add, c, ldc, cols); break;
    case 2: packed_tile(2, pairs, a, lda, panel, add, c, ldc, cols); break;
    case 1: packed_tile(1, pairs, a, lda, panel, add, c, ldc, cols); break;
  }
}

/* k in blocks of PB_KC pairs, so that a panel's block (PB_KC·128 bytes) stays in the L1 cache
 * for every tile that reads it. */
#define PB_KC 128
void cpu_bf16_packed_gemm(int64_t m, int64_t n, int64_t k, const bf16 *a, int64_t lda,
                          const bf16 *bp, bool add, float *c, int64_t ldc) {
  const int64_t pairs = (k + 1) / 2;
  for (int64_t p0 = 0; p0 < pairs; p0 += PB_KC) {
    const int64_t kc = pairs - p0 < PB_KC ? pairs - p0 : PB_KC;
    for (int64_t j0 = 0; j0 < n; j0 += 32)
      packed_panel(m, kc, a + 2 * p0, lda, bp + j0 / 32 * pairs * 64 + p0 * 64, add || p0 > 0,
                   c + j0, ldc, n - j0 < 32 ? n - j0 : 32);
  }
}
#pragma GCC pop_options

#ifdef FUSED_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

/* oneDNN's matmul primitive for one shape, strides and beta; creating one costs about a
 * millisecond, so they are kept (the engine asks for a handful of shapes per model). */
typedef struct {
  int64_t key[9];
  dnnl_primitive_t prim;
  dnnl_memory_desc_t md[3];
} matmul_entry;

#define MATMUL_CACHE 64
static matmul_entry cache[MATMUL_CACHE];
static int cached, evict;
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int dnnl_failed(const char *fn, const char *what, dnnl_status_t s) {
  return fused_error("%s: oneDNN's bfloat16 matmul failed (%s: status %d)", fn, what, (int)s);
}

#define DNNL_TRY(fn, call)                              \
  do {                                                  \
    const dnnl_status_t s_ = (call);                    \
    if (s_ != dnnl_success) return dnnl_failed(fn, #call, s_); \
  } while (0)

static int matmul_create(const char *fn, matmul_entry *e, const int64_t *key) {
  const int64_t ta = key[0], tb = key[1], m = key[2], n = key[3], k = key[4];
  const int64_t lda = key[5], ldb = key[6], ldc = key[7], sum = key[8];
  if (!engine) {
    DNNL_TRY(fn, dnnl_engine_create(&engine, dnnl_cpu, 0));
    DNNL_TRY(fn, dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
  }
  dnnl_dims_t da = {m, k}, db = {k, n}, dc = {m, n};
  dnnl_dims_t sa = {ta ? 1 : lda, ta ? lda : 1}, sb = {tb ? 1 : ldb, tb ? ldb : 1}, sc = {ldc, 1};
  DNNL_TRY(fn, dnnl_memory_desc_init_by_strides(&e->md[0], 2, da, dnnl_bf16, sa));
  DNNL_TRY(fn, dnnl_memory_desc_init_by_strides(&e->md[1], 2, db, dnnl_bf16, sb));
  DNNL_TRY(fn, dnnl_memory_desc_init_by_strides(&e->md[2], 2, dc, dnnl_f32, sc));
  dnnl_matmul_desc_t desc;
  DNNL_TRY(fn, dnnl_matmul_desc_init(&desc, &e->md[0], &e->md[1], NULL, &e->md[2]));
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t ops = NULL;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_status_t s = dnnl_primitive_attr_create(&attr);
  if (s == dnnl_success && sum) {
    s = dnnl_post_ops_create(&ops);
    if (s == dnnl_success) s = dnnl_post_ops_append_sum(ops, 1.0f);
    if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(attr, ops);
  }
  if (s == dnnl_success) s = dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL);
  if (s == dnnl_success) s = dnnl_primitive_create(&e->prim, pd);
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (ops) dnnl_post_ops_destroy(ops);
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success) return dnnl_failed(fn, "creating the primitive", s);
  memcpy(e->key, key, sizeof e->key);
  return 0;
}

static int matmul_run(const char *fn, const int64_t *key, const void *a, const void *b, float *c) {
  matmul_entry *e = NULL;
  for (int i = 0; i < cached && !e; i++)
    if (!memcmp(cache[i].key, key, sizeof cache[i].key)) e = &cache[i];
  if (!e) {
    if (cached < MATMUL_CACHE) {
      e = &cache[cached];
    } else {
      e = &cache[evict];
      evict = (evict + 1) % MATMUL_CACHE;
      dnnl_primitive_destroy(e->prim);
    }
    e->prim = NULL;
    if (matmul_create(fn, e, key)) {
      if (e == &cache[cached]) return -1;
      memset(e->key, 0xff, sizeof e->key); /* an evicted slot left empty: no shape matches */
      return -1;
    }
    if (e == &cache[cached]) cached++;
  }
  dnnl_memory_t mem[3] = {NULL, NULL, NULL};
  void *ptr[3] = {(void *)a, (void *)b, c};
  dnnl_status_t s = dnnl_success;
  for (int i = 0; i < 3 && s == dnnl_success; i++)
    s = dnnl_memory_create(&mem[i], &e->md[i], engine, ptr[i]);
  if (s == dnnl_success) {
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, mem[0]}, {DNNL_ARG_WEIGHTS, mem[1]}, {DNNL_ARG_DST, mem[2]}};
    s = dnnl_primitive_execute(e->prim, stream, 3, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream);
  }
  for (int i = 0; i < 3; i++)
    if (mem[i]) dnnl_memory_destroy(mem[i]);
  return s == dnnl_success ? 0 : dnnl_failed(fn, "executing", s);
}

int cpu_bf16_gemm(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const bf16 *a,
                  int64_t lda, const bf16 *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  const int64_t key[9] = {ta, tb, m, n, k, lda, ldb, ldc, beta != 0};
  pthread_mutex_lock(&lock);
  const int status = matmul_run(fn, key, a, b, c);
  pthread_mutex_unlock(&lock);
  return status;
}
#else
int cpu_bf16_gemm(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const bf16 *a,
                  int64_t lda, const bf16 *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  return fused_error("%s: built without oneDNN, so no native bfloat16 products", fn);
}
#endif
