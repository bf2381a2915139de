/* The user LLTM's steps on CUDA: lltm.c's very text, compiled as CUDA (c/fused_cell_cuda.h
 * reads its FUSED_CELL_FORWARD/BACKWARD one element a thread; lltm_element_forward/backward
 * are c/maths/lltm.h's, which fused's own CUDA engine runs):
 *   fused.ext.cell{name = 'user_lltm', sources = {'lltm.c'}, cuda_sources = {'lltm.cu'}, ...} */
#include "lltm.c"
