/* The CPU's last-level cache (fused_cpu_cache_bytes, c/fused.h), for kernels that choose between
 * keeping a result in cache and writing it past the caches (generic/scan.h). */
#ifndef FUSED_CPU_CACHE_H
#define FUSED_CPU_CACHE_H
#include <stdint.h>

int64_t fused_cpu_cache_bytes(void);

#endif
