/* The registry of device backends: see backend.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "error.h"

extern fused_device_ops fused_cpu_device; /* its tables set by c/cpu/capability.c */

static const fused_device_ops *devices[FUSED_NUM_DEVICES] = {[FUSED_CPU] = &fused_cpu_device};
#define NAME(id, name) [id] = #name,
static const char *const device_names[] = {FUSED_DEVICES(NAME)};
#undef NAME
_Static_assert(sizeof device_names / sizeof *device_names == FUSED_NUM_DEVICES,
               "one name per device");

const char *fused_device_name(int32_t device) {
  return device >= 0 && device < FUSED_NUM_DEVICES ? device_names[device] : NULL;
}

static char unavailable[FUSED_NUM_DEVICES][512] = {
    [FUSED_CUDA] = "the CUDA library (libfused_cuda.so) is not loaded"};

int fused_register_device(int32_t device, const fused_device_ops *ops) {
  if (device < 0 || device >= FUSED_NUM_DEVICES || !ops)
    return fused_error("register_device: argument 'device' expected 0 to %d, got %d",
                       FUSED_NUM_DEVICES - 1, device);
  devices[device] = ops;
  unavailable[device][0] = '\0';
  return 0;
}

void fused_set_device_unavailable(int32_t device, const char *reason) {
  if (!reason) {
    fused_error("set_device_unavailable: argument 'reason' expected a string, got NULL");
    return;
  }
  if (device < 0 || device >= FUSED_NUM_DEVICES || devices[device]) return;
  snprintf(unavailable[device], sizeof unavailable[device], "%s", reason);
}

int fused_device_available(int32_t device) {
  return device >= 0 && device < FUSED_NUM_DEVICES && devices[device] != NULL;
}

const char *fused_device_unavailable_reason(int32_t device) {
  if (device < 0 || device >= FUSED_NUM_DEVICES) return "no such device";
  return unavailable[device];
}

const fused_device_ops *fused_device_ops_for(const char *fn, int32_t device) {
  if (device < 0 || device >= FUSED_NUM_DEVICES) {
    fused_error("%s: unknown device %d", fn, device);
    return NULL;
  }
  if (!devices[device]) {
    fused_error("%s: device %s is not available: %s", fn, device_name(device),
                unavailable[device]);
    return NULL;
  }
  return devices[device];
}

const fused_kernels *fused_kernels_for(const char *fn, const fused_tensor *t) {
  const fused_device_ops *ops = fused_device_ops_for(fn, t->device_type);
  return ops ? ops->kernels[t->scalar_type] : NULL;
}

/* The kernels of every number dtype but none of bool's. */
#define FUSED_KERNEL_NAME(name, params) #name,
static const char *const number_kernels[] = {FUSED_KERNELS_ARITHMETIC(FUSED_KERNEL_NAME)
                                             FUSED_KERNELS_CPU_ONLY(FUSED_KERNEL_NAME)};

/* Whether table k (NULL: none) has the kernel named kernel. */
#define FUSED_KERNEL_PRESENT(name, params) \
  if (!strcmp(kernel, #name)) return k->name != NULL;
static bool has_kernel(const fused_kernels *k, const char *kernel) {
  if (!k) return false;
  FUSED_KERNELS(FUSED_KERNEL_PRESENT)
  return false;
}

int fused_dtype_computes(int32_t dtype) {
  return dtype >= 0 && dtype < FUSED_NUM_DTYPES && fused_cpu_device.kernels[dtype] &&
         fused_cpu_device.kernels[dtype]->unary != NULL;
}

const char *fused_floating_names(void) {
  static char names[256]; /* the same text whoever writes it first */
  if (names[0]) return names;
  const char *list[FUSED_NUM_DTYPES];
  int n = 0;
  for (int32_t d = 0; d < FUSED_NUM_DTYPES; d++)
    if (fused_dtype_info_of(d)->is_floating && fused_dtype_computes(d))
      list[n++] = fused_dtype_info_of(d)->name;
  char text[sizeof names] = "";
  for (int k = 0; k < n; k++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s",
             k == 0 ? "" : k == n - 1 ? " or " : ", ", list[k]);
  memcpy(names, text, sizeof names);
  return names;
}

int check_floating(const char *fn, const char *arg, const fused_tensor *t) {
  if (fused_dtype_info_of(t->scalar_type)->is_floating) return 0;
  return fused_error("%s: argument '%s' expected a floating dtype (%s), got %s", fn, arg,
                     fused_floating_names(), dtype_name(t->scalar_type));
}

int fused_missing_kernel(const char *fn, const char *arg, const fused_tensor *t,
                         const char *kernel) {
  for (size_t k = 0; k < sizeof number_kernels / sizeof *number_kernels; k++)
    if (t->scalar_type == FUSED_BOOL && !strcmp(kernel, number_kernels[k]))
      return fused_error("%s: argument '%s' expected a number dtype (float32, float64 or "
                         "int64), got bool", fn, arg);
  /* The CPU has it for this dtype: only the device lacks it. */
  if (t->device_type != FUSED_CPU && has_kernel(fused_cpu_device.kernels[t->scalar_type], kernel))
    return fused_error("%s: not implemented for %s tensors yet; call :to('cpu') first", fn,
                       device_name(t->device_type));
  FUSED_TRY(check_floating(fn, arg, t));
  /* A floating dtype the CPU stores but does not compute in (bfloat16, float16). */
  if (!fused_dtype_computes(t->scalar_type))
    return fused_error("%s: %s tensors do not compute yet; convert with :float()", fn,
                       dtype_name(t->scalar_type));
  return fused_error("%s: not implemented on the %s device yet", fn,
                     fused_device_ops_for(fn, t->device_type)->name);
}
