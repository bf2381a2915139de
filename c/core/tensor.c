/* Tensors and their refcounted storages. A storage is allocated by its device's backend and
 * freed when the last tensor viewing it is freed. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "error.h"

struct fused_storage {
  char *base;
  size_t bytes;
  int32_t device;
  int32_t refcount;
};

static int64_t bytes_in_use[FUSED_NUM_DEVICES];

int64_t fused_bytes_in_use(int32_t device) {
  return device >= 0 && device < FUSED_NUM_DEVICES ? bytes_in_use[device] : 0;
}

int64_t fused_tensor_numel(const fused_tensor *t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++) n *= t->sizes[d];
  return n;
}

int fused_tensor_is_contiguous(const fused_tensor *t) {
  int64_t expected = 1;
  for (int32_t d = t->ndim - 1; d >= 0; d--) {
    if (t->sizes[d] != 1 && t->strides[d] != expected) return 0;
    expected *= t->sizes[d];
  }
  return 1;
}

static int check_sizes(const char *fn, int32_t ndim, const int64_t *sizes) {
  if (ndim < 1 || ndim > FUSED_MAX_DIMS)
    return fused_error("%s: argument 'ndim' expected 1 to %d, got %d", fn, FUSED_MAX_DIMS, ndim);
  if (!sizes) return fused_error("%s: argument 'sizes' expected %d sizes, got NULL", fn, ndim);
  for (int32_t d = 0; d < ndim; d++)
    if (sizes[d] < 1)
      return fused_error("%s: argument 'sizes' expected sizes >= 1, got %lld in dim %d", fn,
                         (long long)sizes[d], d + 1);
  return 0;
}

int fused_tensor_init(fused_tensor *t, int32_t ndim, const int64_t *sizes, int32_t dtype,
                      int32_t device) {
  const char *fn = "tensor_new";
  if (!t) return fused_error("%s: argument 't' is NULL", fn);
  memset(t, 0, sizeof *t);
  FUSED_TRY(check_sizes(fn, ndim, sizes));
  if (dtype < 0 || dtype >= FUSED_NUM_DTYPES)
    return fused_error("%s: argument 'dtype' expected 0 to %d (fused_dtype), got %d", fn,
                       FUSED_NUM_DTYPES - 1, dtype);
  const fused_device_ops *ops = fused_device_ops_for(fn, device);
  if (!ops) return -1;

  size_t elem = fused_dtype_size(dtype), numel = 1;
  for (int32_t d = 0; d < ndim; d++) {
    if ((size_t)sizes[d] > SIZE_MAX / elem / numel)
      return fused_error("%s: the tensor's size overflows", fn);
    numel *= (size_t)sizes[d];
  }
  fused_storage *s = calloc(1, sizeof *s);
  if (!s) return fused_error("%s: out of memory", fn);
  char *base = ops->alloc(numel * elem);
  if (!base) {
    free(s);
    return -1; /* the device's alloc said why */
  }
  *s = (fused_storage){.base = base, .bytes = numel * elem, .device = device, .refcount = 1};
  bytes_in_use[device] += (int64_t)s->bytes;
  t->data = base;
  t->storage = s;
  t->ndim = ndim;
  t->scalar_type = dtype;
  t->device_type = device;
  int64_t stride = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    t->sizes[d] = sizes[d];
    t->strides[d] = stride;
    stride *= sizes[d];
  }
  return 0;
}

int fused_tensor_new(fused_tensor **out, int32_t ndim, const int64_t *sizes, int32_t dtype,
                     int32_t device) {
  if (!out) return fused_error("tensor_new: argument 'out' is NULL");
  *out = NULL;
  fused_tensor *t = malloc(sizeof *t);
  if (!t) return fused_error("tensor_new: out of memory");
  if (fused_tensor_init(t, ndim, sizes, dtype, device) != 0) {
    free(t);
    return -1;
  }
  *out = t;
  return 0;
}

int fused_tensor_view(fused_tensor *out, const fused_tensor *src, int32_t ndim,
                      const int64_t *sizes, const int64_t *strides, int64_t offset) {
  const char *fn = "tensor_view";
  if (!out) return fused_error("%s: argument 'out' is NULL", fn);
  FUSED_TRY(check_tensor(fn, "src", src));
  FUSED_TRY(check_sizes(fn, ndim, sizes));
  if (!strides) return fused_error("%s: argument 'strides' is NULL", fn);
  /* Every element the view can address must lie inside the storage. */
  int64_t elem = (int64_t)fused_dtype_size(src->scalar_type);
  int64_t first = (src->data - src->storage->base) / elem + offset, lo = first, hi = first;
  for (int32_t d = 0; d < ndim; d++) {
    int64_t reach = (sizes[d] - 1) * strides[d];
    if (reach < 0) lo += reach; else hi += reach;
  }
  if (lo < 0 || (hi + 1) * elem > (int64_t)src->storage->bytes)
    return fused_error("%s: the view (offset %lld) reaches outside its storage of %lld elements",
                       fn, (long long)offset, (long long)(src->storage->bytes / (size_t)elem));
  fused_tensor view = *src;
  view.data = src->storage->base + first * elem;
  view.ndim = ndim;
  for (int32_t d = 0; d < FUSED_MAX_DIMS; d++) {
    view.sizes[d] = d < ndim ? sizes[d] : 0;
    view.strides[d] = d < ndim ? strides[d] : 0;
  }
  view.storage->refcount++;
  *out = view; /* out may be src itself */
  return 0;
}

void fused_tensor_release(fused_tensor *t) {
  if (!t) return;
  fused_storage *s = t->storage;
  t->storage = NULL;
  t->data = NULL;
  if (s && --s->refcount == 0) {
    bytes_in_use[s->device] -= (int64_t)s->bytes;
    const fused_device_ops *ops = fused_device_ops_for("tensor_release", s->device);
    if (ops) ops->free(s->base);
    free(s);
  }
}

void fused_tensor_free(fused_tensor *t) {
  fused_tensor_release(t);
  free(t);
}
