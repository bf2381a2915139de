/* A cell's steps compiled for CUDA (docs/extending.md): the same FUSED_CELL_FORWARD/BACKWARD
 * bodies as on the CPU, read here with one element a thread. fused_ext.h includes this in CUDA
 * code (nvcc, or the C++ compiler against the CUDA emulator), so that one source of a cell's
 * maths, a fused.ext.cell's file or the C that fused.cell.define generates, builds for both.
 *
 * In a body, fused_simd.h's names are one lane wide: `vec` is scalar_t, vload(p, m) is *p,
 * vstore(p, v, m) is *p = v, vsplat(x) and vselect(mask, a, b) are a scalar and ?:, and
 * VEC_FOR(H, j, m, {...}) runs its body once, for the thread's element j (m = 1); the
 * activations and the built-in cells' steps are c/maths/'s, the ones fused's own CUDA engine
 * runs. FUSED_CELL_FORWARD(name, ...) then defines name_cuda_forward_f32 and _f64 (and
 * FUSED_CELL_BACKWARD name_cuda_backward_...): each queues one step over the B rows on fused's
 * stream (fused_cell_launch in fused.h), a padded row of a ragged batch handled as
 * cuda/rnn.cu handles the built-in cells'; fused.ext.cell registers them with
 * fused_rnn_register_cell_cuda. */
#ifndef FUSED_CELL_CUDA_H
#define FUSED_CELL_CUDA_H

#include "fused.h"
#include "fused_launch.h"
#include "maths/cells.h"

extern "C" void *fused_cuda_stream(void);
extern "C" int fused_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define VEC_LANES 1
#define vload(p, m) (*(p))
#define vstore(p, v, m) (*(p) = (v))
#define vsplat(x) ((scalar_t)(x))
#define vselect(mask, a, b) ((mask) ? (a) : (b))
#define vabs(v) m_abs(v)
#define vexp_nonpos(v) m_exp_nonpos(v)
#define vexpm1_nonpos(v) m_expm1_nonpos(v)
#define VEC_FOR(n, j, m, ...)                          \
  {                                                    \
    const int64_t j = fused_cell_j, m = 1;             \
    (void)m;                                           \
    __VA_ARGS__                                        \
  }
/* exp, log, log1p or sqrt of any argument; softplus without overflow. */
#define FUSED_LANEWISE(fn, x) m_##fn(x)
template <typename T> __host__ __device__ inline T fused_softplus(T y) {
  return (y > 0 ? y : T(0)) + m_log1p(m_exp_nonpos(-m_abs(y)));
}
#define FUSED_SOFTPLUS(x) fused_softplus(x)

/* One step forward over the p.B × p.H elements of p's rows (Step::run: one element). */
template <typename T, typename Step>
__global__ void fused_cell_forward_kernel(fused_cell_launch p) {
  const int64_t n = p.B * p.H, H = p.H;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = i / H, j = i % H;
    T *s = (T *)p.s + r * p.ld, *hn = (T *)p.h_next + r * p.ld_next;
    T *o = (T *)p.out + r * p.ld_out;
    if (p.lengths && p.t >= p.lengths[r]) {
      hn[j] = s[p.h_prev * H + j];
      for (int32_t k = 0; k < p.outputs; k++) o[k * H + j] = 0;
      continue;
    }
    Step::template run<T>(H, j, s, (const T *)p.gh + r * p.gates * H, (const T *)p.b_ih,
                          (const T *)p.b_hh, p.c ? (T *)p.c + r * p.has_c * H : nullptr, hn, o);
  }
}

/* One step backward over the p.B × p.H elements; a padded row's gate and parameter gradients
 * are zero. */
template <typename T, typename Step>
__global__ void fused_cell_backward_kernel(fused_cell_launch p) {
  const int64_t n = p.B * p.H, H = p.H;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = i / H, j = i % H;
    T *s = (T *)p.s + r * p.ld;
    if (p.lengths && p.t >= p.lengths[r]) {
      for (int32_t g = 0; g < p.gates; g++) s[(p.d_ih + g) * H + j] = s[(p.d_hh + g) * H + j] = 0;
      for (int32_t g = p.gates; g < p.gates + p.params; g++) s[(p.d_hh + g) * H + j] = 0;
      continue;
    }
    Step::template run<T>(H, j, s, p.d_out ? (const T *)p.d_out + r * p.ld_out : nullptr,
                          (T *)p.dh + r * H, p.dc ? (T *)p.dc + r * p.has_c * H : nullptr);
  }
}

/* Queues kernel over p's elements, 256 threads a block, on fused's stream; fn names the step
 * in an error. */
template <typename Kernel> inline int fused_cell_launch_step(const char *fn, Kernel kernel,
                                                             const fused_cell_launch *p) {
  const int64_t n = p->B * p->H, threads = 256, most = 8192;
  int64_t blocks = (n + threads - 1) / threads;
  blocks = blocks < 1 ? 1 : blocks > most ? most : blocks;
  FUSED_LAUNCH((unsigned)blocks, (unsigned)threads, 0, (cudaStream_t)fused_cuda_stream(),
               kernel)(*p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return fused_error("%s: CUDA error %s (%s)", fn, cudaGetErrorName(err),
                       cudaGetErrorString(err));
  return 0;
}

/* The device half of FUSED_CELL_FORWARD/BACKWARD: the body as a one-element function and the
 * Step type the kernels take (name_forward_step, name_backward_step). cuda/rnn.cu writes the
 * built-in cells' steps with these, so that every cell's step runs in the kernels above. */
#define FUSED_CELL_DEVICE_FORWARD(name, ...)                                                   \
  template <typename scalar_t>                                                                 \
  __host__ __device__ inline void name##_forward_element(                                      \
      int64_t H, int64_t fused_cell_j, scalar_t *s, const scalar_t *gh, const scalar_t *b_ih,  \
      const scalar_t *b_hh, scalar_t *c, scalar_t *h_next, scalar_t *out) {                    \
    typedef scalar_t vec __attribute__((unused));                                              \
    (void)H, (void)c;                                                                          \
    __VA_ARGS__                                                                                \
  }                                                                                            \
  struct name##_forward_step {                                                                 \
    template <typename T>                                                                      \
    __host__ __device__ static void run(int64_t H, int64_t j, T *s, const T *gh,               \
                                        const T *b_ih, const T *b_hh, T *c, T *h_next,         \
                                        T *out) {                                              \
      name##_forward_element<T>(H, j, s, gh, b_ih, b_hh, c, h_next, out);                      \
    }                                                                                          \
  };
#define FUSED_CELL_DEVICE_BACKWARD(name, ...)                                                  \
  template <typename scalar_t>                                                                 \
  __host__ __device__ inline void name##_backward_element(                                     \
      int64_t H, int64_t fused_cell_j, scalar_t *s, const scalar_t *d_out, scalar_t *dh,       \
      scalar_t *dc) {                                                                          \
    typedef scalar_t vec __attribute__((unused));                                              \
    (void)H, (void)dc;                                                                         \
    __VA_ARGS__                                                                                \
  }                                                                                            \
  struct name##_backward_step {                                                                \
    template <typename T>                                                                      \
    __host__ __device__ static void run(int64_t H, int64_t j, T *s, const T *d_out, T *dh,     \
                                        T *dc) {                                               \
      name##_backward_element<T>(H, j, s, d_out, dh, dc);                                      \
    }                                                                                          \
  };

#define FUSED_CELL_FORWARD(name, ...)                                                          \
  FUSED_CELL_DEVICE_FORWARD(name, __VA_ARGS__)                                                 \
  extern "C" int name##_cuda_forward_f32(const fused_cell_launch *p) {                         \
    return fused_cell_launch_step(#name "_cuda_forward_f32",                                   \
                                  fused_cell_forward_kernel<float, name##_forward_step>, p);   \
  }                                                                                            \
  extern "C" int name##_cuda_forward_f64(const fused_cell_launch *p) {                         \
    return fused_cell_launch_step(#name "_cuda_forward_f64",                                   \
                                  fused_cell_forward_kernel<double, name##_forward_step>, p);  \
  }

#define FUSED_CELL_BACKWARD(name, ...)                                                         \
  FUSED_CELL_DEVICE_BACKWARD(name, __VA_ARGS__)                                                \
  extern "C" int name##_cuda_backward_f32(const fused_cell_launch *p) {                        \
    return fused_cell_launch_step(#name "_cuda_backward_f32",                                  \
                                  fused_cell_backward_kernel<float, name##_backward_step>, p); \
  }                                                                                            \
  extern "C" int name##_cuda_backward_f64(const fused_cell_launch *p) {                        \
    return fused_cell_launch_step(#name "_cuda_backward_f64",                                  \
                                  fused_cell_backward_kernel<double, name##_backward_step>, p);\
  }

#endif
