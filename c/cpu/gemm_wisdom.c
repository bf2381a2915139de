/* The GEMM chooser's measurements on disk, as FFTW's wisdom: $XDG_CACHE_HOME/fused/gemm-wisdom
 * (else ~/.cache/fused/gemm-wisdom), 0600 in a 0700 folder. The first line names the machine
 * and libraries it was measured with (a fingerprint: another CPU, flags, library version or
 * packed kernel starts afresh); each other line one shape class and its provider:
 *
 *   fused-gemm-wisdom 2 3f2a9c0d11e4b7a5
 *   float32 NT 10 9 7 1 onednn
 *   float64 NP 3 9 7 1 packed
 *
 * A folder or file that another user owns or may write is refused (someone could plant
 * choices; they are only speed, but a planted file is still not ours to read), and a file that
 * is not exactly this format is ignored whole. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gemm_choice.h"

#define WISDOM_NAME "gemm-wisdom"
#define WISDOM_HEADER "fused-gemm-wisdom 2 "
/* Any version's first words: an older fused's file is stale, not foreign. */
#define WISDOM_MAGIC "fused-gemm-wisdom "
#define WISDOM_MAX_BYTES (64 * 1024)

static int refuse(cpu_gemm_wisdom *w, const char *why) {
  snprintf(w->state, sizeof w->state, "%s", why);
  return -1;
}

/* w->path's folder, from the environment; -1 with w->state where there is none. */
static int wisdom_folder(cpu_gemm_wisdom *w, char *dir, size_t size) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(dir, size, "%s/fused", xdg);
  else if (home && home[0] == '/') n = snprintf(dir, size, "%s/.cache/fused", home);
  else return refuse(w, "none: neither XDG_CACHE_HOME nor HOME is an absolute path");
  if (n < 0 || (size_t)n + sizeof "/" WISDOM_NAME > size) return refuse(w, "none: path too long");
  snprintf(w->path, sizeof w->path, "%s/" WISDOM_NAME, dir);
  return 0;
}

/* An open descriptor of the folder, checked: ours, a real folder, writable by us alone. */
static int open_folder(cpu_gemm_wisdom *w, const char *dir) {
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    snprintf(w->state, sizeof w->state, "%s: %s", errno == ENOENT ? "none yet" : "refused",
             errno == ENOENT ? "no folder" : strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
    close(fd);
    return refuse(w, "refused: its folder is not ours alone (another owner, or writable by "
                     "others)");
  }
  return fd;
}

/* A class as its line (without the newline). */
static int format_line(char *line, size_t size, const cpu_gemm_class *c) {
  return snprintf(line, size, "%s %c%c %d %d %d %d %s", c->float64 ? "float64" : "float32", c->ta,
                  c->tb, c->lm, c->ln, c->lk, c->threads, cpu_gemm_provider_name(c->provider));
}

/* One class line; 0 when it is exactly what format_line writes, with values in range. */
static int parse_line(const char *line, size_t len, cpu_gemm_class *c) {
  char dtype[8], name[16], again[80];
  int p = 0;
  if (len > 72 || sscanf(line, "%7[a-z0-9] %c%c %2d %2d %2d %4d %15[a-z]", dtype, &c->ta, &c->tb,
                         &c->lm, &c->ln, &c->lk, &c->threads, name) != 8)
    return -1;
  if (strcmp(dtype, "float32") && strcmp(dtype, "float64")) return -1;
  c->float64 = !strcmp(dtype, "float64");
  if ((c->ta != 'N' && c->ta != 'T') || (c->tb != 'N' && c->tb != 'T' && c->tb != 'P')) return -1;
  if (c->lm < 0 || c->lm > 62 || c->ln < 0 || c->ln > 62 || c->lk < 0 || c->lk > 62) return -1;
  if (c->threads < 1 || c->threads > CPU_GEMM_MAX_THREADS) return -1;
  while (p < CPU_GEMM_PROVIDERS && strcmp(name, cpu_gemm_provider_name(p))) p++;
  if (p == CPU_GEMM_PROVIDERS) return -1;
  c->provider = (cpu_gemm_provider)p;
  /* Only a shared b may be packed; oneDNN has no float64 GEMM, and a build without oneDNN
   * none at all (its products would run on OpenBLAS under oneDNN's name). */
  if ((p == CPU_GEMM_PACKED && c->tb != 'P') ||
      (p == CPU_GEMM_ONEDNN && (c->float64 || !cpu_gemm_have_onednn())))
    return -1;
  /* No other spacing, sign, leading zero or trailing text. */
  return format_line(again, sizeof again, c) == (int)len && !memcmp(again, line, len) ? 0 : -1;
}

static int parse(cpu_gemm_wisdom *w, char *text, size_t size, const char *fingerprint,
                 cpu_gemm_class *classes, int max) {
  if (size == 0 || text[size - 1] != '\n' || memchr(text, 0, size))
    return refuse(w, "ignored: not a wisdom file"), 0;
  char *line = text, *end = text + size;
  char *eol = memchr(line, '\n', (size_t)(end - line));
  *eol = 0;
  if (strncmp(line, WISDOM_MAGIC, sizeof WISDOM_MAGIC - 1))
    return refuse(w, "ignored: not a wisdom file"), 0;
  if (strncmp(line, WISDOM_HEADER, sizeof WISDOM_HEADER - 1))
    return refuse(w, "stale: written by another version of fused"), 0;
  if (strcmp(line + sizeof WISDOM_HEADER - 1, fingerprint))
    return refuse(w, "stale: measured on another CPU or with other libraries"), 0;
  int n = 0;
  for (line = eol + 1; line < end; line = eol + 1, n++) {
    eol = memchr(line, '\n', (size_t)(end - line));
    *eol = 0;
    if (n == max || parse_line(line, (size_t)(eol - line), &classes[n])) {
      snprintf(w->state, sizeof w->state, "ignored: line %d is not a shape class", n + 2);
      return 0;
    }
    /* A class twice, with two providers or one: not what a save writes. */
    for (int i = 0; i < n; i++)
      if (cpu_gemm_same_class(&classes[i], &classes[n])) {
        snprintf(w->state, sizeof w->state, "ignored: line %d repeats the class of line %d", n + 2,
                 i + 2);
        return 0;
      }
  }
  return n;
}

int cpu_gemm_wisdom_load(cpu_gemm_wisdom *w, const char *fingerprint, cpu_gemm_class *classes,
                         int max) {
  char dir[sizeof w->path];
  w->state[0] = 0;
  if (wisdom_folder(w, dir, sizeof dir)) return 0;
  const int dfd = open_folder(w, dir);
  if (dfd < 0) return 0;
  const int fd = openat(dfd, WISDOM_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  close(dfd);
  if (fd < 0) {
    snprintf(w->state, sizeof w->state, "%s: %s", errno == ENOENT ? "none yet" : "refused",
             errno == ENOENT ? "no file" : strerror(errno));
    return 0;
  }
  struct stat st;
  char *text = NULL;
  int n = 0;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
    refuse(w, "refused: the file is not ours alone (another owner, writable by others, or not "
              "a regular file)");
  else if (st.st_size > WISDOM_MAX_BYTES)
    refuse(w, "ignored: larger than any wisdom file");
  else if (!(text = malloc((size_t)st.st_size + 1)))
    refuse(w, "ignored: out of memory");
  else if (read(fd, text, (size_t)st.st_size) != st.st_size)
    refuse(w, "ignored: could not be read whole");
  else
    n = parse(w, text, (size_t)st.st_size, fingerprint, classes, max);
  free(text);
  close(fd);
  return n;
}

/* mkdir of path with mode 0700 unless it exists. */
static int make_folder(const char *path) {
  return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

int cpu_gemm_wisdom_save(cpu_gemm_wisdom *w, const char *fingerprint,
                         const cpu_gemm_class *classes, int n) {
  char dir[sizeof w->path], parent[sizeof w->path], tmp[sizeof w->path + 8];
  if (wisdom_folder(w, dir, sizeof dir)) return -1;
  snprintf(parent, sizeof parent, "%s", dir);
  *strrchr(parent, '/') = 0;
  if (make_folder(parent) || make_folder(dir)) return refuse(w, "not written: no folder");
  const int dfd = open_folder(w, dir);
  if (dfd < 0) return -1;
  close(dfd);
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", w->path);
  const int fd = mkstemp(tmp); /* 0600, a new file */
  if (fd < 0) return refuse(w, "not written: no temporary file");
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(tmp);
    return refuse(w, "not written: no temporary file");
  }
  fprintf(f, WISDOM_HEADER "%s\n", fingerprint);
  for (int i = 0; i < n; i++) {
    char line[96];
    format_line(line, sizeof line, &classes[i]);
    fprintf(f, "%s\n", line);
  }
  const int failed = fflush(f) || fsync(fileno(f));
  if (fclose(f) || failed || rename(tmp, w->path)) {
    unlink(tmp);
    return refuse(w, "not written: writing failed");
  }
  /* What was found at load stays said, unless it was only that there was nothing. */
  if (!strncmp(w->state, "none yet", 8)) w->state[0] = 0;
  return 0;
}
