/* The dtypes, one line each, in the order of fused_dtype's values (fused.h):
 *   X(enum value, C type, name, npy descr, safetensors code, is floating)
 * Expanded into the table behind fused_dtype_info_of (dtype.c), the CPU and CUDA copies'
 * conversions and the CUDA kernel tables. A new dtype is a line here, its value in fused.h,
 * its CPU kernel file (c/cpu/kernels_<name>.c) and its element pointer type in
 * lua/fused/dtype.lua. */
#ifndef FUSED_DTYPES_H
#define FUSED_DTYPES_H

#define FUSED_DTYPES(X)                                   \
  X(FUSED_FLOAT32, float, float32, "<f4", "F32", 1)       \
  X(FUSED_FLOAT64, double, float64, "<f8", "F64", 1)      \
  X(FUSED_INT64, int64_t, int64, "<i8", "I64", 0)         \
  X(FUSED_BOOL, bool, bool, "|b1", "BOOL", 0)

#endif
