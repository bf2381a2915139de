/* The linear-recurrence engine (fused_linear_scan, c/fused.h has the layout): one pass over the
 * steps per piece of a batch row, vectorised across its channels. A piece is SCAN_CHUNK
 * channels of one row: small enough that a step's S rows of h stay in L1 for the next step,
 * which reads them as h_{t-1}; the pieces are the threads' work. Neither pass needs scratch:
 * forward reads h_{t-1} back from h, backward carries its gradient in d_b. */
#define SCAN_CHUNK 256

typedef struct scan_dims {
  int64_t T, B, S, D, row; /* row: the elements of one step of one batch row, S·D */
} scan_dims;

static scan_dims scan_dims_of(const fused_tensor *b) {
  scan_dims d = {b->sizes[0], b->sizes[1], b->sizes[2], b->sizes[3], 0};
  d.row = d.S * d.D;
  return d;
}

/* The step taken k-th by row b (of len steps): k itself forward, from the end in reverse. */
static inline int64_t scan_step(int64_t k, int64_t len, int32_t reverse) {
  return reverse ? len - 1 - k : k;
}

/* Whether step t of row b starts a segment (it reads h0): the first step taken, or a reset. */
static inline int scan_starts(const bool *resets, const scan_dims *d, int64_t b, int64_t t,
                              int64_t k) {
  return k == 0 || (resets && resets[t * d->B + b]);
}

/* out[i] = (add ? add[i] : 0) + sum_j A[i][j] · v[j] (transposed: A[j][i]) for the n channels
 * of one piece; v NULL is zero. Rows are D apart, A's S·D. */
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

/* The pieces of every row, on threads where the work is large enough: piece p is row p / per
 * from channel p % per · SCAN_CHUNK. */
#define SCAN_PIECES_FOR(d, p)                                                               \
  const int64_t per_ = ((d).D + SCAN_CHUNK - 1) / SCAN_CHUNK;                               \
  _Pragma("omp parallel for schedule(static) if ((d).T * (d).B * (d).row > PARALLEL_MIN_ELEMENTS)") \
  for (int64_t p = 0; p < (d).B * per_; p++)
#define SCAN_PIECE(d, p, b, c0, n)                                                          \
  const int64_t b = p / per_, c0 = p % per_ * SCAN_CHUNK;                                   \
  const int64_t n = (d).D - c0 < SCAN_CHUNK ? (d).D - c0 : SCAN_CHUNK

static int linear_scan(fused_tensor *h_t, const fused_tensor *A_t, const fused_tensor *b_t,
                       const fused_tensor *h0_t, const fused_tensor *resets_t,
                       const int64_t *lengths, int32_t reverse) {
  const scan_dims d = scan_dims_of(b_t);
  const scalar_t *A = (const scalar_t *)A_t->data, *bs = (const scalar_t *)b_t->data;
  const scalar_t *h0 = h0_t ? (const scalar_t *)h0_t->data : NULL;
  const bool *resets = resets_t ? (const bool *)resets_t->data : NULL;
  scalar_t *h = (scalar_t *)h_t->data;
  SCAN_PIECES_FOR(d, p) {
    SCAN_PIECE(d, p, b, c0, n);
    const int64_t len = lengths ? lengths[b] : d.T;
    const scalar_t *first = h0 ? h0 + b * d.row + c0 : NULL;
    const scalar_t *prev = first;
    for (int64_t k = 0; k < len; k++) {
      const int64_t t = scan_step(k, len, reverse), r = t * d.B + b;
      const int64_t at = r * d.row + c0, at_A = r * d.row * d.S + c0;
      if (scan_starts(resets, &d, b, t, k)) prev = first;
      scan_apply(h + at, bs + at, A + at_A, prev, 0, d.S, d.D, n);
      prev = h + at;
    }
    for (int64_t t = len; t < d.T; t++) scan_zero(h + (t * d.B + b) * d.row + c0, d.S, d.D, n);
  }
  return 0;
}

/* In the forward's order reversed: d_b[t] = d_h[t] + A_{next}ᵀ d_b[next], where next is the step
 * after t unless it starts a segment; d_A[t][i][j] = d_b[t][i] · h_{t-1}[j]; at a segment's
 * start d_h0 gathers A_tᵀ d_b[t]. */
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
  SCAN_PIECES_FOR(d, p) {
    SCAN_PIECE(d, p, b, c0, n);
    const int64_t len = lengths ? lengths[b] : d.T, SS = d.S * d.S;
    scalar_t *dh0 = d_h0 ? d_h0 + b * d.row + c0 : NULL;
    if (dh0) scan_zero(dh0, d.S, d.D, n);
    for (int64_t t = len; t < d.T; t++) {
      const int64_t r = t * d.B + b;
      scan_zero(d_b + r * d.row + c0, d.S, d.D, n);
      scan_zero(d_A + r * d.row * d.S + c0, SS, d.D, n);
    }
    const scalar_t *next_A = NULL, *next_g = NULL; /* the later step's, NULL past a start */
    for (int64_t k = len - 1; k >= 0; k--) {
      const int64_t t = scan_step(k, len, reverse), r = t * d.B + b;
      const int64_t at = r * d.row + c0, at_A = r * d.row * d.S + c0;
      scalar_t *g = d_b + at;
      scan_apply(g, d_h + at, next_A, next_g, 1, d.S, d.D, n);
      const int starts = scan_starts(resets, &d, b, t, k);
      const scalar_t *prev = NULL;
      if (!starts) prev = h + (scan_step(k - 1, len, reverse) * d.B + b) * d.row + c0;
      else if (h0) prev = h0 + b * d.row + c0;
      for (int64_t i = 0; i < d.S; i++)
        for (int64_t j = 0; j < d.S; j++) {
          scalar_t *out = d_A + at_A + (i * d.S + j) * d.D;
          VEC_FOR(n, c, m, {
            const vec p = prev ? vload(prev + j * d.D + c, m) : (vec){};
            vstore(out + c, vload(g + i * d.D + c, m) * p, m);
          })
        }
      if (starts && dh0) {
        for (int64_t j = 0; j < d.S; j++)
          for (int64_t i = 0; i < d.S; i++) {
            const scalar_t *a = A + at_A + (i * d.S + j) * d.D;
            VEC_FOR(n, c, m, {
              vstore(dh0 + j * d.D + c,
                     vload(dh0 + j * d.D + c, m) + vload(a + c, m) * vload(g + i * d.D + c, m), m);
            })
          }
      }
      next_A = starts ? NULL : A + at_A;
      next_g = starts ? NULL : g;
    }
  }
  return 0;
}
