/* fused: tensors and fused neural-network kernels behind a flat C API.
 *
 * Everything between the ffi markers is read by LuaJIT's ffi.cdef once the C preprocessor has
 * expanded it (scripts/gen-cdef.sh writes lua/fused/cdef.lua), so it holds declarations and
 * the macros that make them, and includes nothing.
 *
 * Conventions
 * - Every function returns a status: 0 on success, -1 on error; fused_last_error() then
 *   gives a message naming the function (its name here without the fused_ prefix; the
 *   functions of several ops, fused_unary, fused_binary, fused_compare, their _scalar forms,
 *   fused_softmax_forward/backward, fused_addmm and fused_cumsum, name the op: "exp",
 *   "log_softmax", "matmul" for a NULL bias, "d_cumsum" for reverse), the argument by its
 *   parameter name here, what was expected and what came. Dims and the entries of a list
 *   argument (inputs[0]) count from 0, as the dim arguments do; an element named by its
 *   position (an index value out of range at position 2) counts from 1, as index values do.
 *   Nothing here exits or aborts on bad input. The few that return a value say which value
 *   means an error.
 * - A tensor argument is a struct filled by fused_tensor_init, fused_tensor_new or
 *   fused_tensor_view; NULL or a released one (storage NULL) is an error, not a crash.
 * - An output must not share memory with an input, except where an op says so (elementwise ops
 *   accept an input that is exactly the output); an overlap is an error, never a wrong result.
 *   Nor may an output overlap itself (an expanded view, stride 0 over a size > 1): PyTorch
 *   refuses such a write too, and the remedy is to clone() it first. Reading one is fine.
 * - Tensors are row-major, 1 to FUSED_MAX_DIMS dims, on the CPU or a CUDA device. Every
 *   dtype can be stored, copied, converted, filled and compared; the arithmetic (unary, binary,
 *   addmm, reductions, LLTM, losses, optimizers) takes float32 and float64 only, and says
 *   "expected a floating dtype" to an int64 or bool tensor. A tensor owns a reference to a
 *   storage; views (narrow, transpose) share it
 *   and may be strided. Kernels that need contiguous data say so in their error.
 * - Outputs come first and are allocated by the caller: an op checks their shapes, dtype and
 *   device, then writes them. Strides are counted in elements.
 */
#ifndef FUSED_H
#define FUSED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Empty in C; const in the cdef (scripts/gen-cdef.sh), where Lua must not write a tensor. */
#ifndef FUSED_READONLY
#define FUSED_READONLY
#endif

/* ffi-begin */
enum { FUSED_MAX_DIMS = 8 };

/* The lists below are X-macros: each row is expanded into an enum here (the cdef holds the
 * expansion: scripts/gen-cdef.sh runs the C preprocessor), the tables behind fused_device_name
 * and the fused_*_info_of functions, the kernel tables and switches, and the Lua tables built
 * from those functions at load. Each table over a list asserts its count (static_assert), so a row added
 * without filling one fails to compile. A list's enum holds its rows, and its count is apart
 * (FUSED_NUM_...), so that a switch over the enum lacks no case (-Werror=switch). */
#define FUSED_ENUM_ROW(id, ...) id,
#define FUSED_COUNT_ROW(...) +1

/* The 16-bit floating types are stored as their bits (C has no portable type for them; the
 * conversions, rounded to nearest even, are c/maths/convert.h's). They store, convert, fill,
 * compare and select; they have no arithmetic kernels: the Lua op layer computes them in
 * float32 and rounds each result (lua/fused/ops/widen.lua). */
typedef struct fused_bfloat16 { uint16_t bits; } fused_bfloat16;
typedef struct fused_float16 { uint16_t bits; } fused_float16;

/* The dtypes, in value order: X(enum, C type, name, npy descr (NULL: none), safetensors code,
 * floating, Torch7 class, MPI type, NCCL type). bool is one byte holding 0 or 1. Lua's element
 * pointer is the C type's ("float*"). */
#define FUSED_DTYPES(X)                                                                    \
  X(FUSED_FLOAT32, float, float32, "<f4", "F32", 1, FloatTensor, MPI_FLOAT, ncclFloat32)     \
  X(FUSED_FLOAT64, double, float64, "<f8", "F64", 1, DoubleTensor, MPI_DOUBLE, ncclFloat64)  \
  X(FUSED_INT64, int64_t, int64, "<i8", "I64", 0, LongTensor, MPI_INT64_T, ncclInt64)        \
  X(FUSED_BOOL, bool, bool, "|b1", "BOOL", 0, BoolTensor, MPI_C_BOOL, ncclUint8)           \
  X(FUSED_BFLOAT16, fused_bfloat16, bfloat16, NULL, "BF16", 1, BFloat16Tensor, MPI_UINT16_T, \
    ncclBfloat16)                                                                            \
  X(FUSED_FLOAT16, fused_float16, float16, "<f2", "F16", 1, HalfTensor, MPI_UINT16_T,       \
    ncclFloat16)
typedef enum { FUSED_DTYPES(FUSED_ENUM_ROW) } fused_dtype;
enum { FUSED_NUM_DTYPES = 0 FUSED_DTYPES(FUSED_COUNT_ROW) };

/* The devices: X(enum, name). */
#define FUSED_DEVICES(X) X(FUSED_CPU, cpu) X(FUSED_CUDA, cuda)
typedef enum { FUSED_DEVICES(FUSED_ENUM_ROW) } fused_device;
enum { FUSED_NUM_DEVICES = 0 FUSED_DEVICES(FUSED_COUNT_ROW) };
/* A device's name ("cpu"), or NULL for an unknown device. */
const char *fused_device_name(int32_t device);

typedef struct fused_storage fused_storage;

/* C writes these fields; Lua reads them only (the cdef is made with FUSED_READONLY const),
 * and every op checks them against the storage before a kernel trusts them. */
typedef struct fused_tensor {
  char *FUSED_READONLY data;                  /* first element: storage base + offset */
  fused_storage *FUSED_READONLY storage;      /* shared by views; freed with its last tensor */
  FUSED_READONLY int64_t sizes[FUSED_MAX_DIMS];
  FUSED_READONLY int64_t strides[FUSED_MAX_DIMS]; /* in elements */
  FUSED_READONLY int32_t ndim;
  FUSED_READONLY int32_t scalar_type;         /* fused_dtype */
  FUSED_READONLY int32_t device_type;         /* fused_device */
} fused_tensor;

const char *fused_last_error(void);

/* Tensors. fused_tensor_init fills a caller-owned struct (LuaJIT's ffi.new) with a new storage,
 * fused_tensor_release drops its reference; fused_tensor_new/free do the same for a struct on
 * the heap, for C callers. A new tensor's memory is uninitialised. ndim is 0 to FUSED_MAX_DIMS
 * (0: a 0-d tensor of one element) and sizes are >= 0 (a size 0: an empty tensor, whose data is
 * still a valid pointer that no op reads or writes), as in PyTorch. */
int fused_tensor_init(fused_tensor *t, int32_t ndim, const int64_t *sizes, int32_t dtype,
                      int32_t device);
void fused_tensor_release(fused_tensor *t);
int fused_tensor_new(fused_tensor **out, int32_t ndim, const int64_t *sizes, int32_t dtype,
                     int32_t device);
void fused_tensor_free(fused_tensor *t);
/* Fills out with a view of src's storage; offset (from src's data) and strides in elements,
 * checked against the storage. An empty view (a size 0) reaches no element and fits at any
 * offset >= 0, as PyTorch's; its data then points no further than just past the storage.
 * Release it like any tensor. out holds no storage reference yet (new or released),
 * or is src itself, whose reference then passes to the view. */
int fused_tensor_view(fused_tensor *out, const fused_tensor *src, int32_t ndim,
                      const int64_t *sizes, const int64_t *strides, int64_t offset);
/* 1 or 0; -1 on error. */
int fused_tensor_is_contiguous(const fused_tensor *t);
/* 0 when an op may write t: no two of its elements share memory; else the error every op
 * gives for such an output, naming the op fn and its argument arg (for bindings that write
 * through a temporary, so that the user's op is named rather than the copy back). */
int fused_check_writable(const char *fn, const char *arg, const fused_tensor *t);
/* 0 when value is exactly one of dtype's values, so that writing it (fill, t[i] = v) loses
 * nothing: an int64 takes an integer in [-2^63, 2^63) (no NaN, infinity or fraction), a bool
 * 0 or 1 (PyTorch takes any nonzero as true; a 2 or a 0.5 written into a bool is taken for a
 * mistake: compare instead, x:ne(0)), a float any number, rounded as C rounds. Else the error,
 * naming the op fn and its argument arg (for bindings, whose users know other names). */
int fused_check_scalar(const char *fn, const char *arg, double value, int32_t dtype);
/* The number of elements; -1 on error. */
int64_t fused_tensor_numel(const fused_tensor *t);
/* What C knows of a dtype (its row of FUSED_DTYPES): its name ("float32"), bytes per element,
 * its codes in .npy headers ("<f4") and safetensors files ("F32"), whether the arithmetic takes
 * it, the FFI type of a pointer to its elements ("float*") and its Torch7 class
 * ("FloatTensor"). */
typedef struct fused_dtype_info {
  const char *name;
  int32_t size;
  const char *npy_descr;
  const char *safetensors;
  int32_t is_floating;
  const char *pointer_type;
  const char *torch7_class;
} fused_dtype_info;
/* The dtype's row of the table, or NULL for an unknown dtype. */
const fused_dtype_info *fused_dtype_info_of(int32_t dtype);
/* Bytes per element; 0 for an unknown dtype. */
size_t fused_dtype_size(int32_t dtype);
/* Bytes held by live storages of a device, for the Lua side's garbage-collector pacing; -1 for
 * an unknown device. */
int64_t fused_bytes_in_use(int32_t device);

/* Whether a device's backend is loaded, and why not (the loader says why, for the messages; a
 * NULL reason is an error, reported by fused_last_error()). */
int fused_device_available(int32_t device);
const char *fused_device_unavailable_reason(int32_t device);
void fused_set_device_unavailable(int32_t device, const char *reason);

/* Threads used by the CPU kernels and OpenBLAS; 0 means all cores. */
int fused_set_num_threads(int32_t n);
int32_t fused_get_num_threads(void);

/* The CPU kernels' vector path: "avx512", "avx2" or "default" (baseline x86-64, SSE2), its
 * width and the compiler flags its kernels were built with ("-mavx2 -mfma", ...). The library
 * picks the best the CPU runs when it loads; setting one the CPU cannot run is an error. Not
 * while an op runs. */
int fused_set_cpu_capability(const char *name);
const char *fused_cpu_capability(void);
int32_t fused_cpu_vector_bits(void);
const char *fused_cpu_capability_flags(void);
/* The last-level cache's bytes the CPU kernels assume: the linear scan writes results larger
 * than it past the caches (streaming stores). The library reads it from sysfs when it loads
 * (32 MiB where sysfs does not say); bytes > 0 sets it, 0 goes back to what it read. Not while
 * an op runs. */
void fused_set_cpu_cache_bytes(int64_t bytes);
int64_t fused_cpu_cache_bytes(void);
/* How the sequence engine's bfloat16 products run now on the CPU (FUSED_COMPUTE_BFLOAT16 below):
 * "avx512_bf16" (oneDNN's matmul and a packed vdpbf16ps kernel; the avx512 kernels active, the
 * CPU with AVX512_BF16, oneDNN linked) or "float32" (the same rounded operands through the
 * float32 kernels). It follows fused_set_cpu_capability. */
const char *fused_cpu_bf16_path(void);

/* The OpenBLAS linked: its build line, the kernel family it runs on this CPU (Zen, Haswell,
 * SkylakeX, ...) and its threading (0 none, 1 pthreads, 2 OpenMP). */
const char *fused_blas_config(void);
const char *fused_blas_core(void);
int32_t fused_blas_threading(void);

/* Which library runs the CPU's matrix products (addmm, matmul, Linear, the sequence
 * engine's products over all steps, its per-step recurrent products and its weight gradients):
 * "openblas", "onednn" (dnnl_sgemm), "packed" (the engine's own kernel for the per-step
 * products, whose w_hh it packs once per sequence, and for the weight gradients; OpenBLAS for
 * the rest) or "auto" (the default: each shape class on the fastest, measured once per machine
 * and kept in the wisdom file; float64's per-step products and weight gradients too, on
 * OpenBLAS or the packed kernel). Other float64
 * products run on OpenBLAS whatever the setting (oneDNN has no float64 GEMM). An unknown name,
 * or "onednn" in a build without oneDNN, is an error. Not while an op runs. */
int fused_set_gemm(const char *name);
const char *fused_gemm(void);
/* The providers this build has ("openblas, onednn 2.6.3, packed"); the wisdom file's path and state
 * ("/home/u/.cache/fused/gemm-wisdom (12 classes)", or why it is not used); the shape classes
 * measured so far and their providers, written into buf (size bytes, "" when it does not fit),
 * returning the length they need. */
const char *fused_gemm_providers(void);
const char *fused_gemm_wisdom(void);
int64_t fused_gemm_choices(char *buf, int64_t size);
/* How many products "openblas", "onednn" or "packed" has run since the library loaded; -1 with
 * the error set for another name. */
int64_t fused_gemm_calls(const char *provider);

/* Copies: src has dst's shape (a broadcast src is an expanded view of it, stride 0; another
 * shape of as many elements is an error: view it first), any strides, any dtypes on one device
 * (C's conversions: to bool, nonzero is 1; to int64, toward zero, for values in its range);
 * between the CPU and a device, same dtype, both contiguous.
 * A src that overlaps dst is read whole before dst is written (t:copy(t:t()) transposes). */
int fused_copy(fused_tensor *dst, const fused_tensor *src);
/* Any strides and dtype; value is one of t's dtype's values (fused_check_scalar). */
int fused_fill(fused_tensor *t, double value);

/* Comparisons into a contiguous bool tensor of a's shape (1 where true): a and b of one dtype
 * and device, any dtype, or a and a scalar, compared exactly as PyTorch does (an int64 or bool
 * a as if in infinite precision: {0, 1, 2} < 0.5 is {1, 0, 0}, < 1e300 all 1; a float a
 * against the scalar rounded to its dtype). a and b may have any strides (a broadcast operand
 * is a view with stride 0); with a scalar, a is contiguous. */
/* X(enum, name, swapped): swapped the op that answers alike with the operands swapped (a < b
 * is b > a). */
#define FUSED_COMPARE_OPS(X)        \
  X(FUSED_EQ, eq, FUSED_EQ)         \
  X(FUSED_NE, ne, FUSED_NE)         \
  X(FUSED_LT, lt, FUSED_GT)         \
  X(FUSED_LE, le, FUSED_GE)         \
  X(FUSED_GT, gt, FUSED_LT)         \
  X(FUSED_GE, ge, FUSED_LE)
typedef enum { FUSED_COMPARE_OPS(FUSED_ENUM_ROW) } fused_compare_op;
enum { FUSED_NUM_COMPARE_OPS = 0 FUSED_COMPARE_OPS(FUSED_COUNT_ROW) };
/* The op's row ({"lt", FUSED_GT}), or NULL for an unknown op. */
typedef struct fused_compare_op_info {
  const char *name;
  int32_t swapped;
} fused_compare_op_info;
const fused_compare_op_info *fused_compare_op_info_of(int32_t op);
int fused_compare(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                  const fused_tensor *b);
int fused_compare_scalar(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                         double scalar);

/* Elementwise ops into a contiguous out; the inputs have its shape. unary and binary_scalar
 * take contiguous inputs; binary's a and b may have any strides (a broadcast operand is a view
 * with stride 0: NumPy's broadcasting is expanding to out's shape). alpha is ELU's, else unused.
 * The d_ ops are derivatives with respect to the op's input z, as in the PyTorch tutorial.
 * FUSED_ROUND rounds half to even (PyTorch's round); FUSED_SIGN is -1, 0 or 1 (0 for NaN, as
 * PyTorch's); on int64 the rounding ops are the identity.
 * The unary ops, X(enum, name, integers, alpha): integers 1 where int64 tensors take the op (its
 * result is an integer), alpha 1 where the op reads alpha. An op is its row here and its case
 * in c/maths/pointwise.h's apply_unary (with integers 1, arithmetic.h's apply_unary_exact too);
 * Lua makes fused.<name> and <name>_ from the row (docs/architecture.md, "Adding an op"). */
#define FUSED_UNARY_OPS(X)             \
  X(FUSED_NEG, neg, 1, 0)              \
  X(FUSED_EXP, exp, 0, 0)              \
  X(FUSED_LOG, log, 0, 0)              \
  X(FUSED_TANH, tanh, 0, 0)            \
  X(FUSED_SIGMOID, sigmoid, 0, 0)      \
  X(FUSED_ELU, elu, 0, 1)              \
  X(FUSED_RELU, relu, 0, 0)            \
  X(FUSED_SQRT, sqrt, 0, 0)            \
  X(FUSED_ABS, abs, 1, 0)              \
  X(FUSED_FLOOR, floor, 1, 0)          \
  X(FUSED_CEIL, ceil, 1, 0)            \
  X(FUSED_ROUND, round, 1, 0)          \
  X(FUSED_TRUNC, trunc, 1, 0)          \
  X(FUSED_SIGN, sign, 1, 0)            \
  X(FUSED_D_EXP, d_exp, 0, 0)          \
  X(FUSED_D_LOG, d_log, 0, 0)          \
  X(FUSED_D_TANH, d_tanh, 0, 0)        \
  X(FUSED_D_SIGMOID, d_sigmoid, 0, 0)  \
  X(FUSED_D_ELU, d_elu, 0, 1)          \
  X(FUSED_D_RELU, d_relu, 0, 0)
typedef enum { FUSED_UNARY_OPS(FUSED_ENUM_ROW) } fused_unary_op;
enum { FUSED_NUM_UNARY_OPS = 0 FUSED_UNARY_OPS(FUSED_COUNT_ROW) };
/* X(enum, name, integers, swapped): integers 1 where int64 tensors take the op (division
 * computes in float32, in Lua), swapped the op that computes it with its operands swapped
 * (scalar op a; -1: none). rsub and rdiv are sub's and div's swapped forms. */
#define FUSED_BINARY_OPS(X)                    \
  X(FUSED_ADD, add, 1, FUSED_ADD)              \
  X(FUSED_SUB, sub, 1, FUSED_RSUB)             \
  X(FUSED_MUL, mul, 1, FUSED_MUL)              \
  X(FUSED_DIV, div, 0, FUSED_RDIV)             \
  X(FUSED_RSUB, rsub, 1, FUSED_SUB)            \
  X(FUSED_RDIV, rdiv, 0, FUSED_DIV)            \
  X(FUSED_POW, pow, 1, -1)                     \
  X(FUSED_MAXIMUM, maximum, 1, FUSED_MAXIMUM)  \
  X(FUSED_MINIMUM, minimum, 1, FUSED_MINIMUM)
typedef enum { FUSED_BINARY_OPS(FUSED_ENUM_ROW) } fused_binary_op;
enum { FUSED_NUM_BINARY_OPS = 0 FUSED_BINARY_OPS(FUSED_COUNT_ROW) };
/* What C knows of an op of the lists above, or NULL for an unknown op; swapped is -1 for none. */
typedef struct fused_unary_op_info {
  const char *name;
  int32_t integers, alpha;
} fused_unary_op_info;
typedef struct fused_binary_op_info {
  const char *name;
  int32_t integers, swapped;
} fused_binary_op_info;
const fused_unary_op_info *fused_unary_op_info_of(int32_t op);
const fused_binary_op_info *fused_binary_op_info_of(int32_t op);
int fused_unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha);
int fused_binary(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                 const fused_tensor *b);
/* out = a op scalar (FUSED_RSUB: scalar - a, FUSED_RDIV: scalar / a). */
int fused_binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                        double scalar);

/* out = beta * bias + alpha * a @ b, 2-D. a and b may be contiguous or transposed views of
 * contiguous matrices; bias may be NULL, a vector of out's columns (added to every row) or
 * out's shape. out is contiguous and must not overlap the inputs (bias may be out itself). */
int fused_addmm(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
                const fused_tensor *b, double beta, double alpha);

/* Reductions over dim (0-based) of a contiguous tensor; out has that dim of size 1. */
int fused_sum_dim(fused_tensor *out, const fused_tensor *in, int32_t dim);
/* The product, and the max or min with the 1-based index of the first (NULL indices: none;
 * a NaN is the extreme value), along dim of a contiguous tensor into contiguous outputs with
 * that dim of size 1 (indices int64). */
int fused_prod_dim(fused_tensor *out, const fused_tensor *in, int32_t dim);
int fused_max_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                  int32_t dim);
int fused_min_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                  int32_t dim);
/* Softmax (log_softmax 0) or log-softmax (1) along dim (0-based) of a contiguous tensor into a
 * contiguous out of its shape; the backward of either from its output y and the gradient of
 * the loss to y, into d_in; logsumexp along dim into out with that dim of size 1. Float32 and
 * float64. */
int fused_softmax_forward(fused_tensor *out, const fused_tensor *in, int32_t dim,
                          int32_t log_softmax);
int fused_softmax_backward(fused_tensor *d_in, const fused_tensor *grad_out,
                           const fused_tensor *out, int32_t dim, int32_t log_softmax);
int fused_logsumexp_dim(fused_tensor *out, const fused_tensor *in, int32_t dim);
/* Cumulative sum and product along dim (0-based) of a contiguous tensor into a contiguous out
 * of its shape and dtype (out may be in itself); int64 wraps on overflow, floats accumulate in
 * float64. cumsum's reverse (nonzero) sums from the last element: its gradient (d_cumsum).
 * The CPU's only so far. */
int fused_cumsum(fused_tensor *out, const fused_tensor *in, int32_t dim, int32_t reverse);
int fused_cumprod(fused_tensor *out, const fused_tensor *in, int32_t dim);
/* The linear-recurrence engine: for every step, in order, h_t = A_t h_{t-1} + b_t, where each
 * channel holds S coupled states (1 to FUSED_SCAN_MAX_STATES) and A_t is an S x S matrix per
 * step and channel. Layout, every tensor contiguous, of one floating dtype and device:
 *   A  T x B x S x S x D   A[t][b][i][j][d]: how state j of step t-1 enters state i of step t
 *   b  T x B x S x D       h  T x B x S x D (every step's states)      h0  B x S x D
 * D channels per batch row, contiguous, so that one step of one row is S runs of D values. S = 1
 * is fused.scan; S = 2 with rows (ar, -ai) and (ai, ar) is a complex diagonal state (re, im).
 * h0 NULL: zeros. resets NULL, or a bool T x B tensor on A's device: at a step where it is true
 * (or the first step) h_{t-1} is replaced by h0, starting a new segment. lengths NULL, or B step
 * counts 1 to T on the host: row b runs steps 0..lengths[b]-1; its later steps are 0 in h and
 * in every gradient, and its resets there are not read. reverse (nonzero) runs each row from
 * its last step down to step 0. Backward takes d_h (T x B x S x D, the gradient of h) and the
 * forward's h, and writes d_A, d_b and d_h0 (NULL: not wanted); d_b may be d_h itself. */
enum { FUSED_SCAN_MAX_STATES = 4 };
int fused_linear_scan(fused_tensor *h, const fused_tensor *A, const fused_tensor *b,
                      const fused_tensor *h0, const fused_tensor *resets, const int64_t *lengths,
                      int32_t reverse);
int fused_linear_scan_backward(fused_tensor *d_A, fused_tensor *d_b, fused_tensor *d_h0,
                               const fused_tensor *d_h, const fused_tensor *A,
                               const fused_tensor *h, const fused_tensor *h0,
                               const fused_tensor *resets, const int64_t *lengths,
                               int32_t reverse);
/* A stable sort along dim (0-based) of a contiguous tensor (descending when nonzero; NaN above
 * every number) into contiguous values (its dtype) and int64 indices counted from 1, both of
 * its shape. The CPU's only so far. */
int fused_sort(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
               int32_t dim, int32_t descending);
/* Concatenation along dim (0-based) of n tensors into a contiguous out. */
int fused_cat(fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim);

/* Selection, any dtype, into a contiguous out. where: out = cond ? a : b elementwise; cond
 * (bool), a and b (out's dtype) have out's shape, any strides (broadcast operands are stride-0
 * views); a or b may be out itself. index_select and gather pick along dim (0-based) of a
 * contiguous in by contiguous int64 indices counted from 1 on its device, each checked:
 * index_select's index is 1-D (n) and out in's shape with n along dim; gather's index has
 * out's shape, which is in's except along dim. */
int fused_where(fused_tensor *out, const fused_tensor *cond, const fused_tensor *a,
                const fused_tensor *b);
int fused_index_select(fused_tensor *out, const fused_tensor *in, int32_t dim,
                       const fused_tensor *index);
int fused_gather(fused_tensor *out, const fused_tensor *in, int32_t dim,
                 const fused_tensor *index);

/* Indexing that reads by a mask or writes by indices (c/ops/index.c), any dtype, on the CPU
 * (a CUDA tensor is an error for now); indices are int64 counted from 1, each checked, and
 * every tensor is contiguous. masked_select: out (1-D) takes in's elements where mask (bool,
 * in's shape) is true, in row-major order; out's length must be that count. masked_scatter:
 * t's elements where mask (t's shape) is true take src's first elements, in order (src has at
 * least that many). index_put: for each k < n (the length of the n_indices 1-D indices), the
 * slice of t at the positions indices[d][k] of its dims d < n_indices (the dims after them
 * whole) is set to values[k] (values [n, t's remaining sizes]), or with accumulate values[k]
 * is added, so that repeated positions add up. index_add: t[..., index[k], ...] += source[..., k, ...]
 * along dim (0-based); index 1-D, source t's shape with index's length along dim. */
int fused_masked_select(fused_tensor *out, const fused_tensor *in, const fused_tensor *mask);
int fused_masked_scatter(fused_tensor *t, const fused_tensor *mask, const fused_tensor *src);
int fused_index_put(fused_tensor *t, const fused_tensor *const *indices, int32_t n_indices,
                    const fused_tensor *values, int32_t accumulate);
int fused_index_add(fused_tensor *t, int32_t dim, const fused_tensor *index,
                    const fused_tensor *source);
/* The nonzero elements of a contiguous tensor of any dtype (NaN is nonzero): count_nonzero
 * counts them; nonzero writes their positions, counted from 1, as the rows of a contiguous
 * int64 out of count x ndim. The CPU's only so far. */
int fused_count_nonzero(int64_t *count, const fused_tensor *in);
int fused_nonzero(fused_tensor *out, const fused_tensor *in);

/* Random numbers from one generator, reproducible on every machine for a given seed. */
void fused_manual_seed(uint64_t seed);
int fused_uniform(fused_tensor *t, double low, double high);
int fused_normal(fused_tensor *t, double mean, double std);

/* How the sequence engine below multiplies (argument compute): FUSED_COMPUTE_DEFAULT in the
 * tensors' dtype; FUSED_COMPUTE_BFLOAT16 (float32 tensors only, CPU or CUDA) rounds every
 * product's operands to bfloat16 and accumulates in float32, PyTorch's CPU autocast rule, while
 * the pointwise maths, states, saved activations and gradients stay float32 (on the CPU
 * fused_cpu_bf16_path says how the products run; CUDA runs them on cublasGemmEx). Backward
 * takes the forward's compute. */
typedef enum { FUSED_COMPUTE_DEFAULT = 0, FUSED_COMPUTE_BFLOAT16 = 1 } fused_compute;

/* The LLTM (the PyTorch C++/CUDA extension tutorial) over T steps, on the sequence engine
 * below (cell FUSED_CELL_LLTM, W's first H columns its recurrent weight, the last I its input
 * weight, b its only bias); its one-step cell (nn.LLTMCell) is a sequence of T = 1.
 * Each step: X = [h, x], gates = X Wᵀ + b split into input gate (sigmoid), output gate
 * (sigmoid), candidate (ELU, alpha 1); c' = c + candidate * input_gate, h' = tanh(c') *
 * output_gate. Shapes: xs T×B×I, h0 and c0 B×H, W 3H×(H+I), b 3H; lengths and reverse as for
 * fused_rnn_forward. Forward writes hs (T×B×H, every h_t, zero at padded steps), h_T and c_T
 * (B×H, each sequence's state after its own last step) and saved (T×B×5H, the engine's).
 * Backward takes d_hs (T×B×H), d_hT and d_cT (B×H, extra gradients at the final state), each
 * NULL for zero, and the forward's saved, xs and W; writes d_xs, d_h0, d_c0 and adds into d_W
 * and d_b when accumulate is 1 (else overwrites them). It writes the gate gradients over
 * saved, so it runs once per forward. Of the outputs, only c_T may be an input (c0 itself)
 * and d_c0 (d_cT itself); hs may have a row stride (see fused_rnn_forward). */
int fused_lltm_seq_forward(fused_tensor *hs, fused_tensor *h_T, fused_tensor *c_T,
                           fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                           const fused_tensor *c0, const fused_tensor *W, const fused_tensor *b,
                           const int64_t *lengths, int32_t reverse, int32_t compute);
int fused_lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                            fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                            const fused_tensor *d_hT, const fused_tensor *d_cT,
                            fused_tensor *saved, const fused_tensor *xs, const fused_tensor *W,
                            const int64_t *lengths, int32_t reverse, int32_t accumulate,
                            int32_t compute);

/* The sequence engine: one recurrent cell of G gate blocks of H run over T steps in one
 * direction of one layer (docs/cells.md). The input projection of every step,
 * xs·w_ihᵀ (+ b_ih), is one GEMM; each step is one GEMM, h·w_hhᵀ (+ b_hh), and one pointwise
 * pass; backward is one pointwise pass and one GEMM per step, then one GEMM for all of d_xs,
 * one for d_w_ih and one for d_w_hh.
 *   FUSED_CELL_LSTM  G = 4, gates i, f, g, o (PyTorch's nn.LSTM), c0/c_n/d_c0/d_cn B×H
 *   FUSED_CELL_GRU   G = 3, gates r, z, n (PyTorch's nn.GRU), c0 c_n d_c0 d_cn NULL
 *   FUSED_CELL_LLTM  G = 3, b_hh and d_b_hh NULL (its one bias is b_ih)
 * Shapes: xs T×B×I contiguous; h0, h_n B×H; w_ih G·H×I and w_hh G·H×H (and their gradients)
 * with rows of unit stride, any row stride (column blocks of one matrix, as the LLTM's W);
 * biases G·H; saved T×B×S·H with S = fused_rnn_saved_blocks(cell); hs and d_hs T×B×H with
 * unit element stride and any row stride (one direction's half of a bidirectional output).
 * lengths: NULL (every sequence has T steps) or B integers in 1..T: sequence b runs steps
 * 1..lengths[b]; at later steps its state is carried, its hs is zero and its d_hs ignored.
 * reverse: steps run from T down to 1 (sequence b from lengths[b]). h_n and c_n are each
 * sequence's state after its own last step. Backward writes d_xs, d_h0 (and d_c0) and adds
 * into the weight and bias gradients when accumulate is 1 (else overwrites them); d_hs, d_hn
 * and d_cn may be NULL (zero). It writes over saved, so it runs once per forward. Of the
 * outputs, only c_n may be an input (c0 itself), d_h0 (d_hn) and d_c0 (d_cn). compute: see
 * fused_compute above. */
/* The built-in cells, X(enum, name, gates, saved, has_c, d_ih, d_hh, h_prev): the numbers of
 * their fused_cell_def below (c/maths/cell_layout.h explains them). Their steps are the
 * switches of c/cpu/generic/rnn.h and cuda/rnn.cu over c/maths/cells.h. */
#define FUSED_CELLS(X)                        \
  X(FUSED_CELL_LLTM, lltm, 3, 5, 1, 0, 0, 4)  \
  X(FUSED_CELL_LSTM, lstm, 4, 7, 1, 0, 0, 6)  \
  X(FUSED_CELL_GRU, gru, 3, 7, 0, 3, 0, 6)
typedef enum { FUSED_CELLS(FUSED_ENUM_ROW) } fused_cell;
enum { FUSED_NUM_CELLS = 0 FUSED_CELLS(FUSED_COUNT_ROW) };
/* S, the blocks of H that saved holds per batch row and step; -1 for an unknown cell. A cell
 * registered with fused_rnn_register_cell below runs here too. */
int32_t fused_rnn_saved_blocks(int32_t cell);
int fused_rnn_forward(int32_t cell, fused_tensor *hs, fused_tensor *h_n, fused_tensor *c_n,
                      fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                      const fused_tensor *c0, const fused_tensor *w_ih, const fused_tensor *w_hh,
                      const fused_tensor *b_ih, const fused_tensor *b_hh,
                      const int64_t *lengths, int32_t reverse, int32_t compute);
int fused_rnn_backward(int32_t cell, fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                       fused_tensor *d_w_ih, fused_tensor *d_w_hh, fused_tensor *d_b_ih,
                       fused_tensor *d_b_hh, const fused_tensor *d_hs, const fused_tensor *d_hn,
                       const fused_tensor *d_cn, fused_tensor *saved, const fused_tensor *xs,
                       const fused_tensor *w_ih, const fused_tensor *w_hh,
                       const int64_t *lengths, int32_t reverse, int32_t accumulate,
                       int32_t compute);
/* A cell of the engine, as the built-in ones are described (docs/extending.md): G gate blocks,
 * S saved blocks per row (cell_layout.h explains d_ih, d_hh and h_prev), has_c blocks of H of
 * cell state c per row (0: none; 1: the LSTM's c; a cell of several states keeps the ones
 * after h side by side), params per-unit parameter vectors of H, and its pointwise steps over
 * one batch row of one step in each dtype. forward: s is the row of saved (the input
 * projection, no bias, in blocks 0..G-1, the old h at block h_prev), gh the recurrent
 * projection (G·H, no bias), b_hh the G recurrent biases then the params vectors, c the cell
 * state (in and out, has_c·H; NULL without one); it writes what backward needs over s and the
 * new h to h_next and out. backward: dh and dc hold the gradients at the new state (dh without
 * d_out, the step's output gradient, NULL for none); it writes the gate gradients at blocks
 * d_ih and d_hh, the params' gradients at the params blocks after d_hh's G, and replaces dh by
 * the part of the old h's gradient that bypasses w_hh, dc by the old c's. outputs: the blocks
 * of H a step writes to out (and backward reads at d_out), side by side (0 or 1: one; a
 * defined cell's several output states). */
typedef void (*fused_cell_forward_f32)(int64_t H, float *s, const float *gh, const float *b_ih,
                                       const float *b_hh, float *c, float *h_next, float *out);
typedef void (*fused_cell_forward_f64)(int64_t H, double *s, const double *gh,
                                       const double *b_ih, const double *b_hh, double *c,
                                       double *h_next, double *out);
typedef void (*fused_cell_backward_f32)(int64_t H, float *s, const float *d_out, float *dh,
                                        float *dc);
typedef void (*fused_cell_backward_f64)(int64_t H, double *s, const double *d_out, double *dh,
                                        double *dc);
typedef struct fused_cell_def {
  const char *name;
  int32_t gates, saved, has_c, d_ih, d_hh, h_prev, params, outputs;
  fused_cell_forward_f32 forward_f32;
  fused_cell_backward_f32 backward_f32;
  fused_cell_forward_f64 forward_f64;
  fused_cell_backward_f64 backward_f64;
  /* A step that reads the layer's input at its unit (In = H): the engine copies xs's row into
   * block x before forward and adds block d_x, the step's direct gradient at it, into d_xs after
   * backward (0: none; block 0 is always a gate's). */
  int32_t x, d_x;
} fused_cell_def;
/* The registry's bounds: a cell's name has 1 to FUSED_CELL_NAME_MAX characters, its row 2 to
 * FUSED_CELL_SAVED_MAX saved blocks, and a process holds FUSED_CELLS_MAX cells, the built-in
 * ones among them (a registered cell stays for the life of the process: a running module may
 * hold its id). */
enum { FUSED_CELL_NAME_MAX = 63, FUSED_CELL_SAVED_MAX = 256, FUSED_CELLS_MAX = 1024 };
/* Adds a cell (copied, its name too) and returns its id for fused_rnn_forward/backward, or -1
 * with the error saying which field is wrong. Custom cells take both biases; their steps run
 * on the CPU, and on CUDA once fused_rnn_register_cell_cuda has given them device steps. */
int32_t fused_rnn_register_cell(const fused_cell_def *def);
/* The cell's description, or NULL for an unknown id. */
const fused_cell_def *fused_rnn_cell(int32_t cell);
/* One step of a registered cell on CUDA, over the B rows of one time step (cuda/rnn.cu fills
 * it; fused_cell_cuda.h's launchers read it): the device pointers of fused_cell_def's steps,
 * each a row's base, rows ld (saved), ld_next (h_next), ld_out (out, d_out), H (dh) or
 * has_c·H (c, dc) apart (gh: G·H). lengths (on the device; NULL: every row runs) makes a row at t >= its
 * length a padded one: forward copies its h_prev to h_next and zeros to out, backward zeroes
 * its gate gradients and its params' (the params blocks after d_hh's). The same struct serves forward (s .. out) and backward (s, d_out, dh,
 * dc). */
typedef struct fused_cell_launch {
  int64_t B, H, ld, t, ld_next, ld_out;
  int32_t gates, h_prev, d_ih, d_hh, has_c, params, outputs;
  const int64_t *lengths;
  void *s, *c, *h_next, *out, *dh, *dc;
  const void *gh, *b_ih, *b_hh, *d_out;
} fused_cell_launch;
/* Queues one step's kernel on fused's stream; 0, or -1 with fused_error's message. */
typedef int (*fused_cell_cuda_step)(const fused_cell_launch *step);
/* Gives a registered cell its CUDA steps (FUSED_CELL_FORWARD/BACKWARD compiled as CUDA defines
 * name_cuda_forward_f32, ...); -1 with the error for an unknown or built-in cell or a NULL
 * step. Once given, they stay. */
int fused_rnn_register_cell_cuda(int32_t cell, fused_cell_cuda_step forward_f32,
                                 fused_cell_cuda_step backward_f32,
                                 fused_cell_cuda_step forward_f64,
                                 fused_cell_cuda_step backward_f64);
/* Its CUDA step for dtype (FUSED_FLOAT32 or FUSED_FLOAT64) one way (backward 0 or 1), or NULL
 * when it has none. */
fused_cell_cuda_step fused_rnn_cell_cuda(int32_t cell, int32_t dtype, int32_t backward);
/* Optimizer updates, one fused pass over a parameter, with PyTorch's formulas. param is
 * written in place; grad and the state buffers have its shape, dtype and device; all are
 * contiguous. weight_decay adds weight_decay * param to the gradient g (L2), as PyTorch does.
 * Every coefficient (1 - beta, the bias corrections, the step sizes) is computed in double and
 * rounded to param's dtype once per step.
 * SGD: with momentum > 0, buf = momentum * buf + (1 - dampening) * g (buf = g on the first
 * step: init_buffer 1), param -= lr * buf, or with nesterov (dampening 0)
 * param -= lr * (g + momentum * buf); with momentum 0 (momentum_buffer may be NULL),
 * param -= lr * g. */
int fused_sgd_step(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                   double lr, double momentum, double dampening, double weight_decay,
                   int32_t nesterov, int32_t init_buffer);
/* RMSprop: square_avg = alpha * square_avg + (1 - alpha) * g^2, avg = sqrt(square_avg) + eps
 * (eps outside the root); with momentum > 0, buf = momentum * buf + g / avg and
 * param -= lr * buf; else param -= lr * g / avg. Buffers start at zero. */
int fused_rmsprop_step(fused_tensor *param, fused_tensor *square_avg,
                       fused_tensor *momentum_buffer, const fused_tensor *grad, double lr,
                       double alpha, double eps, double momentum, double weight_decay);
/* Adam at step t (counted from 1): m = beta1 * m + (1 - beta1) * g,
 * v = beta2 * v + (1 - beta2) * g^2,
 * param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
 * decoupled 1 (AdamW): param *= 1 - lr * weight_decay first, and g is the gradient alone. */
int fused_adam_step(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                    const fused_tensor *grad, double lr, double beta1, double beta2, double eps,
                    double weight_decay, int32_t decoupled, int64_t step);
/* The sum of the squares of all elements of a contiguous tensor, accumulated in float64. */
int fused_sum_squares(double *out, const fused_tensor *t);

/* Class indices and embedding indices are int64 values counted from 1 (as in Lua and Torch7),
 * on the other operand's device; a value out of range is an error naming its position. */
/* Cross-entropy, log-softmax and NLL fused: logits N×C, targets N. loss (1 element) receives
 * the mean over rows of logsumexp(row) - row[target]; each row's max is subtracted first, so
 * no exp overflows. Backward: d_logits = grad_loss / N * (softmax(logits) - onehot(targets)),
 * one pass per row (it recomputes the row's logsumexp rather than keep it from forward). */
int fused_cross_entropy_forward(fused_tensor *loss, const fused_tensor *logits,
                                const fused_tensor *targets);
int fused_cross_entropy_backward(fused_tensor *d_logits, const fused_tensor *logits,
                                 const fused_tensor *targets, double grad_loss);
/* Embedding: weight rows × dim, indices of any shape S; out (S × dim) receives the rows
 * picked by the indices. Backward adds each row of grad_out (S × dim) into grad_weight at its
 * index (repeated indices add up). */
int fused_embedding_forward(fused_tensor *out, const fused_tensor *weight,
                            const fused_tensor *indices);
int fused_embedding_backward(fused_tensor *grad_weight, const fused_tensor *grad_out,
                             const fused_tensor *indices);

/* Sparse matrices in CSR form, n_rows x n_cols: row_ptr (n_rows + 1 int64) holds offsets, row
 * r's entries being at positions row_ptr[r] .. row_ptr[r + 1] - 1 (counted from 0: row_ptr
 * starts at 0 and ends at nnz); col_idx (nnz int64) their columns, counted from 1 as every
 * index; values (nnz) their values. Within a row the columns may come in any order and repeat
 * (repeats add up in a product). A matrix with no nonzero keeps one explicit zero (values is never
 * empty). The structure functions (check, from_coo, transpose) run on the host:
 * their tensors are on the CPU. */
/* 0 when the three make an n_cols-column CSR matrix, else the error names what is wrong: offsets
 * that do not start at 0, decrease, or do not end at nnz; a column out of 1..n_cols; lengths that
 * differ. values is float32 or float64. */
int fused_csr_check(const fused_tensor *row_ptr, const fused_tensor *col_idx,
                    const fused_tensor *values, int64_t n_cols);
/* From n (row, column, value) triples (rows and cols int64 counted from 1, coo_values float64):
 * writes row_ptr (n_rows + 1, n_rows being its length - 1) and the first *nnz entries of col_idx
 * and values (float64, both n long), sorted by row, then column; repeated positions are summed
 * into one entry, in the order given. */
int fused_csr_from_coo(fused_tensor *row_ptr, fused_tensor *col_idx, fused_tensor *values,
                       int64_t *nnz, const fused_tensor *rows, const fused_tensor *cols,
                       const fused_tensor *coo_values, int64_t n_cols);
/* The transpose (n_cols x n_rows, n_cols being the length of t_row_ptr - 1) of a checked CSR
 * matrix, with its columns sorted within each row; values of any dtype, t_values of the same. */
int fused_csr_transpose(fused_tensor *t_row_ptr, fused_tensor *t_col_idx, fused_tensor *t_values,
                        const fused_tensor *row_ptr, const fused_tensor *col_idx,
                        const fused_tensor *values);
/* out = relu?(S @ x + bias) for the CSR matrix S = (row_ptr, col_idx, values), one pass over
 * the rows of out where the device allows (the CPU: OpenMP over rows; CUDA: cuSPARSE's SpMM,
 * then the relu). x (S's columns x k) and out (S's rows x k) contiguous; bias NULL or k long;
 * relu 0 or 1; all on one device, values and x of out's dtype. The structure is checked on the
 * host first (on CUDA, after a copy of row_ptr and col_idx). */
int fused_spmm(fused_tensor *out, const fused_tensor *row_ptr, const fused_tensor *col_idx,
               const fused_tensor *values, const fused_tensor *x, const fused_tensor *bias,
               int32_t relu);

/* Ctrl-C as a flag, for training loops: after install, SIGINT sets a flag (a second one ends
 * the process) that the loop polls between steps; restore puts back the previous handler. */
int fused_sigint_install(void);
int fused_sigint_received(void);
int fused_sigint_restore(void);

/* Files written whole or not at all: the n chunks (sizes in bytes) go in order into a new
 * file in the target's directory (unnamed through O_TMPFILE where the filesystem has it, else
 * a temporary "NAME.fused-tmp-PID-RANDOM" created exclusively), which is synced, renamed over
 * the target, and its directory synced; on failure path is untouched and nothing is left. The
 * target is path, or the file a symlink at path points to; an existing target keeps its mode,
 * and one that is not a regular file (a FIFO, a device, a directory) is refused. Each save
 * removes the named temporaries beside its target whose writer is dead. The error names path,
 * never the temporary file. */
int fused_write_file_atomic(const char *path, const char *const *chunks, const size_t *sizes,
                            int32_t n);
/* Files read in parts, straight into tensors: fused_file_open opens path for reading, never
 * blocking (a FIFO with no writer), refuses what is not a regular file, and gives its size;
 * fused_file_read reads n bytes at offset into dst, an error if the file ends first;
 * fused_file_close closes fd. Errors name path (file_open) or what failed. */
int fused_file_open(const char *path, int32_t *fd, int64_t *size);
int fused_file_read(int32_t fd, int64_t offset, void *dst, int64_t n);
int fused_file_close(int32_t fd);
/* ffi-end */

#ifdef __cplusplus
}
#endif
#endif
