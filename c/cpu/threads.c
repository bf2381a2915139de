/* One thread policy for the CPU kernels (OpenMP) and OpenBLAS. */
#include <cblas.h>
#include <omp.h>

#include "../core/error.h"
#include "../fused.h"

/* Past any machine's cores more threads only cost, and 100000 hung creating them: a larger
 * count is a mistake. */
#define MAX_THREADS 1024

int fused_set_num_threads(int32_t n) {
  if (n < 0 || n > MAX_THREADS)
    return fused_error("set_num_threads: argument 'n' expected 0 to %d (0: all cores), got %d",
                       MAX_THREADS, n);
  if (n == 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
  return 0;
}

int32_t fused_get_num_threads(void) { return omp_get_max_threads(); }
