/* When a loop is worth OpenMP threads: below this many elements a pointwise loop finishes
 * in a few microseconds and waking threads costs more than it saves. */
#ifndef FUSED_PARALLEL_H
#define FUSED_PARALLEL_H

#define PARALLEL_MIN_ELEMENTS 32768

#endif
