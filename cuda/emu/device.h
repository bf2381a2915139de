/* What the emulator's files share: the last error, the streams. */
#ifndef FUSED_CUDA_EMU_DEVICE_H
#define FUSED_CUDA_EMU_DEVICE_H

#include "cuda_runtime.h"

namespace emu {

/* Sets the error that cudaGetLastError returns next; the printf-style detail (naming the
 * kernel or the call) is appended to cudaGetErrorString's text for that error. */
void set_error(cudaError_t err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The null stream, or one made by cudaStreamCreate and not destroyed. */
bool stream_is_valid(cudaStream_t stream);

} // namespace emu

#endif
