/* Tensors and their refcounted storages. A storage is allocated by its device's backend and
 * freed when the last tensor viewing it is freed. */
#include <stdbool.h>
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

const char *fused_storage_base(const fused_storage *s) { return s->base; }

int64_t fused_bytes_in_use(int32_t device) {
  if (device < 0 || device >= FUSED_NUM_DEVICES)
    return fused_error("bytes_in_use: argument 'device' expected 0 to %d, got %d",
                       FUSED_NUM_DEVICES - 1, device);
  return bytes_in_use[device];
}

/* The product of n sizes, or -1 when it passes INT64_MAX. */
static int64_t checked_numel(int32_t ndim, const int64_t *sizes) {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; d++)
    if (__builtin_mul_overflow(n, sizes[d], &n)) return -1;
  return n;
}

int64_t fused_tensor_numel(const fused_tensor *t) {
  FUSED_TRY(check_tensor("tensor_numel", "t", t));
  return checked_numel(t->ndim, t->sizes); /* init and view keep it in range */
}

int fused_tensor_is_contiguous(const fused_tensor *t) {
  FUSED_TRY(check_tensor("tensor_is_contiguous", "t", t));
  return tensor_is_contiguous(t);
}

int tensor_is_contiguous(const fused_tensor *t) {
  for (int32_t d = 0; d < t->ndim; d++)
    if (t->sizes[d] == 0) return 1; /* no element to be out of place, as PyTorch */
  int64_t expected = 1;
  for (int32_t d = t->ndim - 1; d >= 0; d--) {
    if (t->sizes[d] != 1 && t->strides[d] != expected) return 0;
    if (__builtin_mul_overflow(expected, t->sizes[d], &expected)) return 0;
  }
  return 1;
}

int fused_check_writable(const char *fn, const char *arg, const fused_tensor *t) {
  if (!fn || !arg)
    return fused_error("check_writable: argument '%s' expected a name, got NULL", fn ? "arg" : "fn");
  return check_output(fn, arg, t);
}

/* 0 to 8 sizes (0: a scalar of one element), each >= 0 (0: an empty tensor), whose product
 * (numel) fits in int64_t. A size of 2^63 or more that reached int64_t through an unsigned type
 * arrives negative: the message shows both readings. */
static int check_sizes(const char *fn, int32_t ndim, const int64_t *sizes) {
  if (ndim < 0 || ndim > FUSED_MAX_DIMS)
    return fused_error("%s: argument 'ndim' expected 0 to %d, got %d", fn, FUSED_MAX_DIMS, ndim);
  if (!sizes && ndim > 0)
    return fused_error("%s: argument 'sizes' expected %d sizes, got NULL", fn, ndim);
  for (int32_t d = 0; d < ndim; d++) {
    if (sizes[d] < 0)
      return fused_error("%s: argument 'sizes' expected sizes from 0 to 2^63-1, got %lld (%llu "
                         "read as unsigned) in dim %d", fn, (long long)sizes[d],
                         (unsigned long long)sizes[d], d);
  }
  if (checked_numel(ndim, sizes) < 0) {
    char got[200];
    return fused_error("%s: argument 'sizes' expected at most 2^63-1 elements in all, got sizes %s",
                       fn, format_shape(got, sizeof got, ndim, sizes));
  }
  return 0;
}

/* fused_tensor_init for fn, the public function its errors name. */
static int init(const char *fn, fused_tensor *t, int32_t ndim, const int64_t *sizes,
                int32_t dtype, int32_t device) {
  memset(t, 0, sizeof *t);
  FUSED_TRY(check_sizes(fn, ndim, sizes));
  if (dtype < 0 || dtype >= FUSED_NUM_DTYPES)
    return fused_error("%s: argument 'dtype' expected 0 to %d (fused_dtype), got %d", fn,
                       FUSED_NUM_DTYPES - 1, dtype);
  if (device < 0 || device >= FUSED_NUM_DEVICES)
    return fused_error("%s: argument 'device' expected 0 to %d (fused_device), got %d", fn,
                       FUSED_NUM_DEVICES - 1, device);
  const fused_device_ops *ops = fused_device_ops_for(fn, device);
  if (!ops) return -1;

  /* bytes_in_use and the kernels count bytes in int64_t. */
  int64_t bytes;
  if (__builtin_mul_overflow(checked_numel(ndim, sizes), (int64_t)fused_dtype_size(dtype), &bytes)) {
    char got[200];
    return fused_error("%s: argument 'sizes' expected at most 2^63-1 bytes in all, got sizes %s "
                       "of %s", fn, format_shape(got, sizeof got, ndim, sizes), dtype_name(dtype));
  }
  fused_storage *s = calloc(1, sizeof *s);
  if (!s) return fused_error("%s: out of memory", fn);
  char *base = ops->alloc((size_t)bytes);
  if (!base) {
    free(s);
    return -1; /* the device's alloc said why */
  }
  *s = (fused_storage){.base = base, .bytes = (size_t)bytes, .device = device, .refcount = 1};
  bytes_in_use[device] += bytes;
  t->data = base;
  t->storage = s;
  t->ndim = ndim;
  t->scalar_type = dtype;
  t->device_type = device;
  int64_t stride = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    t->sizes[d] = sizes[d];
    t->strides[d] = stride;
    stride *= sizes[d] ? sizes[d] : 1; /* at most numel, checked above; PyTorch's strides for 0 */
  }
  return 0;
}

int fused_tensor_init(fused_tensor *t, int32_t ndim, const int64_t *sizes, int32_t dtype,
                      int32_t device) {
  if (!t) return fused_error("tensor_init: argument 't' is NULL");
  return init("tensor_init", t, ndim, sizes, dtype, device);
}

int fused_tensor_new(fused_tensor **out, int32_t ndim, const int64_t *sizes, int32_t dtype,
                     int32_t device) {
  if (!out) return fused_error("tensor_new: argument 'out' is NULL");
  *out = NULL;
  fused_tensor *t = malloc(sizeof *t);
  if (!t) return fused_error("tensor_new: out of memory");
  if (init("tensor_new", t, ndim, sizes, dtype, device) != 0) {
    free(t);
    return -1;
  }
  *out = t;
  return 0;
}

/* Whether elements first + sum_d i_d strides[d] (0 <= i_d < sizes[d]) all lie in [0, count),
 * in checked arithmetic: an extent that overflows does not fit. An empty view reaches no
 * element, so it fits at any offset >= 0, as PyTorch's (zeros(4, 0)[2:4] is 2x0 at offset 2,
 * past the end of an empty storage); fused_tensor_view clamps its data into the storage. */
static int view_fits(int64_t first, int32_t ndim, const int64_t *sizes, const int64_t *strides,
                     int64_t count) {
  for (int32_t d = 0; d < ndim; d++)
    if (sizes[d] == 0) return first >= 0;
  int64_t lo = first, hi = first;
  for (int32_t d = 0; d < ndim; d++) {
    int64_t reach;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach)) return 0;
    if (__builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi)) return 0;
  }
  return lo >= 0 && hi < count;
}

/* Lua reads a tensor's fields and C writes them, yet a struct can still be corrupted (a raw
 * FFI cast, a C caller's bug): every op re-checks, through check_tensor, that the fields
 * describe elements inside the storage before a kernel trusts them. One pass over the dims in
 * checked arithmetic and no division: it runs for every tensor of every call. */
int check_extent(const char *fn, const char *arg, const fused_tensor *t) {
#define SIZE(id, ctype, ...) [id] = sizeof(ctype),
  static const int64_t elem_sizes[FUSED_NUM_DTYPES] = {FUSED_DTYPES(SIZE)}; /* powers of two */
#undef SIZE
  const fused_storage *s = t->storage;
  const int64_t elem = elem_sizes[t->scalar_type]; /* check_tensor checked it */
  const int64_t offset_bytes = t->data - s->base;
  if (offset_bytes & (elem - 1))
    return fused_error("%s: argument '%s' starts %lld bytes into its storage, not a whole "
                       "number of elements of %s (a corrupted tensor)", fn, arg,
                       (long long)offset_bytes, dtype_name(t->scalar_type));
  int64_t numel = 1, lo = 0, hi = 0; /* lo, hi: the elements reached, counted from data */
  int fits = 1, empty = 0;
  for (int32_t d = 0; d < t->ndim; d++) {
    empty |= t->sizes[d] == 0;
    if (t->sizes[d] < 0)
      return fused_error("%s: argument '%s' has size %lld in dim %d (a corrupted tensor)", fn,
                         arg, (long long)t->sizes[d], d);
    int64_t reach;
    fits &= !__builtin_mul_overflow(numel, t->sizes[d], &numel) &&
            !__builtin_mul_overflow(t->sizes[d] - 1, t->strides[d], &reach) &&
            !__builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi);
  }
  /* An empty tensor reaches no element: its data need only lie in its storage or just past. */
  if (empty && offset_bytes >= 0 && offset_bytes <= (int64_t)s->bytes) return 0;
  int64_t first, end;
  if (!empty && fits && !__builtin_mul_overflow(lo, elem, &first) &&
      !__builtin_add_overflow(first, offset_bytes, &first) && first >= 0 &&
      !__builtin_mul_overflow(hi, elem, &end) && !__builtin_add_overflow(end, offset_bytes, &end) &&
      !__builtin_add_overflow(end, elem, &end) && end <= (int64_t)s->bytes)
    return 0;
  char sizes[200], strides[200];
  return fused_error("%s: argument '%s' (offset %lld, sizes %s, strides %s) views elements past "
                     "the end of its storage of %lld elements of %s (a corrupted tensor: its "
                     "fields are read-only, change a shape with view, resize_ or narrow)", fn,
                     arg, (long long)(offset_bytes / elem),
                     format_shape(sizes, sizeof sizes, t->ndim, t->sizes),
                     format_shape(strides, sizeof strides, t->ndim, t->strides),
                     (long long)s->bytes / elem, dtype_name(t->scalar_type));
}

int fused_tensor_view(fused_tensor *out, const fused_tensor *src, int32_t ndim,
                      const int64_t *sizes, const int64_t *strides, int64_t offset) {
  const char *fn = "tensor_view";
  if (!out) return fused_error("%s: argument 'out' is NULL", fn);
  FUSED_TRY(check_tensor(fn, "src", src));
  FUSED_TRY(check_sizes(fn, ndim, sizes));
  if (!strides) return fused_error("%s: argument 'strides' is NULL", fn);
  /* Every element the view can address must lie inside the storage. */
  const int64_t elem = (int64_t)fused_dtype_size(src->scalar_type);
  const int64_t count = (int64_t)src->storage->bytes / elem;
  int64_t first;
  if (__builtin_add_overflow((src->data - src->storage->base) / elem, offset, &first) ||
      !view_fits(first, ndim, sizes, strides, count)) {
    char got_sizes[200], got_strides[200];
    return fused_error("%s: the view (offset %lld, sizes %s, strides %s) reaches outside its "
                       "storage of %lld elements", fn, (long long)offset,
                       format_shape(got_sizes, sizeof got_sizes, ndim, sizes),
                       format_shape(got_strides, sizeof got_strides, ndim, strides),
                       (long long)count);
  }
  fused_tensor view = *src;
  /* An empty view's data points at most just past the storage (check_extent holds every
   * tensor to that): no element is read through it, so where it starts past there is moot. */
  view.data = src->storage->base + (first < count ? first : count) * elem;
  view.ndim = ndim;
  for (int32_t d = 0; d < FUSED_MAX_DIMS; d++) {
    view.sizes[d] = d < ndim ? sizes[d] : 0;
    view.strides[d] = d < ndim ? strides[d] : 0;
  }
  /* A new reference, unless out is src itself: its reference then passes to the view. */
  if (out != src) view.storage->refcount++;
  *out = view;
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
