#include <stdarg.h>
#include <stdio.h>

#include "../fused.h"
#include "error.h"

static _Thread_local char last_error[1024];

const char *fused_last_error(void) { return last_error; }

int fused_error(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, args);
  va_end(args);
  return -1;
}
