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
#include "optim.h"
#include "loss.h"
#include "embedding.h"
#include "lltm.h"
#include "lltm_seq.h"

const fused_kernels CPU_KERNELS = {
    .fill = fill,
    .unary = unary,
    .binary = binary,
    .binary_scalar = binary_scalar,
    .addmm = addmm,
    .sum_dim = sum_dim,
    .cat = cat,
    .sgd_step = sgd_step,
    .rmsprop_step = rmsprop_step,
    .adam_step = adam_step,
    .sum_squares = sum_squares,
    .cross_entropy_forward = cross_entropy_forward,
    .cross_entropy_backward = cross_entropy_backward,
    .embedding_forward = embedding_forward,
    .embedding_backward = embedding_backward,
    .lltm_forward = lltm_forward,
    .lltm_backward = lltm_backward,
    .lltm_seq_forward = lltm_seq_forward,
    .lltm_seq_backward = lltm_seq_backward,
};
