/* The CPU kernels in float32: the generic/ sources compiled with scalar_t = float. */
#define scalar_t float
#define cblas_gemm cblas_sgemm
#define CPU_KERNELS fused_cpu_float_kernels
#include "generic/kernels.h"
