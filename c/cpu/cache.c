/* The last-level cache's size (fused_cpu_cache_bytes, c/fused.h): the largest cache of CPU 0 in
 * sysfs, read when the library loads. Not sysconf(_SC_LEVEL3_CACHE_SIZE): glibc gave 320 MiB on
 * a Zen 4 VM whose L3 is 32 MiB. */
#include <stdio.h>

#include "cache.h"

static int64_t read_bytes = (int64_t)32 << 20, cache_bytes;

__attribute__((constructor)) static void read_cache_bytes(void) {
  int64_t largest = 0;
  for (int i = 0; i < 8; i++) {
    char path[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    FILE *f = fopen(path, "r");
    if (!f) break;
    long kib = 0;
    char unit = 0;
    if (fscanf(f, "%ld%c", &kib, &unit) == 2 && unit == 'K' && kib > 0 && kib * 1024 > largest)
      largest = (int64_t)kib * 1024;
    fclose(f);
  }
  if (largest) read_bytes = largest;
  cache_bytes = read_bytes;
}

void fused_set_cpu_cache_bytes(int64_t bytes) { cache_bytes = bytes > 0 ? bytes : read_bytes; }

int64_t fused_cpu_cache_bytes(void) { return cache_bytes; }
