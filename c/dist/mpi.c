/* The MPI shim (see fused_mpi.h): collectives on fused tensors, nonblocking, so that a dead
 * peer ends in a message within a deadline rather than a hang. */
#define _GNU_SOURCE /* on_exit */
#include "fused_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/error.h"
#include "check.h"

struct fused_mpi_request {
  MPI_Request request;
  const char *op; /* named in errors */
  int64_t bytes;
};

/* Each dtype's MPI type, from fused.h's FUSED_DTYPES. */
#define MPI_TYPE(id, ctype, name, npy, safetensors, floating, torch7, mpi, ...) [id] = mpi,
static MPI_Datatype mpi_types[] = {FUSED_DTYPES(MPI_TYPE)};
#undef MPI_TYPE
_Static_assert(sizeof mpi_types / sizeof *mpi_types == FUSED_NUM_DTYPES, "one row per dtype");

static int world_rank, world_size;
static int in_flight; /* requests started and not yet waited */

static int mpi_check(const char *op, int rc) {
  if (rc == MPI_SUCCESS) return 0;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return fused_error("distributed.%s: MPI error on rank %d of %d: %.*s", op, world_rank,
                     world_size, len, text);
}

/* A clean exit finalizes; an exit with an error aborts the job at once, so that the other
 * processes do not wait for this one until their deadline. */
static void at_exit(int status, void *arg) {
  if (status != 0 || in_flight > 0) {
    fprintf(stderr, "fused.distributed: rank %d of %d exited with status %d%s; aborting the "
            "job\n", world_rank, world_size, status,
            in_flight > 0 ? " while a collective was in flight" : "");
    MPI_Abort(MPI_COMM_WORLD, status != 0 ? status : 1);
  }
  MPI_Finalize();
}

int fused_mpi_init(int32_t *rank, int32_t *size) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    /* Only the Lua thread calls MPI; OpenMP's threads never do. */
    int provided;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      return fused_error("distributed.init: MPI_Init_thread failed");
    }
    /* Errors come back as codes (then Lua errors), not MPI's default abort. */
    FUSED_TRY(mpi_check("init", MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)));
    FUSED_TRY(mpi_check("init", MPI_Comm_rank(MPI_COMM_WORLD, &world_rank)));
    FUSED_TRY(mpi_check("init", MPI_Comm_size(MPI_COMM_WORLD, &world_size)));
    on_exit(at_exit, NULL);
  }
  *rank = world_rank;
  *size = world_size;
  return 0;
}

static int check_tensor(const char *op, const fused_tensor *t, int floating) {
  FUSED_TRY(dist_check_tensor(op, t, FUSED_CPU, "MPI", floating));
  int64_t n = fused_tensor_numel(t);
  if (n > INT32_MAX) {
    return fused_error("distributed.%s: argument 't' expected at most %d elements (MPI counts are "
                       "int), got %lld", op, INT32_MAX, (long long)n);
  }
  return 0;
}

static fused_mpi_request *new_request(const char *op, int64_t bytes) {
  fused_mpi_request *r = malloc(sizeof *r);
  if (!r) {
    fused_error("distributed.%s: out of memory", op);
    return NULL;
  }
  r->op = op;
  r->bytes = bytes;
  return r;
}

/* Hands r to the caller once MPI accepted it (rc). */
static int started(fused_mpi_request *r, int rc, fused_mpi_request **request) {
  if (mpi_check(r->op, rc) != 0) {
    free(r);
    return -1;
  }
  in_flight++;
  *request = r;
  return 0;
}

int fused_mpi_allreduce_start(fused_tensor *t, fused_mpi_request **request) {
  FUSED_TRY(check_tensor("allreduce", t, 1));
  int64_t n = fused_tensor_numel(t);
  MPI_Datatype type = mpi_types[t->scalar_type];
  fused_mpi_request *r = new_request("allreduce", n * fused_dtype_size(t->scalar_type));
  if (!r) return -1;
  return started(r, MPI_Iallreduce(MPI_IN_PLACE, t->data, (int)n, type, MPI_SUM, MPI_COMM_WORLD,
                                   &r->request), request);
}

int fused_mpi_broadcast_start(fused_tensor *t, int32_t root, fused_mpi_request **request) {
  FUSED_TRY(check_tensor("broadcast", t, 0));
  if (root < 0 || root >= world_size) {
    return fused_error("distributed.broadcast: argument 'root' expected a rank in 0..%d, got %d",
                       world_size - 1, root);
  }
  int64_t bytes = fused_tensor_numel(t) * fused_dtype_size(t->scalar_type);
  if (bytes > INT32_MAX) {
    return fused_error("distributed.broadcast: argument 't' expected at most %d bytes, got %lld",
                       INT32_MAX, (long long)bytes);
  }
  fused_mpi_request *r = new_request("broadcast", bytes);
  if (!r) return -1;
  return started(r, MPI_Ibcast(t->data, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD, &r->request),
                 request);
}

int fused_mpi_barrier_start(fused_mpi_request **request) {
  fused_mpi_request *r = new_request("barrier", 0);
  if (!r) return -1;
  return started(r, MPI_Ibarrier(MPI_COMM_WORLD, &r->request), request);
}

int fused_mpi_test(fused_mpi_request *r, int32_t *done) {
  int flag = 0;
  FUSED_TRY(mpi_check(r->op, MPI_Test(&r->request, &flag, MPI_STATUS_IGNORE)));
  *done = flag;
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int fused_mpi_wait(fused_mpi_request *r, double timeout_s) {
  double deadline = now_s() + timeout_s;
  int flag = 0;
  for (long polls = 0;; polls++) {
    int rc = MPI_Test(&r->request, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) {
      in_flight--;
      const char *op = r->op;
      free(r);
      return mpi_check(op, rc);
    }
    if (now_s() > deadline) break;
    /* Spin a little for short collectives, then sleep so a waiting rank leaves the core to
     * its peers (they may share it). */
    if (polls > 1000) nanosleep(&(struct timespec){ .tv_nsec = 50000 }, NULL);
  }
  fprintf(stderr, "fused.distributed: rank %d of %d: %s of %lld bytes did not complete within "
          "%g s (FUSED_DIST_TIMEOUT): a peer has died or stopped calling it; aborting every "
          "process\n", world_rank, world_size, r->op, (long long)r->bytes, timeout_s);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return -1; /* not reached */
}
