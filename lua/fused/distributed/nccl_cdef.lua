-- Generated from cuda/dist/fused_nccl.h by scripts/gen-cdef.sh; edit the header, then run make.
return [[
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
]]
