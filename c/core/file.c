/* Writing a file whole or not at all: into a new temporary file beside it, synced, renamed over
 * it, then the directory synced, so that a crash or a power loss leaves the old file or the
 * new one at the path, never a mix. LuaJIT's io library cannot fsync, hence C. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "error.h"
#include "../fused.h"

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Creates tmp (path + ".tmp" + 16 random hex digits, from the kernel's generator, not a seeded
 * one) with O_EXCL: two writers, in one process or two, never share it. mkstemp would make the
 * file 0600; 0666 lets the umask decide, as for any file the user writes. */
static int create_temporary(char *tmp, size_t size, const char *path) {
  for (int attempt = 0; attempt < 16; attempt++) {
    unsigned long long r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
    snprintf(tmp, size, "%s.tmp%016llx", path, r);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

/* fsync on the directory that holds path, so that the rename itself is on disk. */
static int sync_directory(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!dir) return -1;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  int saved = errno;
  close(fd);
  errno = saved;
  return rc;
}

int fused_write_file_atomic(const char *path, const char *const *chunks, const size_t *sizes,
                            int32_t n) {
  if (!path || !*path)
    return fused_error("write_file_atomic: argument 'path' expected a file name, got %s",
                       path ? "an empty string" : "NULL");
  if (n < 0) return fused_error("write_file_atomic: argument 'n' expected >= 0, got %d", (int)n);
  if (n > 0 && (!chunks || !sizes))
    return fused_error("write_file_atomic: arguments 'chunks' and 'sizes' expected arrays of %d "
                       "entries, got NULL", (int)n);
  size_t size = strlen(path) + sizeof ".tmp" + 16;
  char *tmp = malloc(size);
  if (!tmp) return fused_error("write_file_atomic: out of memory");
  int fd = create_temporary(tmp, size, path);
  if (fd < 0) {
    int rc = fused_error("write_file_atomic: cannot write '%s': %s", path, strerror(errno));
    free(tmp);
    return rc;
  }
  /* The first failure's errno, and whether it came from the rename (the data was written). */
  int err = 0, renaming = 0;
  for (int32_t i = 0; !err && i < n; i++)
    if (write_all(fd, chunks[i], sizes[i]) != 0) err = errno;
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno, renaming = 1;
  if (err) {
    unlink(tmp);
    free(tmp);
    return fused_error("write_file_atomic: cannot %s '%s': %s", renaming ? "replace" : "write",
                       path, strerror(err));
  }
  free(tmp);
  if (sync_directory(path) != 0)
    return fused_error("write_file_atomic: wrote '%s', but syncing its directory failed: %s",
                       path, strerror(errno));
  return 0;
}
