/* A minimal gated unit (Zhou et al. 2016), none of fused's cells: one forget gate f and a
 * candidate n, h' = (1 - f)·h + f·n. As in PyTorch's GRU, f multiplies the recurrent
 * projection of h (n = tanh(x_n + f·(W_hn h + b_hn))) rather than h itself, so that the
 * engine's one recurrent GEMM per step serves. Saved per row:
 *   [f, n, W_hn h + b_hn, d_f, d_n, h_prev]
 * backward writes the input projection's gradients at blocks 3-4 (d_ih = 3) and the
 * recurrent one's, whose n block is f·d_n, at 0-1 (d_hh = 0).
 * Register with gates = 2, state = 'h', saved = 6, d_ih = 3. */
#include <tgmath.h>

#include <fused_ext.h>

FUSED_CELL_FORWARD(mgu, {
  _Pragma("omp simd") for (int64_t j = 0; j < H; j++) {
    const scalar_t h = s[5 * H + j];
    const scalar_t f = 1 / (1 + exp(-(s[j] + b_ih[j] + gh[j] + b_hh[j])));
    const scalar_t h_n = gh[H + j] + b_hh[H + j];
    const scalar_t n = tanh(s[H + j] + b_ih[H + j] + f * h_n);
    s[j] = f, s[H + j] = n, s[2 * H + j] = h_n;
    h_next[j] = h + f * (n - h), out[j] = h + f * (n - h);
  }
})

FUSED_CELL_BACKWARD(mgu, {
  _Pragma("omp simd") for (int64_t j = 0; j < H; j++) {
    const scalar_t g = dh[j] + (d_out ? d_out[j] : 0);
    const scalar_t f = s[j], n = s[H + j], h_n = s[2 * H + j], h = s[5 * H + j];
    const scalar_t d_n = g * f * (1 - n * n);
    const scalar_t d_f = (g * (n - h) + d_n * h_n) * f * (1 - f);
    s[3 * H + j] = d_f, s[4 * H + j] = d_n;
    s[j] = d_f, s[H + j] = f * d_n;
    dh[j] = g * (1 - f);
  }
})
