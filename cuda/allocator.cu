/* The caching allocator. cudaMalloc and cudaFree are slow and cudaFree waits for the whole
 * device, so freed blocks are kept in bins by size class and handed out again; cudaMalloc runs
 * only when the bin is empty. Every op runs on the one stream, so a block handed out again is
 * only written after the work queued before it was freed. Blocks are never split: a size class
 * wastes under 25%. Lua is single-threaded, so there is no lock. */
#include <map>
#include <unordered_map>
#include <vector>

#include "common.cuh"

#if defined(__SANITIZE_ADDRESS__) /* the CUDA emulator's AddressSanitizer build */
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

namespace {

/* Under AddressSanitizer (device memory being the host's, on the emulator) a block is poisoned
 * past the bytes asked for and while it is cached, so that a kernel reading past its tensor or
 * into a freed one is an error naming the kernel, as it is without the cache. */
struct Cache {
  std::unordered_map<void *, size_t> live;           /* block -> its size class */
  std::map<size_t, std::vector<void *>> free_blocks; /* size class -> cached blocks */
  fused_cuda_memory stats;
};

/* Never destroyed: tensors may still be freed while the process exits. */
Cache &cache() {
  static Cache *c = new Cache();
  return *c;
}

/* 512 bytes, then four classes per power of two. */
size_t size_class(size_t bytes) {
  if (bytes <= 512) return 512;
  int high = 63 - __builtin_clzll((unsigned long long)(bytes - 1)); /* 2^high < bytes */
  size_t step = std::max<size_t>(512, (size_t)1 << (high >= 2 ? high - 2 : 0));
  return (bytes + step - 1) / step * step;
}

double mib(int64_t bytes) { return (double)bytes / (1 << 20); }

int release_cache(void) {
  Cache &c = cache();
  /* A cached block may still be read by queued work. */
  FUSED_TRY(cuda_check("cuda.empty_cache", cudaStreamSynchronize(cuda_stream)));
  for (auto &bin : c.free_blocks) {
    for (void *p : bin.second) {
      ASAN_UNPOISON_MEMORY_REGION(p, bin.first);
      FUSED_TRY(cuda_check("cuda.empty_cache: cudaFree", cudaFree(p)));
      c.stats.reserved -= (int64_t)bin.first;
    }
    bin.second.clear();
  }
  return 0;
}

} // namespace

void *cuda_alloc(const char *fn, size_t bytes) {
  Cache &c = cache();
  const size_t size = size_class(bytes);
  void *p = NULL;
  auto bin = c.free_blocks.find(size);
  if (bin != c.free_blocks.end() && !bin->second.empty()) {
    p = bin->second.back();
    bin->second.pop_back();
  } else {
    cudaError_t err = cudaMalloc(&p, size);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      if (release_cache() != 0) return NULL;
      err = cudaMalloc(&p, size);
    }
    if (err != cudaSuccess) {
      cudaGetLastError();
      if (err == cudaErrorMemoryAllocation)
        fused_error("%s: CUDA out of memory allocating %zu bytes (%.1f MiB), even after "
                    "emptying the cache: in use %.1f MiB, reserved %.1f MiB, peak %.1f MiB",
                    fn, bytes, mib((int64_t)bytes), mib(c.stats.in_use), mib(c.stats.reserved),
                    mib(c.stats.peak));
      else
        fused_error("%s: cudaMalloc of %zu bytes failed: CUDA error %s (%s)", fn, size,
                    cudaGetErrorName(err), cudaGetErrorString(err));
      return NULL;
    }
    c.stats.reserved += (int64_t)size;
    c.stats.cuda_mallocs++;
  }
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
  ASAN_POISON_MEMORY_REGION((char *)p + bytes, size - bytes);
  c.live[p] = size;
  c.stats.in_use += (int64_t)size;
  c.stats.peak = std::max(c.stats.peak, c.stats.in_use);
  return p;
}

void cuda_free(void *p) {
  Cache &c = cache();
  auto block = c.live.find(p);
  if (block == c.live.end()) return; /* not ours: nothing to give back */
  ASAN_POISON_MEMORY_REGION(p, block->second);
  c.free_blocks[block->second].push_back(p);
  c.stats.in_use -= (int64_t)block->second;
  c.live.erase(block);
}

extern "C" int fused_cuda_memory_stats(fused_cuda_memory *stats) {
  if (!stats) return fused_error("cuda.memory_stats: argument 'stats' is NULL");
  *stats = cache().stats;
  return 0;
}

extern "C" int fused_cuda_empty_cache(void) {
  if (!cuda_stream) return fused_error("cuda.empty_cache: no CUDA device is initialised");
  return release_cache();
}
