/* The linear-recurrence engine (fused_linear_scan, c/fused.h has the layout), vectorised across
 * channels. A piece is up to SCAN_CHUNK channels of one batch row; each thread takes a run of
 * adjacent pieces and walks the steps in its outer loop, its pieces in the inner one, so that
 * it sweeps a, b and h in memory order (one step of all rows is contiguous), as a memcpy does,
 * while the previous step it reads back as h_{t-1} is still in cache. Neither pass needs
 * scratch: forward reads h_{t-1} from h, backward carries its gradient in d_b. */
#include <omp.h>

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

/* out[i] = (add ? add[i] : 0) + sum_j A[i][j] · v[j] (transposed: A[j][i]) for the n channels
 * of one piece; v NULL is zero. Rows are D apart, A's S·D. Inlined with S constant for S = 1. */
static inline void scan_apply(scalar_t *out, const scalar_t *add, const scalar_t *A,
                              const scalar_t *v, int transposed, int64_t S, int64_t D,
                              int64_t n) {
  for (int64_t i = 0; i < S; i++) {
    VEC_FOR(n, c, m, {
      vec acc = add ? vload(add + i * D + c, m) : (vec){};
      if (v)
        for (int64_t j = 0; j < S; j++) {
          const scalar_t *a = A + (transposed ? j * S + i : i * S + j) * D;
          acc += vload(a + c, m) * vload(v + j * D + c, m);
        }
      vstore(out + i * D + c, acc, m);
    })
  }
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

static int linear_scan(fused_tensor *h_t, const fused_tensor *A_t, const fused_tensor *b_t,
                       const fused_tensor *h0_t, const fused_tensor *resets_t,
                       const int64_t *lengths, int32_t reverse) {
  const scan_dims d = scan_dims_of(b_t);
  const scalar_t *A = (const scalar_t *)A_t->data, *bs = (const scalar_t *)b_t->data;
  const scalar_t *h0 = h0_t ? (const scalar_t *)h0_t->data : NULL;
  const bool *resets = resets_t ? (const bool *)resets_t->data : NULL;
  scalar_t *h = (scalar_t *)h_t->data;
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
        if (!scan_starts(resets, &d, b, t, k))
          prev = h + (scan_step(k - 1, len, reverse) * d.B + b) * d.row + c0;
        scalar_t *out = h + r * d.row + c0;
        const scalar_t *add = bs + r * d.row + c0, *a = A + r * d.row * d.S + c0;
        if (d.S == 1) scan_apply(out, add, a, prev, 0, 1, d.D, n);
        else scan_apply(out, add, a, prev, 0, d.S, d.D, n);
      }
  }
  return 0;
}

/* In the forward's order reversed: d_b[t] = d_h[t] + A_{next}ᵀ d_b[next], where next is the step
 * taken after t unless it starts a segment; d_A[t][i][j] = d_b[t][i] · h_{t-1}[j]; at a
 * segment's start d_h0 gathers A_tᵀ d_b[t]. */
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
        scalar_t *g = d_b + at;
        /* the gradient from the step taken next, unless that one starts a segment */
        const scalar_t *next_A = NULL, *next_g = NULL;
        if (k + 1 < len) {
          const int64_t next = scan_step(k + 1, len, reverse);
          if (!scan_starts(resets, &d, b, next, k + 1)) {
            next_A = A + (next * d.B + b) * d.row * S + c0;
            next_g = d_b + (next * d.B + b) * d.row + c0;
          }
        }
        if (S == 1) scan_apply(g, d_h + at, next_A, next_g, 1, 1, d.D, n);
        else scan_apply(g, d_h + at, next_A, next_g, 1, S, d.D, n);
        const int starts = scan_starts(resets, &d, b, t, k);
        const scalar_t *prev = NULL;
        if (!starts) prev = h + (scan_step(k - 1, len, reverse) * d.B + b) * d.row + c0;
        else if (h0) prev = h0 + b * d.row + c0;
        for (int64_t i = 0; i < S; i++)
          for (int64_t j = 0; j < S; j++) {
            scalar_t *out = d_A + at_A + (i * S + j) * d.D;
            VEC_FOR(n, c, m, {
              const vec v = prev ? vload(prev + j * d.D + c, m) : (vec){};
              vstore(out + c, vload(g + i * d.D + c, m) * v, m);
            })
          }
        if (starts && d_h0) {
          scalar_t *dh0 = d_h0 + b * d.row + c0;
          for (int64_t j = 0; j < S; j++)
            for (int64_t i = 0; i < S; i++) {
              const scalar_t *a = A + at_A + (i * S + j) * d.D;
              VEC_FOR(n, c, m, {
                vstore(dh0 + j * d.D + c, vload(dh0 + j * d.D + c, m) +
                                              vload(a + c, m) * vload(g + i * d.D + c, m), m);
              })
            }
        }
      }
  }
  return 0;
}
