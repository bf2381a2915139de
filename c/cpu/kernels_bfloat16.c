/* The CPU kernels in bfloat16: the ANY_DTYPE and CPU_ONLY_ANY_DTYPE (INDEX among them) ones of
 * c/core/kernel_list.h, on its bits; values are read as doubles (fused_value) and written
 * rounded to nearest even (c/maths/convert.h). The op layer computes it in float32
 * (lua/fused/ops/widen.lua). */
#include "../maths/convert.h"
/* Compared as their values: apply_compare over doubles. */
#define scalar_t double
#include "../maths/compare.h"
#undef scalar_t
#define scalar_t fused_bfloat16
#define SCALAR_OF(v) fused_bfloat16_of(v)
#define SCALAR_IS_FLOATING 0
#define SCALAR_IS_ARITHMETIC 0
#define CPU_KERNELS fused_cpu_bfloat16_kernels
#include "generic/kernels.h"
