-- Generated from c/dist/fused_mpi.h by scripts/gen-cdef.sh; edit the header, then run make.
return [[
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
]]
