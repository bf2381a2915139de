/* The linear-recurrence engine (fused_linear_scan, c/fused.h has the layout), vectorised across
 * channels. A piece is up to SCAN_CHUNK channels of one batch row; each thread takes a run of
 * adjacent pieces and walks the steps in its outer loop, its pieces in the inner one, so that
 * it sweeps a, b and h in memory order (one step of all rows is contiguous), as a memcpy does.
 * The state it carries from step to step (forward: h; backward: d_b) stays in a carry, in
 * cache whatever happens to the outputs, which go past the caches when they are larger than them
 * (scan_stream). */
#include <omp.h>

#include "../cache.h"
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define SCAN_CHUNK 256

typedef struct scan_dims {
  int64_t T, B, S, D, row; /* row: the elements of one step of one batch row, S·D */
  int64_t per_row;         /* pieces per row */
} scan_dims;

static scan_dims scan_dims_of(const fused_tensor *b) {
  scan_dims d = {b->sizes[0], b->sizes[1], b->sizes[2], b->sizes[3], 0, 0};
  d.row = d.S * d.D;
  d.per_row = (d.D + SCAN_CHUNK - 1) / SCAN_CHUNK;
  return d;
}

/* Whether a pass over arrays of this many elements of one step of one row (forward: A, b and
 * h, S + 2 per state; backward: d_h, A, h, d_A and d_b) writes its results with streaming
 * stores: a normal store reads each line before it writes it, a fourth stream beside a, b and
 * h, for results the pass itself has pushed out of cache by its end (docs/scan.md); a pass that
 * fits the last-level cache leaves them there for whoever reads them next. */
static int scan_stream(const scan_dims *d, int64_t per_element) {
  return d->T * d->B * d->row * per_element * (int64_t)sizeof(scalar_t) > fused_cpu_cache_bytes();
}

/* The step taken k-th by a row of len steps: k itself forward, from the end in reverse. */
static inline int64_t scan_step(int64_t k, int64_t len, int32_t reverse) {
  return reverse ? len - 1 - k : k;
}

/* Whether the k-th step taken, t, of row b starts a segment (it reads h0): the first, or a
 * reset. */
static inline int scan_starts(const bool *resets, const scan_dims *d, int64_t b, int64_t t,
                              int64_t k) {
  return k == 0 || (resets && resets[t * d->B + b]);
}

/* vstore, past the caches where stream and the vector is whole (p then on a VEC_BYTES boundary:
 * the caller checks its row's start, scan_row_streams): a streaming store writes a line without
 * reading it. */
static inline void scan_put(scalar_t *p, vec v, int64_t n, int stream) {
#if defined(__AVX512F__)
  if (stream && n == VEC_LANES) return _mm512_stream_si512((__m512i *)p, (__m512i)v);
#elif defined(__AVX__)
  if (stream && n == VEC_LANES) return _mm256_stream_si256((__m256i *)p, (__m256i)v);
#elif defined(__SSE2__)
  if (stream && n == VEC_LANES) return _mm_stream_si128((__m128i *)p, (__m128i)v);
#endif
  vstore(p, v, n);
}

/* Whether a row that starts at p streams its whole vectors: where stream, on a VEC_BYTES
 * boundary. */
static inline int scan_row_streams(const scalar_t *p, int stream) {
  return stream && (uintptr_t)p % VEC_BYTES == 0;
}

/* Streamed lines are weakly ordered: each thread fences its own before the region's barrier. */
static inline void scan_fence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/* One step of a piece's n channels: state[i] = add[i] + sum_j A[i][j] · v[j] (transposed:
 * A[j][i]; v NULL is zero), into the carry (rows ld_state apart) and out (rows D apart, as add's
 * and A's; streamed where stream). v's rows are ld_v apart: h0's, or the carry's, read whole
 * before state overwrites it. Always inlined, so that S = 1 is a constant there. */
__attribute__((always_inline)) static inline void scan_apply(
    scalar_t *state, int64_t ld_state, scalar_t *out, int stream, const scalar_t *add,
    const scalar_t *A, const scalar_t *v, int64_t ld_v, int transposed, int64_t S, int64_t D,
    int64_t n) {
  const int whole = scan_row_streams(out, stream) && D * sizeof(scalar_t) % VEC_BYTES == 0;
  VEC_FOR(n, c, m, {
    vec old[FUSED_SCAN_MAX_STATES];
    for (int64_t j = 0; j < S; j++) old[j] = v ? vload(v + j * ld_v + c, m) : (vec){};
    for (int64_t i = 0; i < S; i++) {
      vec acc = vload(add + i * D + c, m);
      for (int64_t j = 0; j < S && v; j++)
        acc += vload(A + (transposed ? j * S + i : i * S + j) * D + c, m) * old[j];
      vstore(state + i * ld_state + c, acc, m);
      scan_put(out + i * D + c, acc, m, whole);
    }
  })
}

static inline void scan_zero(scalar_t *out, int64_t rows, int64_t D, int64_t n) {
  for (int64_t i = 0; i < rows; i++) memset(out + i * D, 0, (size_t)n * sizeof(scalar_t));
}

/* This thread's run of the B · per_row pieces: [*first, *last). */
static void scan_my_pieces(const scan_dims *d, int64_t *first, int64_t *last) {
  const int64_t n = d->B * d->per_row, threads = omp_get_num_threads(), id = omp_get_thread_num();
  *first = n * id / threads;
  *last = n * (id + 1) / threads;
}

/* Piece p: its row b, first channel c0 and width n. */
#define SCAN_PIECE(d, p, b, c0, n)                                                          \
  const int64_t b = (p) / (d).per_row, c0 = (p) % (d).per_row * SCAN_CHUNK;                \
  const int64_t n = (d).D - c0 < SCAN_CHUNK ? (d).D - c0 : SCAN_CHUNK

#define SCAN_THREADS(d)                                                                    \
  _Pragma("omp parallel if ((d).T * (d).B * (d).row > PARALLEL_MIN_ELEMENTS)")

/* The carry: every piece's state at the last step taken, a piece's S rows min(D, SCAN_CHUNK)
 * apart rounded up to whole cache lines (one step of h, give or take that rounding). */
typedef struct scan_carry {
  scalar_t *data;
  int64_t ld, width; /* a row's elements, a piece's */
} scan_carry;

static int scan_carry_new(scan_carry *c, const char *fn, const scan_dims *d) {
  const int64_t line = 64 / sizeof(scalar_t); /* rows on cache lines: a split vector costs two */
  c->ld = ((d->D < SCAN_CHUNK ? d->D : SCAN_CHUNK) + line - 1) / line * line;
  c->width = d->S * c->ld;
  const int64_t n = d->B * d->per_row * c->width;
  c->data = aligned_alloc(64, (size_t)(n + line) / line * 64); /* a multiple of 64, never 0 */
  if (!c->data)
    return fused_error("%s: out of memory for a carry of %lld elements", fn, (long long)n);
  return 0;
}

static int linear_scan(fused_tensor *h_t, const fused_tensor *A_t, const fused_tensor *b_t,
                       const fused_tensor *h0_t, const fused_tensor *resets_t,
                       const int64_t *lengths, int32_t reverse) {
  const scan_dims d = scan_dims_of(b_t);
  const scalar_t *A = (const scalar_t *)A_t->data, *bs = (const scalar_t *)b_t->data;
  const scalar_t *h0 = h0_t ? (const scalar_t *)h0_t->data : NULL;
  const bool *resets = resets_t ? (const bool *)resets_t->data : NULL;
  scalar_t *h = (scalar_t *)h_t->data;
  scan_carry carry;
  FUSED_TRY(scan_carry_new(&carry, "linear_scan", &d));
  const int stream = scan_stream(&d, d.S + 2);
  SCAN_THREADS(d) {
    int64_t first, last;
    scan_my_pieces(&d, &first, &last);
    for (int64_t k = 0; k < d.T; k++)
      for (int64_t p = first; p < last; p++) {
        SCAN_PIECE(d, p, b, c0, n);
        const int64_t len = lengths ? lengths[b] : d.T;
        if (k >= len) {
          scan_zero(h + (k * d.B + b) * d.row + c0, d.S, d.D, n);
          continue;
        }
        const int64_t t = scan_step(k, len, reverse), r = t * d.B + b;
        const scalar_t *prev = h0 ? h0 + b * d.row + c0 : NULL;
        int64_t ld_prev = d.D;
        if (!scan_starts(resets, &d, b, t, k)) {
          prev = carry.data + p * carry.width;
          ld_prev = carry.ld;
        }
        scalar_t *state = carry.data + p * carry.width, *out = h + r * d.row + c0;
        const scalar_t *add = bs + r * d.row + c0, *a = A + r * d.row * d.S + c0;
        if (d.S == 1) scan_apply(state, carry.ld, out, stream, add, a, prev, ld_prev, 0, 1, d.D, n);
        else scan_apply(state, carry.ld, out, stream, add, a, prev, ld_prev, 0, d.S, d.D, n);
      }
    scan_fence();
  }
  free(carry.data);
  return 0;
}

/* In the forward's order reversed: d_b[t] = d_h[t] + A_{next}ᵀ d_b[next], where next is the step
 * taken after t unless it starts a segment; d_A[t][i][j] = d_b[t][i] · h_{t-1}[j]; at a
 * segment's start d_h0 gathers A_tᵀ d_b[t]. The carry holds d_b of the step taken last. */
static int linear_scan_backward(fused_tensor *d_A_t, fused_tensor *d_b_t, fused_tensor *d_h0_t,
                                const fused_tensor *d_h_t, const fused_tensor *A_t,
                                const fused_tensor *h_t, const fused_tensor *h0_t,
                                const fused_tensor *resets_t, const int64_t *lengths,
                                int32_t reverse) {
  const scan_dims d = scan_dims_of(d_h_t);
  const scalar_t *A = (const scalar_t *)A_t->data, *d_h = (const scalar_t *)d_h_t->data;
  const scalar_t *h = (const scalar_t *)h_t->data;
  const scalar_t *h0 = h0_t ? (const scalar_t *)h0_t->data : NULL;
  const bool *resets = resets_t ? (const bool *)resets_t->data : NULL;
  scalar_t *d_A = (scalar_t *)d_A_t->data, *d_b = (scalar_t *)d_b_t->data;
  scalar_t *d_h0 = d_h0_t ? (scalar_t *)d_h0_t->data : NULL;
  const int64_t S = d.S, SS = S * S;
  scan_carry carry;
  FUSED_TRY(scan_carry_new(&carry, "linear_scan_backward", &d));
  const int stream = scan_stream(&d, 2 * S + 3);
  SCAN_THREADS(d) {
    int64_t first, last;
    scan_my_pieces(&d, &first, &last);
    for (int64_t p = first; p < last && d_h0; p++) {
      SCAN_PIECE(d, p, b, c0, n);
      scan_zero(d_h0 + b * d.row + c0, S, d.D, n);
    }
    for (int64_t k = d.T - 1; k >= 0; k--)
      for (int64_t p = first; p < last; p++) {
        SCAN_PIECE(d, p, b, c0, n);
        const int64_t len = lengths ? lengths[b] : d.T;
        if (k >= len) {
          const int64_t r = k * d.B + b;
          scan_zero(d_b + r * d.row + c0, S, d.D, n);
          scan_zero(d_A + r * d.row * S + c0, SS, d.D, n);
          continue;
        }
        const int64_t t = scan_step(k, len, reverse), r = t * d.B + b;
        const int64_t at = r * d.row + c0, at_A = r * d.row * S + c0;
        scalar_t *g = carry.data + p * carry.width;
        /* the gradient from the step taken next, unless that one starts a segment */
        const scalar_t *next_A = NULL, *next_g = NULL;
        if (k + 1 < len) {
          const int64_t next = scan_step(k + 1, len, reverse);
          if (!scan_starts(resets, &d, b, next, k + 1)) {
            next_A = A + (next * d.B + b) * d.row * S + c0;
            next_g = g;
          }
        }
        scalar_t *out = d_b + at;
        const scalar_t *add = d_h + at;
        const int64_t ld = carry.ld;
        if (S == 1) scan_apply(g, ld, out, stream, add, next_A, next_g, ld, 1, 1, d.D, n);
        else scan_apply(g, ld, out, stream, add, next_A, next_g, ld, 1, S, d.D, n);
        const int starts = scan_starts(resets, &d, b, t, k);
        const scalar_t *prev = NULL;
        if (!starts) prev = h + (scan_step(k - 1, len, reverse) * d.B + b) * d.row + c0;
        else if (h0) prev = h0 + b * d.row + c0;
        for (int64_t i = 0; i < S; i++)
          for (int64_t j = 0; j < S; j++) {
            scalar_t *out = d_A + at_A + (i * S + j) * d.D;
            const int whole = scan_row_streams(out, stream);
            VEC_FOR(n, c, m, {
              const vec v = prev ? vload(prev + j * d.D + c, m) : (vec){};
              scan_put(out + c, vload(g + i * carry.ld + c, m) * v, m, whole);
            })
          }
        if (starts && d_h0) {
          scalar_t *dh0 = d_h0 + b * d.row + c0;
          for (int64_t j = 0; j < S; j++)
            for (int64_t i = 0; i < S; i++) {
              const scalar_t *a = A + at_A + (i * S + j) * d.D;
              VEC_FOR(n, c, m, {
                vstore(dh0 + j * d.D + c, vload(dh0 + j * d.D + c, m) +
                                              vload(a + c, m) * vload(g + i * carry.ld + c, m), m);
              })
            }
        }
      }
    scan_fence();
  }
  free(carry.data);
  return 0;
}
