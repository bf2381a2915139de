/* One source for float and double: each file below is compiled once per dtype with scalar_t
 * (and the matching cblas_gemm) defined by kernels_float.c or kernels_double.c. Functions
 * are static, so both instantiations keep plain names; only the table is exported. <tgmath.h>
 * picks expf or exp from the argument's type. */
#include <cblas.h>
#include <string.h>
#include <tgmath.h>

#include "../../core/backend.h"
#include "../../core/error.h"
#include "../parallel.h"
#include "../strided.h"

#include "pointwise.h"
#include "addmm.h"
#include "reduce.h"

const fused_kernels CPU_KERNELS = {
    .fill = fill,
    .unary = unary,
    .binary = binary,
    .binary_scalar = binary_scalar,
    .addmm = addmm,
    .sum_dim = sum_dim,
    .cat = cat,
};
