/* The LLTM cell and its unrolled sequence (fused.h): the gate GEMMs on cuBLAS, all pointwise
 * work in one kernel each way, and deterministic bias sums (fixed order, no atomics).
 *
 * X = [h, x] is never built: W's first H columns multiply h and its last I columns multiply
 * x, so each product with X or W is two GEMMs on column blocks of W (leading dimension H+I).
 *
 * The per-element maths is the CPU's (c/maths/lltm.h), and so is saved's layout, per batch row:
 * [input_gate, output_gate, candidate, tanh(new_c)]. */
#include "column_sums.cuh"
#include "common.cuh"
#include "../c/maths/lltm.h"

/* The GEMMs, row-major, W's column block w (k columns, leading dimension ldw = H+I); cuBLAS
 * sees each row-major matrix as its column-major transpose (see addmm.cu).
 * gates (rows×3H) = beta·gates + a (rows×k) · wᵀ */
template <typename T>
static int times_w_t(const char *fn, T *gates, int64_t rows, int64_t H3, const T *a, int64_t k,
                     const T *w, int64_t ldw, T beta) {
  return cuda_check_blas(fn, gemm(CUBLAS_OP_T, CUBLAS_OP_N, (int)H3, (int)rows, (int)k, T(1), w,
                                  (int)ldw, a, (int)k, beta, gates, (int)H3));
}

/* d_gates (rows×3H) has leading dimension ld_dg below: 3H, or 4H where it overwrites saved.
 * out (rows×k) = d_gates · w */
template <typename T>
static int times_w(const char *fn, T *out, int64_t rows, int64_t k, const T *d_gates, int64_t H3,
                   int64_t ld_dg, const T *w, int64_t ldw) {
  return cuda_check_blas(fn, gemm(CUBLAS_OP_N, CUBLAS_OP_N, (int)k, (int)rows, (int)H3, T(1), w,
                                  (int)ldw, d_gates, (int)ld_dg, T(0), out, (int)k));
}

/* d_w (3H×k, leading dimension ldw) = beta·d_w + d_gatesᵀ (3H×rows) · a (rows×k) */
template <typename T>
static int gates_t_times(const char *fn, T *d_w, int64_t ldw, int64_t H3, const T *d_gates,
                         int64_t ld_dg, int64_t rows, const T *a, int64_t k, T beta) {
  return cuda_check_blas(fn, gemm(CUBLAS_OP_N, CUBLAS_OP_T, (int)k, (int)H3, (int)rows, T(1), a,
                                  (int)k, d_gates, (int)ld_dg, beta, d_w, (int)ldw));
}

/* One step's pointwise forward over rows×H: gates holds the pre-activations without the bias.
 * c and new_c may be the same memory (each element is read, then written, by one thread). */
template <typename T>
__global__ void lltm_forward_kernel(T *new_h, T *new_c, T *saved, const T *gates, const T *bias,
                                    const T *c, int64_t H, int64_t n) {
  GRID_STRIDE(i, n) {
    const int64_t r = i / H, j = i % H;
    const T *g = gates + r * 3 * H;
    T *s = saved + r * 4 * H;
    lltm_element_forward(g[j] + bias[j], g[H + j] + bias[H + j], g[2 * H + j] + bias[2 * H + j],
                         c[i], &s[j], &s[H + j], &s[2 * H + j], &s[3 * H + j], &new_c[i],
                         &new_h[i]);
  }
}

/* One step's pointwise backward over B×H, in (COLS, LANES) blocks over (hidden unit, chunk of
 * rows): d_gates (B×3H, leading dimension ld_dg) and d_c from the gradients at new_h (grad_h
 * plus grad_h_extra, which may be NULL) and at new_c (grad_c, NULL for zero). grad_c and d_c
 * may be the same memory, and d_gates may be saved itself (ld_dg 4H): each thread reads its
 * elements before it writes them. With d_b, the bias gradient's column sums are taken on the
 * way (see store_sum). */
template <typename T>
__global__ void lltm_backward_kernel(T *d_gates, int64_t ld_dg, T *d_c, T *d_b, T *partial,
                                     bool accumulate, const T *grad_h, const T *grad_h_extra,
                                     const T *grad_c, const T *saved, int64_t B, int64_t H,
                                     int64_t per_block) {
  const int64_t j = blockIdx.x * (int64_t)COLS + threadIdx.x;
  const int64_t chunk_end = (blockIdx.y + 1) * per_block, end = chunk_end < B ? chunk_end : B;
  T sums[3] = {0, 0, 0};
  if (j < H)
    for (int64_t r = blockIdx.y * per_block + threadIdx.y; r < end; r += LANES) {
      const int64_t i = r * H + j;
      const T *s = saved + r * 4 * H;
      const T gh = grad_h_extra ? grad_h[i] + grad_h_extra[i] : grad_h[i];
      T d_input, d_output, d_candidate, d_cell;
      lltm_element_backward(gh, grad_c ? grad_c[i] : T(0), s[j], s[H + j], s[2 * H + j],
                            s[3 * H + j], &d_input, &d_output, &d_candidate, &d_cell);
      T *dg = d_gates + r * ld_dg;
      dg[j] = d_input;
      dg[H + j] = d_output;
      dg[2 * H + j] = d_candidate;
      d_c[i] = d_cell;
      sums[0] += d_input;
      sums[1] += d_output;
      sums[2] += d_candidate;
    }
  if (!d_b) return; /* the same for the whole grid: no thread waits at a barrier alone */
  for (int g = 0; g < 3; g++)
    store_sum(d_b, partial, 3 * H, g * H + j, j < H, sum_lanes(sums[g]), accumulate);
}

template <typename T>
int cuda_lltm_forward(fused_tensor *new_h, fused_tensor *new_c, fused_tensor *saved,
                      const fused_tensor *x, const fused_tensor *h, const fused_tensor *c,
                      const fused_tensor *W, const fused_tensor *b) {
  const char *fn = "lltm_forward";
  const int64_t B = x->sizes[0], In = x->sizes[1], H = h->sizes[1], K = H + In;
  Scratch gates(fn, (size_t)(B * 3 * H) * sizeof(T));
  if (!gates.ptr) return -1;
  const T *w = (const T *)W->data;
  FUSED_TRY(times_w_t(fn, gates.as<T>(), B, 3 * H, (const T *)x->data, In, w + H, K, T(0)));
  FUSED_TRY(times_w_t(fn, gates.as<T>(), B, 3 * H, (const T *)h->data, H, w, K, T(1)));
  FUSED_LAUNCH(blocks_for(B * H), THREADS, 0, cuda_stream, lltm_forward_kernel<T>)(
      (T *)new_h->data, (T *)new_c->data, (T *)saved->data, gates.as<T>(), (const T *)b->data,
      (const T *)c->data, H, B * H);
  return cuda_done(fn);
}

template <typename T>
int cuda_lltm_backward(fused_tensor *d_x, fused_tensor *d_h, fused_tensor *d_c,
                       fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *grad_h,
                       const fused_tensor *grad_c, const fused_tensor *saved,
                       const fused_tensor *x, const fused_tensor *h, const fused_tensor *W,
                       int32_t accumulate) {
  const char *fn = "lltm_backward";
  const int64_t B = x->sizes[0], In = x->sizes[1], H = h->sizes[1], K = H + In;
  const RowChunks chunks = row_chunks(B);
  /* d_gates (B×3H), then the bias sums' partials when B spans several chunks. */
  const int64_t partials = chunks.count > 1 ? chunks.count * 3 * H : 0;
  Scratch scratch(fn, (size_t)(B * 3 * H + partials) * sizeof(T));
  if (!scratch.ptr) return -1;
  T *d_gates = scratch.as<T>(), *partial = d_gates + B * 3 * H, *db = (T *)d_b->data;
  const dim3 grid((unsigned)((H + COLS - 1) / COLS), (unsigned)chunks.count);
  FUSED_LAUNCH(grid, dim3(COLS, LANES), 0, cuda_stream, lltm_backward_kernel<T>)(
      d_gates, 3 * H, (T *)d_c->data, db, partial, accumulate != 0, (const T *)grad_h->data, NULL,
      (const T *)grad_c->data, (const T *)saved->data, B, H, chunks.per_block);
  if (chunks.count > 1)
    FUSED_LAUNCH(blocks_for(3 * H), THREADS, 0, cuda_stream, finish_sums_kernel<T>)(
        db, partial, chunks.count, 3 * H, accumulate != 0);
  FUSED_TRY(cuda_check(fn, cudaGetLastError()));
  const T *w = (const T *)W->data;
  T *dw = (T *)d_W->data, beta = accumulate ? T(1) : T(0);
  const int64_t H3 = 3 * H;
  FUSED_TRY(gates_t_times(fn, dw, K, H3, d_gates, H3, B, (const T *)h->data, H, beta));
  FUSED_TRY(gates_t_times(fn, dw + H, K, H3, d_gates, H3, B, (const T *)x->data, In, beta));
  FUSED_TRY(times_w(fn, (T *)d_h->data, B, H, d_gates, H3, H3, w, K));
  FUSED_TRY(times_w(fn, (T *)d_x->data, B, In, d_gates, H3, H3, w + H, K));
  return cuda_done(fn);
}

FUSED_KERNELS_LLTM(FUSED_CUDA_INSTANTIATE_FLOATING)
