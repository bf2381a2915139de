/* The emulator's device (cuda_runtime.h): its properties, errors, streams and events (all
 * synchronous), and its memory: host memory, with a device-sized budget so that running out is
 * cudaErrorMemoryAllocation, and a record of the live blocks so that a copy or a memset whose
 * device side is not inside one fails as on a GPU. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "device.h"

namespace {

constexpr size_t DEVICE_BYTES = (size_t)16 << 30;
constexpr size_t ALIGNMENT = 256; /* cudaMalloc's */

struct Errors {
  std::mutex lock;
  cudaError_t last = cudaSuccess;
  char detail[512] = "";
  cudaError_t detail_of = cudaSuccess;
};
Errors &errors() {
  static Errors *e = new Errors();
  return *e;
}

struct Memory {
  std::mutex lock;
  std::map<const char *, size_t> blocks; /* start -> bytes */
  size_t in_use = 0;
};
Memory &memory() {
  static Memory *m = new Memory();
  return *m;
}

struct Streams {
  std::mutex lock;
  std::set<cudaStream_t> live;
};
Streams &streams() {
  static Streams *s = new Streams();
  return *s;
}

struct CUevent_time {
  std::chrono::steady_clock::time_point at;
};

cudaError_t fail(cudaError_t err, const char *call, const char *why) {
  emu::set_error(err, "%s: %s", call, why);
  return err;
}

/* Every call that takes a stream checks it: the null stream, or one made and not destroyed. */
cudaError_t check_stream(const char *call, cudaStream_t stream) {
  return emu::stream_is_valid(stream) ? cudaSuccess
                                      : fail(cudaErrorInvalidValue, call, "not a stream");
}

/* Whether [p, p + bytes) lies in one live allocation. */
bool on_device(const void *p, size_t bytes) {
  Memory &m = memory();
  std::lock_guard<std::mutex> guard(m.lock);
  auto it = m.blocks.upper_bound((const char *)p);
  if (it == m.blocks.begin()) return false;
  --it;
  const char *start = it->first, *c = (const char *)p;
  return c >= start && c + bytes <= start + it->second;
}

/* The device sides of a copy of kind must be device memory, the host sides must not. */
cudaError_t check_copy(const char *call, void *dst, size_t dst_bytes, const void *src,
                       size_t src_bytes, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection, call, "not a cudaMemcpyKind");
  if (kind == cudaMemcpyDefault || kind == cudaMemcpyHostToHost) return cudaSuccess;
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_device != on_device(dst, dst_bytes) && dst_bytes > 0)
    return fail(cudaErrorInvalidValue, call,
                dst_device ? "the destination is not device memory (or runs past its block)"
                           : "the destination is device memory, the kind says host");
  if (src_device != on_device(src, src_bytes) && src_bytes > 0)
    return fail(cudaErrorInvalidValue, call,
                src_device ? "the source is not device memory (or runs past its block)"
                           : "the source is device memory, the kind says host");
  return cudaSuccess;
}

} // namespace

namespace emu {

void set_error(cudaError_t err, const char *fmt, ...) {
  Errors &e = errors();
  std::lock_guard<std::mutex> guard(e.lock);
  e.last = err;
  e.detail_of = err;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.detail, sizeof e.detail, fmt, ap);
  va_end(ap);
}

bool stream_is_valid(cudaStream_t stream) {
  if (!stream) return true;
  Streams &s = streams();
  std::lock_guard<std::mutex> guard(s.lock);
  return s.live.count(stream) != 0;
}

} // namespace emu

const char *cudaGetErrorName(cudaError_t err) {
  switch (err) {
#define NAME(e) case e: return #e;
    NAME(cudaSuccess) NAME(cudaErrorInvalidValue) NAME(cudaErrorMemoryAllocation)
    NAME(cudaErrorInvalidConfiguration) NAME(cudaErrorInvalidDevicePointer)
    NAME(cudaErrorInvalidMemcpyDirection) NAME(cudaErrorInsufficientDriver)
    NAME(cudaErrorNoDevice) NAME(cudaErrorInvalidDevice) NAME(cudaErrorNotReady)
    NAME(cudaErrorLaunchFailure)
#undef NAME
  }
  return "cudaErrorUnknown";
}

/* CUDA's text, then what the emulator saw of the latest error of this kind. */
const char *cudaGetErrorString(cudaError_t err) {
  const char *text = "unknown error";
  switch (err) {
    case cudaSuccess: text = "no error"; break;
    case cudaErrorInvalidValue: text = "invalid argument"; break;
    case cudaErrorMemoryAllocation: text = "out of memory"; break;
    case cudaErrorInvalidConfiguration: text = "invalid configuration argument"; break;
    case cudaErrorInvalidDevicePointer: text = "invalid device pointer"; break;
    case cudaErrorInvalidMemcpyDirection: text = "invalid copy direction for memcpy"; break;
    case cudaErrorInsufficientDriver:
      text = "CUDA driver version is insufficient for CUDA runtime version";
      break;
    case cudaErrorNoDevice: text = "no CUDA-capable device is detected"; break;
    case cudaErrorInvalidDevice: text = "invalid device ordinal"; break;
    case cudaErrorNotReady: text = "device not ready"; break;
    case cudaErrorLaunchFailure: text = "unspecified launch failure"; break;
  }
  Errors &e = errors();
  std::lock_guard<std::mutex> guard(e.lock);
  if (err == cudaSuccess || e.detail_of != err || !e.detail[0]) return text;
  static thread_local char both[640];
  snprintf(both, sizeof both, "%s; emulator: %s", text, e.detail);
  return both;
}

cudaError_t cudaGetLastError(void) {
  Errors &e = errors();
  std::lock_guard<std::mutex> guard(e.lock);
  const cudaError_t err = e.last;
  e.last = cudaSuccess;
  return err;
}

cudaError_t cudaPeekAtLastError(void) {
  Errors &e = errors();
  std::lock_guard<std::mutex> guard(e.lock);
  return e.last;
}

cudaError_t cudaGetDeviceCount(int *count) {
  if (!count) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount", "count is NULL");
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  if (!prop) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties", "prop is NULL");
  if (device != 0) return fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties", "device 0 only");
  *prop = cudaDeviceProp{};
  snprintf(prop->name, sizeof prop->name, "CUDA emulator on the CPU");
  prop->totalGlobalMem = DEVICE_BYTES;
  prop->sharedMemPerBlock = 48 * 1024;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->multiProcessorCount = 1;
  prop->major = 9;
  prop->minor = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice, "cudaSetDevice", "device 0 only");
}

cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags) {
  if (!stream) return fail(cudaErrorInvalidValue, "cudaStreamCreate", "stream is NULL");
  Streams &s = streams();
  std::lock_guard<std::mutex> guard(s.lock);
  *stream = (cudaStream_t) new char(0); /* only its address is used */
  s.live.insert(*stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  Streams &s = streams();
  std::lock_guard<std::mutex> guard(s.lock);
  if (!s.live.erase(stream)) return fail(cudaErrorInvalidValue, "cudaStreamDestroy", "not a stream");
  delete (char *)stream;
  return cudaSuccess;
}

/* Work on a stream is done when its call returns. */
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return check_stream("cudaStreamSynchronize", stream);
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  if (!event) return fail(cudaErrorInvalidValue, "cudaEventCreate", "event is NULL");
  *event = (cudaEvent_t) new CUevent_time();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete (CUevent_time *)event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!event) return fail(cudaErrorInvalidValue, "cudaEventRecord", "event is NULL");
  ((CUevent_time *)event)->at = std::chrono::steady_clock::now();
  return cudaStreamSynchronize(stream);
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms || !start || !end) return fail(cudaErrorInvalidValue, "cudaEventElapsedTime", "NULL");
  *ms = std::chrono::duration<float, std::milli>(((CUevent_time *)end)->at -
                                                 ((CUevent_time *)start)->at)
            .count();
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  return cudaStreamSynchronize(stream);
}

cudaError_t cudaMalloc(void **ptr, size_t bytes) {
  if (!ptr) return fail(cudaErrorInvalidValue, "cudaMalloc", "ptr is NULL");
  *ptr = nullptr;
  Memory &m = memory();
  std::lock_guard<std::mutex> guard(m.lock);
  if (bytes > DEVICE_BYTES - m.in_use) {
    emu::set_error(cudaErrorMemoryAllocation, "cudaMalloc: %zu bytes, %zu of the device's %zu "
                   "in use", bytes, m.in_use, DEVICE_BYTES);
    return cudaErrorMemoryAllocation;
  }
  const size_t size = bytes == 0 ? ALIGNMENT : bytes;
  void *p = nullptr;
  if (posix_memalign(&p, ALIGNMENT, size) != 0)
    return fail(cudaErrorMemoryAllocation, "cudaMalloc", "the host has no memory left");
  /* A block is recorded at its asked size, so that AddressSanitizer's bound and ours agree. */
  m.blocks[(const char *)p] = size;
  m.in_use += size;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void *ptr) {
  if (!ptr) return cudaSuccess;
  Memory &m = memory();
  std::lock_guard<std::mutex> guard(m.lock);
  auto it = m.blocks.find((const char *)ptr);
  if (it == m.blocks.end()) {
    emu::set_error(cudaErrorInvalidDevicePointer, "cudaFree: %p is not the start of a block "
                   "from cudaMalloc", ptr);
    return cudaErrorInvalidDevicePointer;
  }
  m.in_use -= it->second;
  m.blocks.erase(it);
  free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  const cudaError_t err = check_copy("cudaMemcpy", dst, bytes, src, bytes, kind);
  if (err == cudaSuccess && bytes) memmove(dst, src, bytes);
  return err;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (cudaError_t err = check_stream("cudaMemcpyAsync", stream)) return err;
  return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  if (cudaError_t err = check_stream("cudaMemcpy2DAsync", stream)) return err;
  if (width > dpitch || width > spitch)
    return fail(cudaErrorInvalidValue, "cudaMemcpy2DAsync", "width exceeds a pitch");
  if (height == 0 || width == 0) return cudaSuccess;
  const cudaError_t err = check_copy("cudaMemcpy2DAsync", dst, dpitch * (height - 1) + width, src,
                                     spitch * (height - 1) + width, kind);
  if (err != cudaSuccess) return err;
  for (size_t r = 0; r < height; r++)
    memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
  return cudaSuccess;
}

cudaError_t cudaMemset(void *dst, int value, size_t bytes) {
  if (bytes && !on_device(dst, bytes))
    return fail(cudaErrorInvalidValue, "cudaMemset", "not device memory (or past its block)");
  if (bytes) memset(dst, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t stream) {
  if (cudaError_t err = check_stream("cudaMemsetAsync", stream)) return err;
  return cudaMemset(dst, value, bytes);
}

cudaError_t cudaMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
  if (cudaError_t err = check_stream("cudaMemset2DAsync", stream)) return err;
  if (width > pitch)
    return fail(cudaErrorInvalidValue, "cudaMemset2DAsync", "width exceeds pitch");
  if (height == 0 || width == 0) return cudaSuccess;
  if (!on_device(dst, pitch * (height - 1) + width))
    return fail(cudaErrorInvalidValue, "cudaMemset2DAsync",
                "not device memory (or past its block)");
  for (size_t r = 0; r < height; r++) memset((char *)dst + r * pitch, value, width);
  return cudaSuccess;
}
