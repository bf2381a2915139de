/* Writing a file whole or not at all, and reading one without blocking on what is not a file.
 *
 * A save writes a new file in the target's directory, syncs it, renames it over the target,
 * then syncs the directory, so that a crash or a power loss leaves the old file or the new one
 * at the path, never a mix. The new file is unnamed (O_TMPFILE) while it is written, so a
 * writer killed mid-save leaves nothing; it gets a name only for the rename. Where the
 * filesystem has no O_TMPFILE, it is a named temporary "NAME.fused-tmp-PID-RANDOM", and each
 * save removes those in its directory whose writer (PID) is dead. A symlink at the target is
 * followed: the file it points to is replaced, in that file's directory. An existing target
 * keeps its mode, and one the user may not write is refused. FIFOs, devices and directories
 * are refused at save and at load, and opening one never blocks. LuaJIT's io library cannot fsync, nor open without blocking, hence C. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "../fused.h"

#define TMP_MARK ".fused-tmp-"

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

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

/* The directory part of path ("." for none), malloc'ed. */
static char *directory_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

/* The file a chain of symlinks at path ends at, malloc'ed (path itself when it is no symlink).
 * The end need not exist: a dangling link names the file to create. */
static char *follow_links(const char *path) {
  char *at = strdup(path);
  for (int hops = 0; at; hops++) {
    struct stat st;
    if (lstat(at, &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    if (hops == 40) {
      free(at);
      errno = ELOOP;
      return NULL;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(at, target, sizeof target - 1);
    if (n < 0) {
      free(at);
      return NULL;
    }
    target[n] = '\0';
    char *next;
    if (target[0] == '/') {
      next = strdup(target);
    } else { /* relative to the link's own directory */
      char *dir = directory_of(at);
      next = dir && asprintf(&next, "%s/%s", dir, target) >= 0 ? next : NULL;
      free(dir);
    }
    free(at);
    at = next;
  }
  errno = ENOMEM;
  return NULL;
}

/* The writer's pid in a temporary's name "NAME.fused-tmp-PID-RANDOM" (16 hex digits), or 0
 * for a name that is not one. */
static long temporary_writer(const char *name) {
  const char *mark = NULL;
  for (const char *p = strstr(name, TMP_MARK); p; p = strstr(p + 1, TMP_MARK)) mark = p;
  if (!mark) return 0;
  char *end;
  long pid = strtol(mark + sizeof TMP_MARK - 1, &end, 10);
  if (pid <= 0 || *end != '-' || strlen(end + 1) != 16 || strspn(end + 1, "0123456789abcdef") != 16)
    return 0;
  return pid;
}

/* Removes the temporaries in dir whose writer is dead: what writers killed during a
 * named-temporary save left. Best effort: errors are ignored. A writer in another pid
 * namespace sharing dir would look dead; fused assumes none does. */
static void remove_dead_temporaries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    long pid = temporary_writer(e->d_name);
    if (pid <= 0 || pid == (long)getpid()) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
    char *p;
    if (asprintf(&p, "%s/%s", dir, e->d_name) < 0) break;
    unlink(p);
    free(p);
  }
  closedir(d);
}

/* A fresh name beside target: target + ".fused-tmp-PID-" + 16 random hex digits, from the
 * kernel's generator, not a seeded one, so that two writers never pick the same. */
static int temporary_name(char *tmp, size_t size, const char *target) {
  unsigned long long r;
  if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
  snprintf(tmp, size, "%s" TMP_MARK "%ld-%016llx", target, (long)getpid(), r);
  return 0;
}

/* Opens the file the save writes. Unnamed (O_TMPFILE in dir) where the filesystem has it and
 * /proc lets it be linked; else created exclusively under a temporary name (tmp). 0666 lets the
 * umask decide, as for any file the user writes. *named says which. */
static int create_temporary(char *tmp, size_t size, const char *dir, const char *target,
                            int *named) {
  *named = 0;
  if (access("/proc/self/fd", X_OK) == 0) {
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  }
  *named = 1;
  for (int attempt = 0; attempt < 16; attempt++) {
    if (temporary_name(tmp, size, target) != 0) return -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

/* Gives the unnamed file fd the name tmp, a fresh one beside target. */
static int link_temporary(int fd, char *tmp, size_t size, const char *target) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  for (int attempt = 0; attempt < 16; attempt++) {
    if (temporary_name(tmp, size, target) != 0) return -1;
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != EEXIST) return -1;
  }
  return -1;
}

/* fsync on dir, so that the rename itself is on disk. */
static int sync_directory(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  int saved = errno;
  close(fd);
  errno = saved;
  return rc;
}

/* Writes the chunks into a new file for target (its directory dir) and renames it over target.
 * Returns 0, or an errno with *renaming set when the rename failed (the data was written). */
static int replace(const char *dir, const char *target, const struct stat *old,
                   const char *const *chunks, const size_t *sizes, int32_t n, int *renaming) {
  size_t size = strlen(target) + sizeof TMP_MARK + 48;
  char *tmp = malloc(size);
  if (!tmp) return ENOMEM;
  int named, err = 0;
  int fd = create_temporary(tmp, size, dir, target, &named);
  if (fd < 0) {
    err = errno;
    free(tmp);
    return err;
  }
  for (int32_t i = 0; !err && i < n; i++)
    if (write_all(fd, chunks[i], sizes[i]) != 0) err = errno;
  /* The new file takes the old one's permissions (0600 stays 0600); umask would not apply. */
  if (!err && old && fchmod(fd, old->st_mode & 07777) != 0) err = errno;
  if (!err && fsync(fd) != 0) err = errno;
  if (!err && !named) {
    if (link_temporary(fd, tmp, size, target) == 0) named = 1;
    else err = errno;
  }
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, target) != 0) err = errno, *renaming = 1;
  if (err && named) unlink(tmp);
  free(tmp);
  return err;
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
  char *target = follow_links(path);
  if (!target)
    return fused_error("write_file_atomic: cannot write '%s': %s", path, strerror(errno));
  struct stat st;
  int exists = stat(target, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    int rc = fused_error("write_file_atomic: cannot write '%s': not a regular file (%s)", path,
                         file_kind(st.st_mode));
    free(target);
    return rc;
  }
  /* A file the user may not write (chmod a-w, to keep it) is not replaced, as open would
   * refuse it: the rename needs only the directory's permission. */
  if (exists && access(target, W_OK) != 0) {
    int rc = fused_error("write_file_atomic: cannot write '%s': %s", path, strerror(errno));
    free(target);
    return rc;
  }
  char *dir = directory_of(target);
  if (!dir) {
    free(target);
    return fused_error("write_file_atomic: out of memory");
  }
  remove_dead_temporaries(dir);
  int renaming = 0;
  int err = replace(dir, target, exists ? &st : NULL, chunks, sizes, n, &renaming);
  free(target);
  int synced = err ? 0 : sync_directory(dir);
  int sync_err = errno;
  free(dir);
  if (err)
    return fused_error("write_file_atomic: cannot %s '%s': %s", renaming ? "replace" : "write",
                       path, strerror(err));
  if (synced != 0)
    return fused_error("write_file_atomic: wrote '%s', but syncing its directory failed: %s",
                       path, strerror(sync_err));
  return 0;
}

int fused_file_open(const char *path, int32_t *fd, int64_t *size) {
  if (!path || !fd || !size)
    return fused_error("file_open: arguments 'path', 'fd' and 'size' expected pointers, got NULL");
  /* O_NONBLOCK: opening a FIFO with no writer returns at once, and fstat then refuses it. */
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f < 0) return fused_error("file_open: %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(f, &st) != 0) {
    int err = errno;
    close(f);
    return fused_error("file_open: %s: %s", path, strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(f);
    return fused_error("file_open: %s: not a regular file (%s)", path, file_kind(st.st_mode));
  }
  *fd = f;
  *size = (int64_t)st.st_size;
  return 0;
}

int fused_file_read(int32_t fd, int64_t offset, void *dst, int64_t n) {
  if (offset < 0 || n < 0 || (n > 0 && !dst))
    return fused_error("file_read: arguments 'offset' %lld and 'n' %lld expected >= 0 and 'dst' "
                       "a buffer", (long long)offset, (long long)n);
  char *p = dst;
  while (n > 0) {
    /* Linux reads at most about 2 GiB per call; the loop goes on from there. */
    ssize_t r = pread(fd, p, (size_t)n, (off_t)offset);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return fused_error("file_read: %s", strerror(errno));
    if (r == 0) return fused_error("file_read: the file ended %lld bytes early (changed while "
                                   "read?)", (long long)n);
    p += r;
    offset += r;
    n -= r;
  }
  return 0;
}

int fused_file_close(int32_t fd) {
  if (close(fd) != 0) return fused_error("file_close: %s", strerror(errno));
  return 0;
}
