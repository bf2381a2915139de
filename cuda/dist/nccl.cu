/* The NCCL shim (see fused_nccl.h). Compiled wherever nvcc and nccl.h are; it has only run
 * where a GPU is (docs/distributed.md). */
#include <nccl.h>
#include <time.h>

#include "../../c/dist/check.h"
#include "../common.cuh"
#include "fused_nccl.h"

/* Each dtype's NCCL type, from fused.h's FUSED_DTYPES (bool as bytes). */
#define NCCL_TYPE(id, ctype, name, npy, safetensors, floating, torch7, mpi, nccl) nccl,
static const ncclDataType_t nccl_types[] = {FUSED_DTYPES(NCCL_TYPE)};
#undef NCCL_TYPE
static_assert(sizeof nccl_types / sizeof *nccl_types == FUSED_NUM_DTYPES, "one row per dtype");

static ncclComm_t comm;
static int comm_rank, comm_size;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int nccl_check(const char *op, ncclResult_t rc) {
  if (rc == ncclSuccess || rc == ncclInProgress) return 0;
  return fused_error("distributed.%s: NCCL error on rank %d of %d: %s", op, comm_rank, comm_size,
                     ncclGetErrorString(rc));
}

/* A nonblocking communicator finishes its calls in the background: polls its state until it
 * is settled (and, when stream, the CUDA stream is idle) or the deadline passes. */
static int settle(const char *op, double timeout_s, int stream) {
  double deadline = now_s() + timeout_s;
  for (;;) {
    ncclResult_t state;
    FUSED_TRY(nccl_check(op, ncclCommGetAsyncError(comm, &state)));
    FUSED_TRY(nccl_check(op, state));
    cudaError_t idle = cudaSuccess;
    if (stream) {
      idle = cudaStreamQuery(cuda_stream);
      if (idle != cudaErrorNotReady) FUSED_TRY(cuda_check(op, idle));
    }
    if (state == ncclSuccess && idle == cudaSuccess) return 0;
    if (now_s() > deadline) break;
    struct timespec pause = { 0, 50000 };
    nanosleep(&pause, NULL);
  }
  ncclCommAbort(comm);
  comm = NULL;
  return fused_error("distributed.%s: rank %d of %d: NCCL did not complete within %g s "
                     "(FUSED_DIST_TIMEOUT): a peer has died or stopped calling it; the "
                     "communicator is aborted", op, comm_rank, comm_size, timeout_s);
}

int fused_nccl_unique_id(char *id) {
  ncclUniqueId unique;
  FUSED_TRY(nccl_check("init", ncclGetUniqueId(&unique)));
  memcpy(id, unique.internal, NCCL_UNIQUE_ID_BYTES);
  return 0;
}

int fused_nccl_init(const char *id, int32_t rank, int32_t size, double timeout_s) {
  ncclUniqueId unique;
  memcpy(unique.internal, id, NCCL_UNIQUE_ID_BYTES);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  comm_rank = rank;
  comm_size = size;
  FUSED_TRY(nccl_check("init", ncclCommInitRankConfig(&comm, size, unique, rank, &config)));
  return settle("init", timeout_s, 0);
}

static int check_tensor(const char *op, const fused_tensor *t, int floating) {
  if (!comm) return fused_error("distributed.%s: NCCL is not initialised", op);
  return dist_check_tensor(op, t, FUSED_CUDA, "NCCL", floating);
}

int fused_nccl_allreduce(fused_tensor *t) {
  FUSED_TRY(check_tensor("allreduce", t, 1));
  ncclDataType_t type = nccl_types[t->scalar_type];
  return nccl_check("allreduce", ncclAllReduce(t->data, t->data, (size_t)fused_tensor_numel(t),
                                               type, ncclSum, comm, cuda_stream));
}

int fused_nccl_broadcast(fused_tensor *t, int32_t root) {
  FUSED_TRY(check_tensor("broadcast", t, 0));
  if (root < 0 || root >= comm_size) {
    return fused_error("distributed.broadcast: argument 'root' expected a rank in 0..%d, got %d",
                       comm_size - 1, root);
  }
  size_t bytes = (size_t)fused_tensor_numel(t) * fused_dtype_size(t->scalar_type);
  return nccl_check("broadcast", ncclBroadcast(t->data, t->data, bytes, ncclUint8, root, comm,
                                               cuda_stream));
}

int fused_nccl_wait(double timeout_s) {
  if (!comm) return fused_error("distributed.wait: NCCL is not initialised");
  return settle("wait", timeout_s, 1);
}
