/* The recurrent product of a block-diagonal w_hh (docs/cells.md, Heads), for rnn.h: NH heads of
 * Dh = H / NH units, w_hh stored as its blocks only, G·H rows of Dh. Row r belongs to gate
 * r / H and head (r mod H) / Dh, so block q = r / Dh (Dh×Dh, rows q·Dh on) is gate q / NH's and
 * head q mod NH's: it multiplies the head's Dh columns of h and gives columns q·Dh on of gh.
 * Each block is packed on its own (packed_gemm.h, or bf16.h's on the native bfloat16 path) and
 * each step runs G·NH products of rows×Dh×Dh, 1/NH of the dense product's multiply-adds.
 * NH = 1 never comes here: the dense code of rnn.h runs it as before. */

/* Elements of one packed block, and of all G·NH: float32 (or float64) elements, or, with bf,
 * bf16.h's packed form counted in float32 elements. */
static inline int64_t rnn_heads_block(int64_t Dh, bool bf) {
  return bf ? cpu_bf16_packed_size(Dh, Dh) / 2 + 1 : packed_gemm_size(Dh, Dh);
}

static inline int64_t rnn_heads_packed_size(int64_t GH, int64_t Dh) {
  const int64_t f = rnn_heads_block(Dh, false), b = rnn_heads_block(Dh, true);
  return GH / Dh * (f > b ? f : b);
}

/* Packs every block of w_hh (G·H×Dh, ldw) for forward's h·blockᵀ (transposed) or backward's
 * d_gates·block; native: bf16.h's form, else packed_gemm.h's (the caller rounds it for bf). */
static void rnn_heads_pack(scalar_t *bp, const scalar_t *wh, int64_t ldw, int64_t GH, int64_t Dh,
                           bool transposed, bool native) {
  const int64_t size = rnn_heads_block(Dh, native);
  for (int64_t q = 0; q < GH / Dh; q++) {
    const scalar_t *w = wh + q * Dh * ldw;
    if (native) cpu_bf16_pack((bf16 *)(bp + q * size), w, ldw, Dh, Dh, transposed);
    else packed_gemm_pack(bp + q * size, w, ldw, Dh, Dh, transposed);
  }
}

/* gh's first n rows (GH apart) = a's n rows (lda apart, H wide) times the blocks: head h's Dh
 * columns of a by each of its G blocks. */
static void rnn_heads_forward_gemm(int64_t n, int64_t GH, int64_t H, int64_t Dh, const scalar_t *a,
                                   int64_t lda, const scalar_t *bp, scalar_t *gh) {
  const int64_t NH = H / Dh, size = rnn_heads_block(Dh, false);
  for (int64_t q = 0; q < GH / Dh; q++)
    packed_gemm(n, Dh, Dh, a + q % NH * Dh, lda, 1, bp + q * size, false, gh + q * Dh, GH);
}

/* rnn_forward_product over heads: gh's rows, in order, for the rows of [r0, r1) that run step
 * p->t (gathered into buf, H apart, in a ragged batch). */
static void rnn_heads_forward_product(const rnn_step *p, int64_t r0, int64_t r1,
                                      const scalar_t *st, const scalar_t *bp, scalar_t *buf,
                                      scalar_t *gh) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld, n = rnn_active_count(p, r0, r1);
  const scalar_t *h_prev = st + p->L.h_prev * H;
  if (n == r1 - r0) {
    rnn_heads_forward_gemm(n, GH, H, p->Dh, h_prev + r0 * ld, ld, bp, gh);
    return;
  }
  for (int64_t r = r0, i = 0; r < r1; r++)
    if (rnn_active(p, r)) memcpy(buf + i++ * H, h_prev + r * ld, (size_t)H * sizeof(scalar_t));
  rnn_heads_forward_gemm(n, GH, H, p->Dh, buf, H, bp, gh);
}

/* rnn_forward_product_bf16 over heads: the rows that run the step rounded into buf, each head's
 * Dh apart from the next by rnn_bf16_ld(Dh) (the native product reads pairs: an odd Dh gets its
 * zero), then each block's product on the path's kernel. */
static void rnn_heads_forward_product_bf16(const rnn_step *p, int64_t r0, int64_t r1,
                                           const scalar_t *st, const scalar_t *bp, bool native,
                                           void *buf, scalar_t *gh) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld, Dh = p->Dh, NH = H / Dh;
  const int64_t ldh = rnn_bf16_ld(Dh, native), ldb = NH * ldh;
  const scalar_t *h_prev = st + p->L.h_prev * H;
  int64_t n = 0;
  for (int64_t r = r0; r < r1; r++) {
    if (!rnn_active(p, r)) continue;
    for (int64_t h = 0; h < NH; h++)
      rnn_bf16_rows(rnn_bf16_row(buf, n * NH + h, ldh, native), ldh, h_prev + r * ld + h * Dh,
                    ld, 1, Dh, native);
    n++;
  }
  if (!native) {
    rnn_heads_forward_gemm(n, GH, H, Dh, (const scalar_t *)buf, ldb, bp, gh);
    return;
  }
  const int64_t size = rnn_heads_block(Dh, true);
  for (int64_t q = 0; q < GH / Dh; q++)
    cpu_bf16_packed_gemm(n, Dh, Dh, (const bf16 *)buf + q % NH * ldh, ldb,
                         (const bf16 *)(bp + q * size), false, gh + q * Dh, GH);
}

/* c's n rows (ldc apart, H wide) (+)= a's n rows (lda apart, GH wide) times the blocks: head h's
 * columns get each of its G blocks' products; without add the first (gate 0's) sets them. */
static void rnn_heads_backward_gemm(int64_t n, int64_t GH, int64_t H, int64_t Dh,
                                    const scalar_t *a, int64_t lda, const scalar_t *bp, bool add,
                                    scalar_t *c, int64_t ldc) {
  const int64_t NH = H / Dh, size = rnn_heads_block(Dh, false);
  for (int64_t q = 0; q < GH / Dh; q++)
    packed_gemm(n, Dh, Dh, a + q * Dh, lda, 1, bp + q * size, add || q >= NH, c + q % NH * Dh,
                ldc);
}

/* rnn_backward_product over heads: dh += d_gates_hh·blocks for rows [r0, r1) of step p->t (a
 * ragged batch's running rows gathered into buf, their products added from prod). */
static void rnn_heads_backward_product(const rnn_step *p, int64_t r0, int64_t r1,
                                       const scalar_t *st, const scalar_t *bp, scalar_t *buf,
                                       scalar_t *prod, scalar_t *dh) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld, n = rnn_active_count(p, r0, r1);
  const scalar_t *d_hh = st + p->L.d_hh * H;
  if (n == r1 - r0) {
    rnn_heads_backward_gemm(n, GH, H, p->Dh, d_hh + r0 * ld, ld, bp, true, dh + r0 * H, H);
    return;
  }
  for (int64_t r = r0, i = 0; r < r1; r++)
    if (rnn_active(p, r)) memcpy(buf + i++ * GH, d_hh + r * ld, (size_t)GH * sizeof(scalar_t));
  rnn_heads_backward_gemm(n, GH, H, p->Dh, buf, GH, bp, false, prod, H);
  for (int64_t r = r0, i = 0; r < r1; r++)
    if (rnn_active(p, r)) rnn_add(dh + r * H, prod + i++ * H, H);
}

/* The native path's dh += g·blocks for rows [r0, r1) (g: their bf16 recurrent gate gradients,
 * ldg apart; a padded row's are zero): each block's Dh columns of g copied into buf, ldq =
 * rnn_bf16_ld(Dh) apart, so that every block starts on a pair with its zero after an odd Dh. */
static void rnn_heads_backward_product_bf16(const rnn_step *p, int64_t r0, int64_t r1,
                                            const bf16 *g, int64_t ldg, const scalar_t *bp,
                                            bf16 *buf, scalar_t *dh) {
  const int64_t H = p->H, GH = p->L.gates * H, Dh = p->Dh, NH = H / Dh, Q = GH / Dh;
  const int64_t ldq = rnn_bf16_ld(Dh, true), size = rnn_heads_block(Dh, true);
  for (int64_t r = 0; r < r1 - r0; r++)
    for (int64_t q = 0; q < Q; q++) {
      bf16 *d = buf + (r * Q + q) * ldq;
      memcpy(d, g + r * ldg + q * Dh, (size_t)Dh * sizeof(bf16));
      if (ldq > Dh) d[Dh] = 0;
    }
  for (int64_t q = 0; q < Q; q++)
    cpu_bf16_packed_gemm(r1 - r0, Dh, Dh, buf + q * ldq, Q * ldq, (const bf16 *)(bp + q * size),
                         true, dh + r0 * H + q % NH * Dh, H);
}

/* d_w_hh's blocks (+)= d_gates_hhᵀ·h_prev over TB rows, each block from its head's columns of
 * h_prev. */
static int rnn_heads_weight_grad(int64_t TB, int64_t GH, int64_t H, int64_t Dh,
                                 const scalar_t *d_g, int64_t ld_g, const scalar_t *h,
                                 int64_t ldh, int32_t accumulate, scalar_t *d_w, int64_t ldw) {
  for (int64_t q = 0; q < GH / Dh; q++)
    if (rnn_weight_grad(TB, Dh, Dh, d_g + q * Dh, ld_g, h + q % (H / Dh) * Dh, ldh, accumulate,
                        d_w + q * Dh * ldw, ldw))
      return -1;
  return 0;
}

/* The native path's rnn_heads_weight_grad on bf16 operands (oneDNN). */
static int rnn_heads_weight_grad_bf16(const char *fn, int64_t TB, int64_t GH, int64_t H,
                                      int64_t Dh, const bf16 *d_g, int64_t ldg, const bf16 *h,
                                      int32_t accumulate, scalar_t *d_w, int64_t ldw) {
  for (int64_t q = 0; q < GH / Dh; q++)
    if (cpu_bf16_gemm(fn, true, false, Dh, Dh, TB, d_g + q * Dh, ldg, h + q % (H / Dh) * Dh, H,
                      accumulate, d_w + q * Dh * ldw, ldw))
      return -1;
  return 0;
}
