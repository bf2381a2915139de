-- Generated from cuda/fused_cuda.h by scripts/gen-cdef.sh; edit the header, then run make.
return [[
/* Finds device 0 and registers the CUDA backend with libfused; without a usable device the
 * error says why (no driver, no device, a GPU older than the build's sm_90, ...). */
int fused_cuda_init(void);
/* "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" once initialised, else "". */
const char *fused_cuda_device_name(void);
/* Waits for every queued op; a fault in one of them is reported here. */
int fused_cuda_synchronize(void);
/* The caching allocator, in bytes: in_use is handed out to tensors (rounded up to the
 * allocator's size classes), reserved is held from cudaMalloc (in_use plus the cache), peak is
 * the highest in_use so far, cuda_mallocs counts the cudaMalloc calls. */
typedef struct fused_cuda_memory {
  int64_t in_use, reserved, peak, cuda_mallocs;
} fused_cuda_memory;
int fused_cuda_memory_stats(fused_cuda_memory *stats);
/* Returns the cached blocks (not in use) to the device. */
int fused_cuda_empty_cache(void);
/* float32 matrix products in plain float32 (0, the default) or on TF32 tensor cores (1). */
int fused_cuda_set_tf32(int32_t enabled);
/* The CUDA emulator's library only (libfused_cuda_emu.so, docs/cuda.md): the seed of the order
 * in which a block's threads run; 0 runs them in thread order. */
void fused_cuda_emu_seed(uint64_t seed);
]]
