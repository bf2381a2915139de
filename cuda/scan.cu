/* The linear-recurrence engine on CUDA (c/cpu/generic/scan.h on the CPU; the layout in
 * c/fused.h): a chunked parallel scan. A block holds 32 channels (x, adjacent in memory, so
 * that a warp's loads are one transaction) and cuts the steps into CHUNKS pieces (y). Each
 * thread composes its piece's steps into one affine map (M, v): h_end = M h_start + v, where
 * a step that starts a segment (it reads h0) makes M zero; one thread per channel then runs
 * the CHUNKS maps in order to give each piece its incoming state, and every thread replays its
 * piece from there, writing h. Backward is the same scan of d_b = d_h + Aᵀ d_b run from the
 * end. Reads a and b twice, writes h once. */
#include "common.cuh"

namespace {

constexpr int LANES = 32, CHUNKS = 8, MAX_S = FUSED_SCAN_MAX_STATES;

struct ScanDims {
  int64_t T, B, S, D;
  int32_t reverse;
  const bool *resets;
  const int64_t *lengths; /* on the device, or NULL */
};

/* The step taken k-th by a row of len steps, as scan.h's scan_step. */
__device__ inline int64_t step_of(const ScanDims &d, int64_t k, int64_t len) {
  return d.reverse ? len - 1 - k : k;
}
__device__ inline bool starts(const ScanDims &d, int64_t b, int64_t t, int64_t k) {
  return k == 0 || (d.resets && d.resets[t * d.B + b]);
}
/* Element (i, j) of A at step t of channel (b, c), state i of a (T x B x S x D) at t. */
__device__ inline int64_t at_A(const ScanDims &d, int64_t t, int64_t b, int64_t c, int64_t i,
                               int64_t j) {
  return (((t * d.B + b) * d.S + i) * d.S + j) * d.D + c;
}
__device__ inline int64_t at_h(const ScanDims &d, int64_t t, int64_t b, int64_t c, int64_t i) {
  return ((t * d.B + b) * d.S + i) * d.D + c;
}

/* out = A_t v (+ add at t when add is not NULL), Aᵀ when transposed; v NULL is zero. */
template <typename T>
__device__ void apply(T *out, const T *A, const ScanDims &d, int64_t t, int64_t b, int64_t c,
                      const T *v, bool transposed, const T *add) {
  for (int64_t i = 0; i < d.S; i++) {
    T acc = add ? add[at_h(d, t, b, c, i)] : T(0);
    if (v)
      for (int64_t j = 0; j < d.S; j++)
        acc += A[transposed ? at_A(d, t, b, c, j, i) : at_A(d, t, b, c, i, j)] * v[j];
    out[i] = acc;
  }
}

/* M = A_t M (Aᵀ when transposed), M S x S in registers. */
template <typename T>
__device__ void compose(T *M, const T *A, const ScanDims &d, int64_t t, int64_t b, int64_t c,
                        bool transposed) {
  T col[MAX_S];
  for (int64_t j = 0; j < d.S; j++) {
    for (int64_t i = 0; i < d.S; i++) col[i] = M[i * MAX_S + j];
    T out[MAX_S];
    apply(out, A, d, t, b, c, col, transposed, (const T *)nullptr);
    for (int64_t i = 0; i < d.S; i++) M[i * MAX_S + j] = out[i];
  }
}

__device__ inline int64_t least(int64_t a, int64_t b) { return a < b ? a : b; }

/* The piece of the steps thread y runs: [k0, k1). */
__device__ inline void piece_of(const ScanDims &d, int64_t *k0, int64_t *k1) {
  const int64_t per = (d.T + CHUNKS - 1) / CHUNKS;
  *k0 = least(d.T, (int64_t)threadIdx.y * per);
  *k1 = least(d.T, *k0 + per);
}

/* The pieces' maps, in shared memory by piece and lane; after carries() each piece's v holds
 * its incoming state instead. */
template <typename T> struct Maps {
  T M[CHUNKS][LANES][MAX_S * MAX_S];
  T v[CHUNKS][LANES][MAX_S];
};

/* Thread y == 0 of each lane runs the pieces' maps in order (from the last when from_end). */
template <typename T> __device__ void carries(Maps<T> &s, const ScanDims &d, const T *first,
                                              bool from_end) {
  __syncthreads();
  if (threadIdx.y == 0) {
    const int x = threadIdx.x;
    T c[MAX_S];
    for (int64_t i = 0; i < d.S; i++) c[i] = first ? first[i * d.D] : T(0);
    for (int q = 0; q < CHUNKS; q++) {
      const int y = from_end ? CHUNKS - 1 - q : q;
      T next[MAX_S];
      for (int64_t i = 0; i < d.S; i++) {
        next[i] = s.v[y][x][i];
        for (int64_t j = 0; j < d.S; j++) next[i] += s.M[y][x][i * MAX_S + j] * c[j];
      }
      for (int64_t i = 0; i < d.S; i++) s.v[y][x][i] = c[i], c[i] = next[i];
    }
  }
  __syncthreads();
}

template <typename T>
__global__ void scan_forward_kernel(T *h, const T *A, const T *bs, const T *h0, ScanDims d) {
  __shared__ Maps<T> s;
  const int64_t ch = (int64_t)blockIdx.x * LANES + threadIdx.x;
  const bool live = ch < d.B * d.D;
  const int64_t b = live ? ch / d.D : 0, c = live ? ch % d.D : 0;
  const int64_t len = d.lengths ? d.lengths[b] : d.T;
  const T *first = h0 ? h0 + b * d.S * d.D + c : nullptr;
  T start[MAX_S];
  for (int64_t i = 0; i < d.S; i++) start[i] = first ? first[i * d.D] : T(0);
  int64_t k0, k1;
  piece_of(d, &k0, &k1);
  T *M = s.M[threadIdx.y][threadIdx.x], *v = s.v[threadIdx.y][threadIdx.x];
  for (int64_t i = 0; i < d.S; i++) {
    v[i] = 0;
    for (int64_t j = 0; j < d.S; j++) M[i * MAX_S + j] = i == j;
  }
  for (int64_t k = k0; live && k < least(k1, len); k++) {
    const int64_t t = step_of(d, k, len);
    T out[MAX_S];
    if (starts(d, b, t, k)) {
      for (int64_t i = 0; i < d.S * MAX_S; i++) M[i] = 0;
      apply(out, A, d, t, b, c, start, false, bs);
    } else {
      compose(M, A, d, t, b, c, false);
      apply(out, A, d, t, b, c, v, false, bs);
    }
    for (int64_t i = 0; i < d.S; i++) v[i] = out[i];
  }
  carries(s, d, first, false);
  if (!live) return;
  T cur[MAX_S];
  for (int64_t i = 0; i < d.S; i++) cur[i] = s.v[threadIdx.y][threadIdx.x][i];
  for (int64_t k = k0; k < k1; k++) {
    if (k >= len) {
      for (int64_t i = 0; i < d.S; i++) h[at_h(d, k, b, c, i)] = 0;
      continue;
    }
    const int64_t t = step_of(d, k, len);
    T out[MAX_S];
    apply(out, A, d, t, b, c, starts(d, b, t, k) ? start : cur, false, bs);
    for (int64_t i = 0; i < d.S; i++) h[at_h(d, t, b, c, i)] = cur[i] = out[i];
  }
}

/* Backward from the end: g_k = d_h at step k + A_{k+1}ᵀ g_{k+1}, unless step k + 1 starts a
 * segment or lies past the row's length. */
template <typename T>
__global__ void scan_backward_kernel(T *d_A, T *d_b, T *d_h0, const T *d_h, const T *A,
                                     const T *h, const T *h0, ScanDims d) {
  __shared__ Maps<T> s;
  const int64_t ch = (int64_t)blockIdx.x * LANES + threadIdx.x;
  const bool live = ch < d.B * d.D;
  const int64_t b = live ? ch / d.D : 0, c = live ? ch % d.D : 0;
  const int64_t len = d.lengths ? d.lengths[b] : d.T;
  int64_t k0, k1;
  piece_of(d, &k0, &k1);
  /* Whether the gradient flows into step k from step k + 1. */
  auto flows = [&](int64_t k) {
    return k + 1 < len && !starts(d, b, step_of(d, k + 1, len), k + 1);
  };
  T *M = s.M[threadIdx.y][threadIdx.x], *v = s.v[threadIdx.y][threadIdx.x];
  for (int64_t i = 0; i < d.S; i++) {
    v[i] = 0;
    for (int64_t j = 0; j < d.S; j++) M[i * MAX_S + j] = i == j;
  }
  for (int64_t k = least(k1, len) - 1; live && k >= k0; k--) {
    const int64_t t = step_of(d, k, len);
    T out[MAX_S];
    if (!flows(k)) {
      for (int64_t i = 0; i < d.S * MAX_S; i++) M[i] = 0;
      apply(out, A, d, t, b, c, (const T *)nullptr, true, d_h);
    } else {
      const int64_t next = step_of(d, k + 1, len);
      compose(M, A, d, next, b, c, true);
      apply(out, A, d, next, b, c, v, true, (const T *)nullptr);
      for (int64_t i = 0; i < d.S; i++) out[i] += d_h[at_h(d, t, b, c, i)];
    }
    for (int64_t i = 0; i < d.S; i++) v[i] = out[i];
  }
  carries(s, d, (const T *)nullptr, true);
  T g[MAX_S], dh0[MAX_S] = {};
  for (int64_t i = 0; i < d.S; i++) g[i] = live ? s.v[threadIdx.y][threadIdx.x][i] : T(0);
  for (int64_t k = k1 - 1; live && k >= k0; k--) {
    if (k >= len) {
      for (int64_t i = 0; i < d.S; i++) {
        d_b[at_h(d, k, b, c, i)] = 0;
        for (int64_t j = 0; j < d.S; j++) d_A[at_A(d, k, b, c, i, j)] = 0;
      }
      continue;
    }
    const int64_t t = step_of(d, k, len);
    T out[MAX_S];
    if (flows(k)) apply(out, A, d, step_of(d, k + 1, len), b, c, g, true, (const T *)nullptr);
    else for (int64_t i = 0; i < d.S; i++) out[i] = 0;
    for (int64_t i = 0; i < d.S; i++) g[i] = out[i] + d_h[at_h(d, t, b, c, i)];
    for (int64_t i = 0; i < d.S; i++) d_b[at_h(d, t, b, c, i)] = g[i];
    const bool first = starts(d, b, t, k);
    const int64_t before = first ? 0 : step_of(d, k - 1, len);
    for (int64_t j = 0; j < d.S; j++) {
      const T p = !first ? h[at_h(d, before, b, c, j)]
                         : h0 ? h0[(b * d.S + j) * d.D + c] : T(0);
      for (int64_t i = 0; i < d.S; i++) d_A[at_A(d, t, b, c, i, j)] = g[i] * p;
    }
    if (first) {
      apply(out, A, d, t, b, c, g, true, (const T *)nullptr);
      for (int64_t i = 0; i < d.S; i++) dh0[i] += out[i];
    }
  }
  if (!d_h0) return;
  /* Each piece's share of d_h0, summed in piece order by thread y == 0. */
  for (int64_t i = 0; i < d.S; i++) s.v[threadIdx.y][threadIdx.x][i] = dh0[i];
  __syncthreads();
  if (threadIdx.y != 0 || !live) return;
  for (int64_t i = 0; i < d.S; i++) {
    T sum = 0;
    for (int y = 0; y < CHUNKS; y++) sum += s.v[y][threadIdx.x][i];
    d_h0[(b * d.S + i) * d.D + c] = sum;
  }
}

/* The problem's dims and the lengths on the device (lengths_dev holds them). */
int dims_of(const char *fn, const fused_tensor *ref, const fused_tensor *resets,
            const int64_t *lengths, Scratch &lengths_dev, ScanDims *d) {
  *d = {ref->sizes[0], ref->sizes[1], ref->sizes[2], ref->sizes[3], 0,
        resets ? (const bool *)resets->data : nullptr, nullptr};
  if (!lengths) return 0;
  if (!lengths_dev.ptr) return -1;
  d->lengths = lengths_dev.as<const int64_t>();
  return cuda_check(fn, cudaMemcpyAsync(lengths_dev.ptr, lengths, (size_t)d->B * sizeof(int64_t),
                                        cudaMemcpyHostToDevice, cuda_stream));
}

unsigned blocks_of(const ScanDims &d) { return (unsigned)((d.B * d.D + LANES - 1) / LANES); }

} // namespace

template <typename T>
int cuda_linear_scan(fused_tensor *h, const fused_tensor *A, const fused_tensor *b,
                     const fused_tensor *h0, const fused_tensor *resets, const int64_t *lengths,
                     int32_t reverse) {
  const char *fn = "linear_scan";
  Scratch lengths_dev(fn, lengths ? (size_t)b->sizes[1] * sizeof(int64_t) : 1);
  ScanDims d;
  if (dims_of(fn, b, resets, lengths, lengths_dev, &d)) return -1;
  d.reverse = reverse;
  if (d.T == 0 || d.B * d.D == 0) return 0;
  FUSED_LAUNCH(blocks_of(d), dim3(LANES, CHUNKS), 0, cuda_stream, scan_forward_kernel<T>)(
      (T *)h->data, (const T *)A->data, (const T *)b->data,
      h0 ? (const T *)h0->data : nullptr, d);
  return cuda_done(fn);
}

template <typename T>
int cuda_linear_scan_backward(fused_tensor *d_A, fused_tensor *d_b, fused_tensor *d_h0,
                              const fused_tensor *d_h, const fused_tensor *A,
                              const fused_tensor *h, const fused_tensor *h0,
                              const fused_tensor *resets, const int64_t *lengths,
                              int32_t reverse) {
  const char *fn = "linear_scan_backward";
  Scratch lengths_dev(fn, lengths ? (size_t)d_h->sizes[1] * sizeof(int64_t) : 1);
  ScanDims d;
  if (dims_of(fn, d_h, resets, lengths, lengths_dev, &d)) return -1;
  d.reverse = reverse;
  if (d.B * d.D == 0) return 0;
  if (d.T == 0) /* no step: d_h0 is zero */
    return d_h0 ? cuda_check(fn, cudaMemsetAsync(d_h0->data, 0, (size_t)(d.B * d.S * d.D) * sizeof(T),
                                                 cuda_stream))
                : 0;
  FUSED_LAUNCH(blocks_of(d), dim3(LANES, CHUNKS), 0, cuda_stream, scan_backward_kernel<T>)(
      (T *)d_A->data, (T *)d_b->data, d_h0 ? (T *)d_h0->data : nullptr, (const T *)d_h->data,
      (const T *)A->data, (const T *)h->data, h0 ? (const T *)h0->data : nullptr, d);
  return cuda_done(fn);
}

FUSED_KERNELS_SCAN(FUSED_CUDA_INSTANTIATE_FLOATING)
