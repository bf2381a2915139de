/* fused's NCCL shim (libfused_nccl.so, linked with libnccl and libfused_cuda): collectives on
 * CUDA tensors for lua/fused/distributed/, on the CUDA backend's stream. The unique id that
 * joins the processes travels over MPI (rank 0 makes it, broadcast() hands it out).
 *
 * Everything between the ffi markers is copied by `make` into
 * lua/fused/distributed/nccl_cdef.lua. Every function returns 0, or -1 with
 * fused_last_error() saying why. A deadline bounds every wait: NCCL's communicator is made
 * nonblocking, so a dead peer ends in an error (and the communicator aborted), not a hang.
 */
#ifndef FUSED_NCCL_H
#define FUSED_NCCL_H

#include "../../c/fused.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ffi-begin */
enum { FUSED_NCCL_ID_BYTES = 128 };
/* On rank 0: a new unique id into id[FUSED_NCCL_ID_BYTES]. */
int fused_nccl_unique_id(char *id);
/* Joins the communicator of size processes named by id, as rank; waits at most timeout_s. */
int fused_nccl_init(const char *id, int32_t rank, int32_t size, double timeout_s);
/* Queues an in-place sum of a contiguous float32 or float64 CUDA tensor over every process. */
int fused_nccl_allreduce(fused_tensor *t);
/* Queues root's values of a contiguous CUDA tensor into every process's t. */
int fused_nccl_broadcast(fused_tensor *t, int32_t root);
/* Waits at most timeout_s for everything queued on the CUDA stream, NCCL's collectives too. */
int fused_nccl_wait(double timeout_s);
/* ffi-end */

#ifdef __cplusplus
}
#endif
#endif
