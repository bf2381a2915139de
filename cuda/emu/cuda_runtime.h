/* The CUDA emulator's runtime: what cuda/ uses of CUDA, for the host C++ compiler, so that
 * the same sources run on the CPU where no GPU answers (docs/cuda.md). A test device, not a
 * product: it checks what can go wrong in a kernel's logic, not its speed.
 *
 * Execution model: a launch (FUSED_LAUNCH, c/fused_launch.h) runs its blocks on OpenMP threads;
 * a block's threads are fibers on one OS thread, run in an order shuffled by a seed
 * (fused_cuda_emu_seed), each until it finishes or waits at a barrier: __syncthreads for the
 * block, a warp's shuffles and votes for its 32 lanes. __shared__ variables are per OS thread,
 * and an OS thread runs one block at a time, so they are per block. Memory is the host's
 * (malloc), so AddressSanitizer sees every kernel access. Streams and events are synchronous:
 * a launch has finished when it returns. */
#ifndef FUSED_CUDA_EMU_RUNTIME_H
#define FUSED_CUDA_EMU_RUNTIME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <cmath>
#include <cstring>
#include <tuple>
#include <type_traits>

#define FUSED_CUDA_EMULATED 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
/* One instance per OS thread, which runs one block at a time: one per block. */
#define __shared__ static thread_local

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

/* CUDA's values (library_types.h); CUDA_R_16BF is cublasGemmEx's bfloat16 operand. */
enum cudaDataType { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16BF = 14 };
typedef cudaDataType cudaDataType_t;

struct CUstream_st;
typedef CUstream_st *cudaStream_t;
struct CUevent_st;
typedef CUevent_st *cudaEvent_t;
#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], multiProcessorCount;
  int major, minor;
};

const char *cudaGetErrorName(cudaError_t err);
const char *cudaGetErrorString(cudaError_t err);
/* The last error of this OS thread, cleared by reading it unless it is sticky (a kernel's fault,
 * as on a GPU, stays until the process ends). */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceSynchronize(void);

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0);

/* Device memory is host memory from malloc, recorded so that a copy whose "device" side is not
 * inside a live allocation is cudaErrorInvalidValue, as the GPU's runtime says for a host
 * pointer. */
cudaError_t cudaMalloc(void **ptr, size_t bytes);
template <typename T> cudaError_t cudaMalloc(T **ptr, size_t bytes) {
  return cudaMalloc((void **)ptr, bytes);
}
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = 0);
cudaError_t cudaMemset(void *dst, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t stream = 0);
cudaError_t cudaMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream = 0);

/* The emulator's own: the seed of the thread order (0: every block in thread order, lane 0
 * first; the default is 1) and how many blocks have run. */
extern "C" void fused_cuda_emu_seed(uint64_t seed);

namespace emu {

/* Where the running fiber is in its grid. */
struct Place {
  uint3 thread, block;
  dim3 block_dim, grid_dim;
};
/* Each thread of a block runs on a stack of its own, STACK_BYTES long and aligned to that, whose
 * lowest word points to its Place: the running thread's place, from its stack pointer alone
 * (thread-local storage in a shared library costs a call on every threadIdx). Kernel code
 * only: host code has no place. */
constexpr size_t STACK_BYTES = 256 * 1024; /* AddressSanitizer's frames are large */
inline const Place *place_of_stack(void) {
  uintptr_t sp;
  __asm__("movq %%rsp, %0" : "=r"(sp));
  return *(const Place *const *)(sp & ~(uintptr_t)(STACK_BYTES - 1));
}

void syncthreads(void);
/* Every lane of the caller's warp in mask writes `bits`; after the warp's barrier each reads
 * lane src's. */
uint64_t warp_exchange(unsigned mask, uint64_t bits, int src);
/* Every lane in mask contributes pred; the bits of those whose pred was true. */
unsigned warp_ballot(unsigned mask, int pred);

/* Runs body(arg) as the kernel `name` on grid × block threads, or sets the launch error. */
void launch(const char *name, dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
            void (*body)(const void *), const void *arg);

/* FUSED_LAUNCH's callable: the kernel and its launch configuration; calling it with the
 * kernel's arguments (converted to its parameter types, as a real launch does) runs it. */
template <typename... P> struct Launch {
  const char *name;
  dim3 grid, block;
  size_t shared_bytes;
  cudaStream_t stream;
  void (*kernel)(P...);
  void operator()(P... params) const {
    struct Call {
      void (*kernel)(P...);
      std::tuple<P...> params;
    } call{kernel, std::tuple<P...>(params...)};
    launch(name, grid, block, shared_bytes, stream,
           [](const void *c) {
             const Call *k = (const Call *)c;
             std::apply(k->kernel, k->params);
           },
           &call);
  }
};
template <typename... P>
Launch<P...> make_launch(const char *name, dim3 grid, dim3 block, size_t shared_bytes,
                         cudaStream_t stream, void (*kernel)(P...)) {
  return {name, grid, block, shared_bytes, stream, kernel};
}

template <typename T> uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8, "a warp shuffle moves at most 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof v);
  return bits;
}
template <typename T> T from_bits(uint64_t bits) {
  T v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

} // namespace emu

/* c/fused_launch.h: FUSED_LAUNCH(grid, block, shared_bytes, stream, kernel)(arguments...). */
#define FUSED_LAUNCH(grid, block, shared_bytes, stream, ...) \
  ::emu::make_launch(#__VA_ARGS__, grid, block, shared_bytes, stream, __VA_ARGS__)

#define threadIdx (::emu::place_of_stack()->thread)
#define blockIdx (::emu::place_of_stack()->block)
#define blockDim (::emu::place_of_stack()->block_dim)
#define gridDim (::emu::place_of_stack()->grid_dim)
constexpr int warpSize = 32;

inline void __syncthreads(void) { ::emu::syncthreads(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { ::emu::warp_exchange(mask, 0, 0); }
inline unsigned __activemask(void) { return 0xffffffffu; }

inline unsigned emu_lane(void) {
  const emu::Place &p = *emu::place_of_stack();
  return (p.thread.x + p.block_dim.x * (p.thread.y + p.block_dim.y * p.thread.z)) % 32;
}
template <typename T> T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  const int lane = (int)emu_lane();
  const int from = lane / width * width + src % width;
  return emu::from_bits<T>(emu::warp_exchange(mask, emu::to_bits(v), from));
}
template <typename T> T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = (int)emu_lane(), in = lane % width + (int)delta;
  return emu::from_bits<T>(
      emu::warp_exchange(mask, emu::to_bits(v), in < width ? lane + (int)delta : lane));
}
template <typename T> T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = (int)emu_lane(), in = lane % width - (int)delta;
  return emu::from_bits<T>(
      emu::warp_exchange(mask, emu::to_bits(v), in >= 0 ? lane - (int)delta : lane));
}
template <typename T> T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  const int lane = (int)emu_lane(), to = lane ^ lane_mask;
  return emu::from_bits<T>(
      emu::warp_exchange(mask, emu::to_bits(v), to / width == lane / width ? to : lane));
}
inline unsigned __ballot_sync(unsigned mask, int pred) { return emu::warp_ballot(mask, pred); }
inline int __all_sync(unsigned mask, int pred) { return emu::warp_ballot(mask, !pred) == 0; }
inline int __any_sync(unsigned mask, int pred) { return emu::warp_ballot(mask, pred) != 0; }

/* Atomics are atomic: blocks run on several OS threads at once. */
template <typename T, typename F> T emu_atomic_update(T *p, F f) {
  T old, next;
  __atomic_load(p, &old, __ATOMIC_SEQ_CST);
  do {
    next = f(old);
  } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return old;
}
template <typename T> T atomicAdd(T *p, T v) {
  return emu_atomic_update(p, [v](T old) { return (T)(old + v); });
}
template <typename T> T atomicSub(T *p, T v) {
  return emu_atomic_update(p, [v](T old) { return (T)(old - v); });
}
template <typename T> T atomicMin(T *p, T v) {
  return emu_atomic_update(p, [v](T old) { return v < old ? v : old; });
}
template <typename T> T atomicMax(T *p, T v) {
  return emu_atomic_update(p, [v](T old) { return v > old ? v : old; });
}
template <typename T> T atomicExch(T *p, T v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
  return old;
}
template <typename T> T atomicCAS(T *p, T expected, T desired) {
  __atomic_compare_exchange(p, &expected, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}

#endif
