/* Errors are a status plus a thread-local message; nothing longjmps or exits. */
#ifndef FUSED_ERROR_H
#define FUSED_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Formats the message for fused_last_error() and returns -1, so: return fused_error(...). */
int fused_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define FUSED_TRY(expr)            \
  do {                             \
    if ((expr) != 0) return -1;    \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
