/* One thread policy for the CPU kernels (OpenMP) and OpenBLAS. */
#include <cblas.h>
#include <omp.h>

#include "../core/error.h"
#include "../fused.h"

int fused_set_num_threads(int32_t n) {
  if (n < 0) return fused_error("set_num_threads: argument 'n' expected >= 0, got %d", n);
  if (n == 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
  return 0;
}

int32_t fused_get_num_threads(void) { return omp_get_max_threads(); }
