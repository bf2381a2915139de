/* nccl.h over MPI: a communicator is a duplicate of MPI_COMM_WORLD, each collective MPI's. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "nccl.h"

struct ncclComm {
  MPI_Comm mpi;
};

namespace {

bool mpi_type(ncclDataType_t type, MPI_Datatype *out) {
  switch (type) {
    case ncclUint8: *out = MPI_UINT8_T; return true;
    case ncclInt64: *out = MPI_INT64_T; return true;
    case ncclFloat32: *out = MPI_FLOAT; return true;
    case ncclFloat64: *out = MPI_DOUBLE; return true;
    /* moved as bits (broadcast): the sums refuse the 16-bit dtypes, which do not compute */
    case ncclFloat16: case ncclBfloat16: *out = MPI_UINT16_T; return true;
  }
  return false;
}

ncclResult_t check(int rc) { return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError; }

} // namespace

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error (MPI, under the CUDA emulator)";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
  }
  return "unknown result code";
}

/* The processes find each other through MPI: the id only has to be the same on all. */
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  if (!id) return ncclInvalidArgument;
  memset(id->internal, 0, sizeof id->internal);
  snprintf(id->internal, sizeof id->internal, "fused CUDA emulator: MPI_COMM_WORLD");
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *config) {
  int initialised = 0, mpi_rank = -1, mpi_size = 0;
  if (!comm || MPI_Initialized(&initialised) != MPI_SUCCESS || !initialised) return ncclInvalidUsage;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  if (rank != mpi_rank || nranks != mpi_size) return ncclInvalidArgument;
  ncclComm *c = new ncclComm();
  if (MPI_Comm_dup(MPI_COMM_WORLD, &c->mpi) != MPI_SUCCESS) {
    delete c;
    return ncclSystemError;
  }
  *comm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *state) {
  if (!comm || !state) return ncclInvalidArgument;
  *state = ncclSuccess;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm) return ncclInvalidArgument;
  MPI_Comm_free(&comm->mpi);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  MPI_Datatype t;
  if (!comm || !mpi_type(type, &t) || op != ncclSum || count > INT_MAX) return ncclInvalidArgument;
  return check(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)count, t, MPI_SUM,
                             comm->mpi));
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type,
                           int root, ncclComm_t comm, cudaStream_t stream) {
  MPI_Datatype t;
  if (!comm || !mpi_type(type, &t) || count > INT_MAX) return ncclInvalidArgument;
  int rank = -1, size = 0;
  MPI_Comm_rank(comm->mpi, &rank);
  MPI_Comm_size(comm->mpi, &size);
  if (root < 0 || root >= size) return ncclInvalidArgument;
  if (rank == root && send != recv) {
    int bytes = 0;
    MPI_Type_size(t, &bytes);
    memmove(recv, send, count * (size_t)bytes);
  }
  return check(MPI_Bcast(recv, (int)count, t, root, comm->mpi));
}
