/* Which OpenBLAS runs, for fused.config() and the benchmarks' headers. */
#include <cblas.h>

#include "../fused.h"

const char *fused_blas_config(void) { return openblas_get_config(); }
const char *fused_blas_core(void) { return openblas_get_corename(); }
int32_t fused_blas_threading(void) { return openblas_get_parallel(); }
