/* The CUDA emulator's NCCL: what cuda/dist/nccl.cu uses of it, over MPI, for processes whose
 * "device" memory is their own host memory (docs/distributed.md). Every call completes before
 * it returns, so a nonblocking communicator is never in progress. */
#ifndef FUSED_CUDA_EMU_NCCL_H
#define FUSED_CUDA_EMU_NCCL_H

#include "../cuda_runtime.h"

enum ncclResult_t {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
};
enum ncclDataType_t {
  ncclUint8 = 1, ncclInt64 = 4, ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9
};
enum ncclRedOp_t { ncclSum = 0 };

#define NCCL_UNIQUE_ID_BYTES 128
struct ncclUniqueId {
  char internal[NCCL_UNIQUE_ID_BYTES];
};
struct ncclComm;
typedef ncclComm *ncclComm_t;
struct ncclConfig_t {
  size_t size;
  int blocking;
};
#define NCCL_CONFIG_INITIALIZER {sizeof(ncclConfig_t), 1}

const char *ncclGetErrorString(ncclResult_t result);
ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
/* Collective over the MPI processes (MPI initialised already): rank and nranks must be MPI's. */
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *config);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *state);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type,
                           int root, ncclComm_t comm, cudaStream_t stream);

#endif
