/* The MGU's steps on CUDA: mgu.c's very text, compiled as CUDA (nvcc, or the C++ compiler
 * against the CUDA emulator), where fused_ext.h reads FUSED_CELL_FORWARD/BACKWARD one element
 * a thread (c/fused_cell_cuda.h):
 *   fused.ext.cell{name = 'mgu', sources = {'mgu.c'}, cuda_sources = {'mgu.cu'}, ...} */
#include "mgu.c"
