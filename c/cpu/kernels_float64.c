/* The CPU kernels in float64: the generic/ sources compiled with scalar_t = double. */
#define scalar_t double
#define SCALAR_IS_FLOATING 1
#define cblas_gemm cblas_dgemm
#define CPU_KERNELS fused_cpu_float64_kernels
#include "generic/kernels.h"
