/* The CPU kernels in int64: fill and compare (generic/compare.h). */
#define scalar_t int64_t
#define SCALAR_IS_FLOATING 0
#define CPU_KERNELS fused_cpu_int64_kernels
#include "generic/kernels.h"
