/* Argument checks shared by every op. Each returns 0, or sets an error naming the function
 * (fn), the argument (arg), what was expected and what came, and returns -1. */
#ifndef FUSED_CHECK_H
#define FUSED_CHECK_H

#include "../fused.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Not NULL, not released (a storage), with a sane dtype, device and shape, whose elements all
 * lie inside its storage (check_extent). */
int check_tensor(const char *fn, const char *arg, const fused_tensor *t);
/* t's sizes are >= 0 and every element its offset, sizes and strides reach lies inside its
 * storage. In tensor.c, which owns the storage; t has one. */
int check_extent(const char *fn, const char *arg, const fused_tensor *t);
/* fused_tensor_is_contiguous for a checked tensor: 1 or 0. */
int tensor_is_contiguous(const fused_tensor *t);
int check_contiguous(const char *fn, const char *arg, const fused_tensor *t);
/* No two of t's elements share memory (no expanded, stride-0 dim; no strides that land two
 * indices on one element), so that an op may write t: PyTorch refuses the same write, whose
 * result would depend on the order of the writes. Sufficient, not necessary: a few exotic
 * layouts that do not overlap are refused too (see check.c). t is a checked tensor. */
int check_writable(const char *fn, const char *arg, const fused_tensor *t);
/* What an op writes: check_tensor and check_writable. */
int check_output(const char *fn, const char *arg, const fused_tensor *t);
/* Unit stride along the last dim and the rows (every index but the last) evenly spaced, at
 * least a row apart: a GEMM operand with a leading dimension, or a column block of one. */
int check_rows(const char *fn, const char *arg, const fused_tensor *t);
int check_ndim(const char *fn, const char *arg, const fused_tensor *t, int32_t ndim);
int check_shape(const char *fn, const char *arg, const fused_tensor *t, int32_t ndim,
                const int64_t *sizes);
/* t has ref's shape, dtype and device (ref_arg names ref in the message). */
int check_like(const char *fn, const char *arg, const fused_tensor *t, const char *ref_arg,
               const fused_tensor *ref);
int check_dtype(const char *fn, const char *arg, const fused_tensor *t, int32_t dtype);
int check_same_device(const char *fn, const char *arg, const fused_tensor *t,
                      const char *ref_arg, const fused_tensor *ref);
int check_same_dtype_device(const char *fn, const char *arg, const fused_tensor *t,
                            const char *ref_arg, const fused_tensor *ref);
/* Index values counted from 1 (what: "integers", "class indices"), n of them, each 1..count;
 * the error names the first bad one's position. Both backends check on the host. */
int check_indices(const char *fn, const char *arg, const char *what, const int64_t *values,
                  int64_t n, int64_t count);
/* A CSR structure of n_rows rows (c/fused.h): row_ptr's n_rows + 1 offsets start at 0, never
 * decrease and end at nnz; each of the nnz columns lies in 1..n_cols. */
int check_csr(const char *fn, const int64_t *row_ptr, int64_t n_rows, const int64_t *col_idx,
              int64_t nnz, int64_t n_cols);
/* copy's error for a floating value that does not fit an int64 (c/maths/convert.h), at a
 * position counted from 1 in row-major order. */
int convert_error(double value, int64_t position);
/* Whether a and b address a byte in common (never when their storages differ). */
int tensors_overlap(const fused_tensor *a, const fused_tensor *b);
/* out, which an op writes, shares no memory with in (NULL: nothing to check); with
 * identical_ok, in may also be exactly out's elements (same data, sizes and strides), which
 * an op that reads each element before writing it allows. Both are checked tensors. */
int check_no_overlap(const char *fn, const char *out_arg, const fused_tensor *out,
                     const char *in_arg, const fused_tensor *in, int identical_ok);
/* The same for an op with several outputs: each writable (check_writable), apart from the
 * outputs before it and from
 * every input (NULL tensors are skipped), except that output alias_out may be exactly input
 * alias_in (indices into outs and ins; -1 for none). */
typedef struct { const char *arg; const fused_tensor *t; } fused_arg;
int check_outputs_apart(const char *fn, int n_out, const fused_arg *outs, int n_in,
                        const fused_arg *ins, int alias_out, int alias_in);
/* Writes "[2, 3]" into buf. */
/* The sequence engine's compute argument (fused_compute): FUSED_COMPUTE_BFLOAT16 needs float32
 * tensors (xs's), on either device. */
int check_compute(const char *fn, int32_t compute, const fused_tensor *xs);
const char *format_shape(char *buf, size_t len, int32_t ndim, const int64_t *sizes);
const char *dtype_name(int32_t dtype);
/* Whether a dtype computes: the CPU has its arithmetic (the 16-bit floats store only). */
int fused_dtype_computes(int32_t dtype);
/* "float32 or float64": the floating dtypes that compute, from the dtype table and the kernel
 * tables, for the messages that name them (so that a new dtype needs no edit there). */
const char *fused_floating_names(void);
/* t's dtype is floating, or an error naming fused_floating_names. */
int check_floating(const char *fn, const char *arg, const fused_tensor *t);
const char *device_name(int32_t device);

#ifdef __cplusplus
}
#endif

#endif
