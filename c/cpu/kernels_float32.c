/* The CPU kernels in float32: the generic/ sources compiled with scalar_t = float. */
#define scalar_t float
#define SCALAR_IS_FLOATING 1
/* The GEMM of this dtype on a provider (c/cpu/gemm_choice.h). */
#define cpu_blas_gemm cpu_sgemm
#define SCALAR_IS_FLOAT64 0
/* A registered cell's steps in this dtype (fused_cell_def, c/ops/cells.c). */
#define CELL_FORWARD forward_f32
#define CELL_BACKWARD backward_f32
#define CPU_KERNELS fused_cpu_float32_kernels
/* The sequence engine's bfloat16 compute mode (c/cpu/bf16.h) is float32's. */
#define CPU_BF16 1
#include "generic/kernels.h"
