/* Which build of the CPU kernels runs: the Makefile compiles every c/cpu/kernels_<dtype>.c
 * once per capability below (the tables fused_cpu_<dtype>_kernels_<capability>), and this
 * file points the CPU device at the best set the CPU runs when the library loads, as
 * OpenBLAS's DYNAMIC_ARCH does. fused_set_cpu_capability overrides it (lua/fused/init.lua
 * passes FUSED_CPU_CAPABILITY). */
#include <string.h>

#include "../core/backend.h"
#include "bf16.h"
#include "../core/error.h"

enum { CPU_AVX512, CPU_AVX2, CPU_DEFAULT, CPU_NUM_CAPABILITIES };

#define DECLARE_TABLES(id, ctype, name, ...)                                            \
  extern const fused_kernels fused_cpu_##name##_kernels_avx512,                         \
      fused_cpu_##name##_kernels_avx2, fused_cpu_##name##_kernels_default;
FUSED_DTYPES(DECLARE_TABLES)
#undef DECLARE_TABLES

#define TABLES(id, ctype, name, ...)                                                     \
  [id] = {[CPU_AVX512] = &fused_cpu_##name##_kernels_avx512,                            \
          [CPU_AVX2] = &fused_cpu_##name##_kernels_avx2,                                \
          [CPU_DEFAULT] = &fused_cpu_##name##_kernels_default},
static const fused_kernels *const tables[FUSED_NUM_DTYPES][CPU_NUM_CAPABILITIES] = {
    FUSED_DTYPES(TABLES)};
#undef TABLES

/* Best first, with the Makefile's CAPABILITY_FLAGS that each set was compiled with (the
 * Makefile defines them for this file): fused.ext compiles extensions with them too. */
static const struct {
  const char *name;
  int32_t vector_bits;
  const char *flags;
} capabilities[CPU_NUM_CAPABILITIES] = {
    [CPU_AVX512] = {"avx512", 512, CAPABILITY_FLAGS_avx512},
    [CPU_AVX2] = {"avx2", 256, CAPABILITY_FLAGS_avx2},
    [CPU_DEFAULT] = {"default", 128, CAPABILITY_FLAGS_default}};

extern fused_device_ops fused_cpu_device;
static int active = CPU_DEFAULT;

/* __builtin_cpu_supports also checks that the OS saves the registers; valgrind hides
 * AVX-512, so under it the avx2 build runs. */
static int supported(int capability) {
  __builtin_cpu_init();
  switch (capability) {
    case CPU_AVX512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
             supported(CPU_AVX2);
    case CPU_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default: return 1;
  }
}

static void activate(int capability) {
  active = capability;
  for (int d = 0; d < FUSED_NUM_DTYPES; d++) fused_cpu_device.kernels[d] = tables[d][capability];
}

__attribute__((constructor)) static void choose_best(void) {
  int best = 0;
  while (!supported(best)) best++;
  activate(best);
}

int fused_set_cpu_capability(const char *name) {
  int c = 0;
  while (c < CPU_NUM_CAPABILITIES && (!name || strcmp(name, capabilities[c].name) != 0)) c++;
  if (c == CPU_NUM_CAPABILITIES)
    return fused_error("set_cpu_capability: argument 'name' expected avx512, avx2 or default, "
                       "got '%s'", name ? name : "NULL");
  if (!supported(c))
    return fused_error("set_cpu_capability: this CPU cannot run the %s kernels (it runs %s)",
                       name, capabilities[active].name);
  activate(c);
  return 0;
}

const char *fused_cpu_capability(void) { return capabilities[active].name; }
int32_t fused_cpu_vector_bits(void) { return capabilities[active].vector_bits; }
const char *fused_cpu_capability_flags(void) { return capabilities[active].flags; }

/* The native bfloat16 products need the avx512 path active (so that forcing avx2 or default
 * takes the fallback, as it does for every vector kernel) and oneDNN. */
bool cpu_bf16_native(void) {
#ifdef FUSED_HAVE_DNNL
  return active == CPU_AVX512 && __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

const char *fused_cpu_bf16_path(void) { return cpu_bf16_native() ? "avx512_bf16" : "float32"; }
