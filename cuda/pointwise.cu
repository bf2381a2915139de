/* Elementwise ops on contiguous tensors: unary maps (and their derivatives), binary ops with a
 * tensor or a scalar. The op is a kernel argument: every thread takes the same branch. */
#include "common.cuh"

template <typename T>
__device__ inline T apply_unary(fused_unary_op op, T z, T alpha) {
  switch (op) {
    case FUSED_NEG: return -z;
    case FUSED_EXP: return dexp(z);
    case FUSED_LOG: return dlog(z);
    case FUSED_TANH: return dtanh(z);
    case FUSED_SIGMOID: return dsigmoid(z);
    case FUSED_ELU: return z > 0 ? z : alpha * dexpm1(z);
    case FUSED_RELU: return z <= 0 ? T(0) : z; /* NaN fails the test: relu(NaN) is NaN */
    case FUSED_SQRT: return dsqrt(z);
    case FUSED_ABS: return dabs(z);
    case FUSED_D_EXP: return dexp(z);
    case FUSED_D_LOG: return T(1) / z;
    case FUSED_D_TANH: { const T t = dtanh(z); return T(1) - t * t; }
    case FUSED_D_SIGMOID: { const T s = dsigmoid(z); return s * (T(1) - s); }
    case FUSED_D_ELU: return z > 0 ? T(1) : alpha * dexp(z);
    case FUSED_D_RELU: return z > 0 ? T(1) : z <= 0 ? T(0) : z;
    default: return T(0); /* the API has rejected unknown ops */
  }
}

/* NaN-propagating max and min, as on the CPU. */
template <typename T>
__device__ inline T apply_binary(fused_binary_op op, T a, T b) {
  switch (op) {
    case FUSED_ADD: return a + b;
    case FUSED_SUB: return a - b;
    case FUSED_MUL: return a * b;
    case FUSED_DIV: return a / b;
    case FUSED_RSUB: return b - a;
    case FUSED_RDIV: return b / a;
    case FUSED_POW: return dpow(a, b);
    case FUSED_MAX: return a > b || a != a ? a : b;
    case FUSED_MIN: return a < b || a != a ? a : b;
    default: return T(0);
  }
}

template <typename T>
__global__ void unary_kernel(fused_unary_op op, T *y, const T *x, T alpha, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_unary(op, x[i], alpha);
}

template <typename T>
__global__ void binary_kernel(fused_binary_op op, T *y, const T *a, const T *b, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_binary(op, a[i], b[i]);
}

template <typename T>
__global__ void binary_scalar_kernel(fused_binary_op op, T *y, const T *a, T s, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_binary(op, a[i], s);
}

template <typename T>
int cuda_unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha) {
  const int64_t n = fused_tensor_numel(out);
  unary_kernel<T><<<blocks_for(n), THREADS, 0, cuda_stream>>>(op, (T *)out->data,
                                                              (const T *)in->data, (T)alpha, n);
  return cuda_done("unary");
}

template <typename T>
int cuda_binary(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                const fused_tensor *b) {
  const int64_t n = fused_tensor_numel(out);
  binary_kernel<T><<<blocks_for(n), THREADS, 0, cuda_stream>>>(
      op, (T *)out->data, (const T *)a->data, (const T *)b->data, n);
  return cuda_done("binary");
}

template <typename T>
int cuda_binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                       double scalar) {
  const int64_t n = fused_tensor_numel(out);
  binary_scalar_kernel<T><<<blocks_for(n), THREADS, 0, cuda_stream>>>(
      op, (T *)out->data, (const T *)a->data, (T)scalar, n);
  return cuda_done("binary_scalar");
}

#define INSTANTIATE(T)                                                                    \
  template int cuda_unary<T>(fused_unary_op, fused_tensor *, const fused_tensor *, double); \
  template int cuda_binary<T>(fused_binary_op, fused_tensor *, const fused_tensor *,        \
                              const fused_tensor *);                                        \
  template int cuda_binary_scalar<T>(fused_binary_op, fused_tensor *, const fused_tensor *, \
                                     double);
INSTANTIATE(float)
INSTANTIATE(double)
