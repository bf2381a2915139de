/* One way to launch a kernel, for fused's CUDA sources and extensions' .cu files alike:
 *
 *   FUSED_LAUNCH(grid, block, shared_bytes, stream, kernel<T>)(arguments...);
 *
 * nvcc's <<<...>>> under nvcc; the CUDA emulator's launch (cuda/emu/cuda_runtime.h, which
 * defines it) where the host compiler builds the same source. */
#ifndef FUSED_LAUNCH_H
#define FUSED_LAUNCH_H

#if defined(__CUDACC__)
#define FUSED_LAUNCH(grid, block, shared_bytes, stream, ...) \
  __VA_ARGS__<<<grid, block, shared_bytes, stream>>>
#elif !defined(FUSED_CUDA_EMULATED)
#error "fused_launch.h is for CUDA code: compile with nvcc, or against the CUDA emulator"
#endif

#endif
