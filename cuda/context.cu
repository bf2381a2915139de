/* The CUDA device: finding it, the one stream and cuBLAS handle, error reporting, and the
 * registration of the backend with libfused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"

cudaStream_t cuda_stream;
cublasHandle_t cuda_blas;

static int initialised;
static int sync_every_op; /* FUSED_CUDA_SYNC=1 */
static char device_name[256];

int cuda_check(const char *op, cudaError_t err) {
  if (err == cudaSuccess) return 0;
  cudaGetLastError(); /* clears a non-sticky error so that it is not reported twice */
  return fused_error("%s: CUDA error %s (%s)", op, cudaGetErrorName(err), cudaGetErrorString(err));
}

int cuda_check_blas(const char *op, cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS) return 0;
  return fused_error("%s: cuBLAS error %s (%s)", op, cublasGetStatusName(status),
                     cublasGetStatusString(status));
}

int cuda_done(const char *op) {
  FUSED_TRY(cuda_check(op, cudaGetLastError()));
  return sync_every_op ? cuda_check(op, cudaStreamSynchronize(cuda_stream)) : 0;
}

Layout layout_of(const fused_tensor *t) {
  Layout l = {};
  if (fused_tensor_is_contiguous(t)) {
    l.ndim = 1;
    l.sizes[0] = fused_tensor_numel(t);
    l.strides[0] = 1;
    return l;
  }
  l.ndim = t->ndim;
  for (int32_t d = 0; d < t->ndim; d++) {
    l.sizes[d] = t->sizes[d];
    l.strides[d] = t->strides[d];
  }
  return l;
}

static void *device_alloc(size_t bytes) { return cuda_alloc("tensor_new", bytes); }

static fused_device_ops make_device() {
  fused_device_ops d = {};
#ifdef FUSED_CUDA_EMULATED
  d.name = "cuda (emulated)"; /* in messages: the emulator is never taken for a GPU */
#else
  d.name = "cuda";
#endif
  d.alloc = device_alloc;
  d.free = cuda_free;
  d.copy = cuda_copy;
  for (int dtype = 0; dtype < FUSED_NUM_DTYPES; dtype++) d.kernels[dtype] = &cuda_kernels[dtype];
  return d;
}
static const fused_device_ops cuda_device = make_device();

/* Launched once at start-up: a device that cannot run this build's code fails here, with a
 * reason, rather than at the first op. */
__global__ void probe_kernel(int *out) { *out = 1; }

static int probe(void) {
  int *flag = NULL, host = 0;
  FUSED_TRY(cuda_check("cuda_init: cudaMalloc", cudaMalloc(&flag, sizeof *flag)));
  FUSED_LAUNCH(1, 1, 0, cuda_stream, probe_kernel)(flag);
  int rc = cuda_check("cuda_init: a test kernel", cudaGetLastError());
  if (rc == 0)
    rc = cuda_check("cuda_init: a test kernel",
                    cudaMemcpyAsync(&host, flag, sizeof host, cudaMemcpyDeviceToHost, cuda_stream));
  if (rc == 0) rc = cuda_check("cuda_init: a test kernel", cudaStreamSynchronize(cuda_stream));
  cudaFree(flag);
  if (rc == 0 && host != 1) rc = fused_error("cuda_init: a test kernel did not run");
  return rc;
}

extern "C" int fused_cuda_init(void) {
  if (initialised) return 0;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fused_error("no usable CUDA device: cudaGetDeviceCount failed with %s (%s)%s",
                       cudaGetErrorName(err), cudaGetErrorString(err),
                       err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice
                           ? "; is an NVIDIA GPU with its driver present?"
                           : "");
  }
  if (count == 0) return fused_error("no usable CUDA device: cudaGetDeviceCount found none");
  cudaDeviceProp prop;
  FUSED_TRY(cuda_check("cuda_init: cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0)));
  /* The build holds sm_90 code and compute_90 PTX: older GPUs cannot run either. */
  if (prop.major < 9)
    return fused_error("no usable CUDA device: %s has compute capability %d.%d, and "
                       "libfused_cuda.so is built for 9.0 and newer (rebuild with NVCCFLAGS "
                       "naming its architecture)", prop.name, prop.major, prop.minor);
  FUSED_TRY(cuda_check("cuda_init: cudaSetDevice", cudaSetDevice(0)));
  FUSED_TRY(cuda_check("cuda_init: cudaStreamCreate",
                       cudaStreamCreateWithFlags(&cuda_stream, cudaStreamNonBlocking)));
  FUSED_TRY(cuda_check_blas("cuda_init: cublasCreate", cublasCreate(&cuda_blas)));
  FUSED_TRY(cuda_check_blas("cuda_init: cublasSetStream", cublasSetStream(cuda_blas, cuda_stream)));
  FUSED_TRY(fused_cuda_set_tf32(0));
  FUSED_TRY(probe());
  const char *sync = getenv("FUSED_CUDA_SYNC");
  sync_every_op = sync && *sync && strcmp(sync, "0") != 0;
  FUSED_TRY(fused_register_device(FUSED_CUDA, &cuda_device));
  snprintf(device_name, sizeof device_name, "%.200s (sm_%d%d, %.1f GiB)", prop.name, prop.major,
           prop.minor, (double)prop.totalGlobalMem / (1 << 30));
  initialised = 1;
  return 0;
}

extern "C" const char *fused_cuda_device_name(void) { return device_name; }

extern "C" int fused_cuda_synchronize(void) {
  if (!initialised) return fused_error("cuda.synchronize: no CUDA device is initialised");
  return cuda_check("cuda.synchronize", cudaStreamSynchronize(cuda_stream));
}

extern "C" int fused_cuda_set_tf32(int32_t enabled) {
  if (!cuda_blas) return fused_error("cuda.set_tf32: no CUDA device is initialised");
  /* The default math mode never lowers float32 to TF32. */
  return cuda_check_blas("cuda.set_tf32",
                         cublasSetMathMode(cuda_blas, enabled ? CUBLAS_TF32_TENSOR_OP_MATH
                                                              : CUBLAS_DEFAULT_MATH));
}

/* For extensions (c/fused_ext.h): their kernels and cuBLAS calls go where fused's do. */
extern "C" void *fused_cuda_stream(void) { return cuda_stream; }
extern "C" void *fused_cuda_blas(void) { return cuda_blas; }
