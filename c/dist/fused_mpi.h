/* fused's MPI shim (libfused_mpi.so, linked with libmpi): what lua/fused/distributed/ calls.
 *
 * A shim because Open MPI's handles (MPI_COMM_WORLD, MPI_FLOAT, ...) are macros over global
 * symbols that the FFI cannot name portably. libfused itself never depends on MPI.
 * Everything between the ffi markers is copied by `make` into
 * lua/fused/distributed/mpi_cdef.lua, given to ffi.cdef after c/fused.h's declarations.
 * Every function returns 0, or -1 with fused_last_error() saying why.
 */
#ifndef FUSED_MPI_H
#define FUSED_MPI_H

#include "../fused.h"

/* ffi-begin */
/* A collective in flight: started by a *_start function, finished (and freed) by
 * fused_mpi_wait. */
typedef struct fused_mpi_request fused_mpi_request;

/* Initialises MPI (once; MPI_Finalize runs at exit) and reports this process's place. */
int fused_mpi_init(int32_t *rank, int32_t *size);

/* In-place sum of a contiguous float32 or float64 CPU tensor over every process. */
int fused_mpi_allreduce_start(fused_tensor *t, fused_mpi_request **request);
/* Root's values of a contiguous CPU tensor (any dtype) into every process's t. */
int fused_mpi_broadcast_start(fused_tensor *t, int32_t root, fused_mpi_request **request);
int fused_mpi_barrier_start(fused_mpi_request **request);

/* Lets MPI make progress on request; *done is 1 once it has completed (still to be waited). */
int fused_mpi_test(fused_mpi_request *request, int32_t *done);
/* Waits for request and frees it. A request that has not completed within timeout_s seconds
 * means a peer died or stopped calling the collective: the message goes to stderr and
 * MPI_Abort ends every process, since a collective in flight cannot be cancelled. */
int fused_mpi_wait(fused_mpi_request *request, double timeout_s);
/* ffi-end */

#endif
