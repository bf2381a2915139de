/* The CPU kernels in float64: the generic/ sources compiled with scalar_t = double. */
#define scalar_t double
#define SCALAR_IS_FLOATING 1
#define cblas_gemm cblas_dgemm
/* A registered cell's steps in this dtype (fused_cell_def, c/ops/cells.c). */
#define CELL_FORWARD forward_f64
#define CELL_BACKWARD backward_f64
#define CPU_KERNELS fused_cpu_float64_kernels
#include "generic/kernels.h"
