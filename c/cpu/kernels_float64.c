/* The CPU kernels in float64: the generic/ sources compiled with scalar_t = double. */
#define scalar_t double
#define SCALAR_IS_FLOATING 1
/* The GEMM of this dtype on a provider (c/cpu/gemm_choice.h). */
#define cpu_blas_gemm cpu_dgemm
#define SCALAR_IS_FLOAT64 1
/* A registered cell's steps in this dtype (fused_cell_def, c/ops/cells.c). */
#define CELL_FORWARD forward_f64
#define CELL_BACKWARD backward_f64
#define CPU_KERNELS fused_cpu_float64_kernels
#include "generic/kernels.h"
