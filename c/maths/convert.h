/* Conversions between dtypes that C leaves undefined are checked instead: a floating value
 * becomes an int64 only when it is an integer in int64's range (copy says where one is not). */
#ifndef FUSED_MATHS_CONVERT_H
#define FUSED_MATHS_CONVERT_H

#include <stdint.h>

#include "hd.h"

FUSED_HD bool fits_int64(double v) {
  return v >= -0x1p63 && v < 0x1p63 && v == (double)(int64_t)v; /* NaN fails the first test */
}

#endif
