/* The CPU kernels in bool: fill and compare (generic/compare.h). */
#define scalar_t bool
#define SCALAR_IS_FLOATING 0
#define CPU_KERNELS fused_cpu_bool_kernels
#include "generic/kernels.h"
