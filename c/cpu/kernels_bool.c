/* The CPU kernels in bool: the ANY_DTYPE and CPU_ONLY_ANY_DTYPE (INDEX among them) ones of
 * c/core/kernel_list.h. */
#define scalar_t bool
#define SCALAR_IS_FLOATING 0
#define SCALAR_IS_ARITHMETIC 0
#define CPU_KERNELS fused_cpu_bool_kernels
#include "generic/kernels.h"
