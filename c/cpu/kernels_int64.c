/* The CPU kernels in int64: the ANY_DTYPE, ARITHMETIC and CPU_ONLY (both; INDEX among them)
 * ones of c/core/kernel_list.h. */
#define scalar_t int64_t
#define SCALAR_IS_FLOATING 0
#define SCALAR_IS_ARITHMETIC 1
#define CPU_KERNELS fused_cpu_int64_kernels
#include "generic/kernels.h"
