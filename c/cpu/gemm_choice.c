/* The GEMM chooser (gemm_choice.h): the setting (fused_set_gemm), the shape classes measured
 * so far, and the measurement itself.
 *
 * Why measure: neither library wins every shape on every CPU. On an AVX2 EPYC (Zen 2) oneDNN's
 * sgemm ran 2.07x OpenBLAS's at 1600×512×32 but 0.88x at 1024³; on the AVX-512 EPYC of
 * docs/performance.md it won the engine's shapes by 1.0x to 1.4x. A class is (op(a), op(b),
 * log2 of m, n and k, threads); its first product is timed on each candidate, alternately,
 * min of rounds, on scratch operands of its shape, and another than OpenBLAS is taken only
 * where it is CHOICE_MARGIN faster.
 *
 * The per-step recurrent products (rows × 4H × H and rows × H × 4H for rows = a thread's share
 * of the batch) have a third candidate, the engine's packed kernel. Measured here, AMD EPYC
 * Zen 4 (AVX-512), one thread, float32, GFLOP/s (packed / OpenBLAS / oneDNN): 8×512×128
 * 77 / 105 / 100, 16×512×128 81 / 67 / 104, 32×128×512 100 / 84 / 112, 8×2048×512
 * 73 / 34 / 96, 64×512×2048 85 / 73 / 110; on an AVX2 EPYC the packed kernel ran 35-39
 * where OpenBLAS gave 14-34 (generic/packed_gemm.h). */
#define _GNU_SOURCE
#include <cblas.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/error.h"
#include "../fused.h"
#include "gemm_choice.h"

#ifdef FUSED_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

/* Below this many multiply-adds a product is not measured (its time is mostly the call's):
 * OpenBLAS, as before the chooser. */
#define CHOICE_MIN_MACS (1 << 15)
#define CHOICE_MARGIN 0.97
#define CHOICE_ROUNDS 5
/* Each round runs about this many multiply-adds, so that a small product's round is not
 * one clock tick; scratch operands beyond CHOICE_MAX_ELEMENTS are measured at a shape halved
 * until they fit (still of the same class's thread count and transposes). */
#define CHOICE_ROUND_MACS (1 << 24)
#define CHOICE_MAX_ELEMENTS (1 << 24)

enum { SETTING_AUTO = CPU_GEMM_PROVIDERS };
static const char *const setting_names[] = {"openblas", "onednn", "packed", "auto"};
static int setting = SETTING_AUTO;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cpu_gemm_class classes[CPU_GEMM_MAX_CLASSES];
static int n_classes, loaded;
static cpu_gemm_wisdom wisdom;
static char fingerprint[17];

const char *cpu_gemm_provider_name(cpu_gemm_provider p) { return setting_names[p]; }

bool cpu_gemm_have_onednn(void) {
#ifdef FUSED_HAVE_DNNL
  return true;
#else
  return false;
#endif
}

int fused_set_gemm(const char *name) {
  for (int s = 0; s <= SETTING_AUTO; s++)
    if (name && !strcmp(name, setting_names[s])) {
      if (s == CPU_GEMM_ONEDNN && !cpu_gemm_have_onednn())
        return fused_error("set_gemm: this build has no oneDNN (built without "
                           "oneapi/dnnl/dnnl.h): 'onednn' cannot run");
      setting = s;
      return 0;
    }
  if (!name)
    return fused_error("set_gemm: argument 'name' expected openblas, onednn, packed or auto, "
                       "got NULL");
  return fused_error("set_gemm: argument 'name' expected openblas, onednn, packed or auto, got "
                     "'%s'", name);
}

const char *fused_gemm(void) { return setting_names[setting]; }

const char *fused_gemm_providers(void) {
#ifdef FUSED_HAVE_DNNL
  static char names[64];
  const dnnl_version_t *v = dnnl_version();
  snprintf(names, sizeof names, "openblas, onednn %d.%d.%d, packed", v->major, v->minor,
           v->patch);
  return names;
#else
  return "openblas, packed";
#endif
}

/* FNV-1a over the text. */
static uint64_t hash(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* The packed kernel's revision (generic/packed_gemm.h), raised where a change to it may move
 * a choice between it and the libraries: 2, its tiles of 8 rows on the avx512 path. */
#define PACKED_REVISION "packed 2"

/* What a measurement depends on: the CPU's model and flags, OpenBLAS's build and kernels
 * (OPENBLAS_CORETYPE changes them), oneDNN's version, and the packed kernel: its revision and
 * the vector path it runs on (FUSED_CPU_CAPABILITY changes it). */
static void make_fingerprint(void) {
  uint64_t h = 0xcbf29ce484222325ull;
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  int seen = 0;
  while (f && seen < 2 && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5)) h = hash(h, line), seen++;
  if (f) fclose(f);
  h = hash(hash(h, openblas_get_config()), openblas_get_corename());
  h = hash(hash(hash(h, fused_gemm_providers()), PACKED_REVISION), fused_cpu_capability());
  snprintf(fingerprint, sizeof fingerprint, "%016llx", (unsigned long long)h);
}

/* Under the lock: the stored classes, once. */
static void load_wisdom(void) {
  if (loaded) return;
  loaded = 1;
  make_fingerprint();
  n_classes = cpu_gemm_wisdom_load(&wisdom, fingerprint, classes, CPU_GEMM_MAX_CLASSES);
}

const char *fused_gemm_wisdom(void) {
  static char line[sizeof wisdom.path + sizeof wisdom.state + 64];
  pthread_mutex_lock(&lock);
  load_wisdom();
  if (!wisdom.path[0]) snprintf(line, sizeof line, "%s", wisdom.state);
  else if (!wisdom.state[0])
    snprintf(line, sizeof line, "%s (%d classes)", wisdom.path, n_classes);
  else snprintf(line, sizeof line, "%s (%d classes; %s)", wisdom.path, n_classes, wisdom.state);
  pthread_mutex_unlock(&lock);
  return line;
}

int64_t fused_gemm_choices(char *buf, int64_t size) {
  int64_t used = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < n_classes; i++) {
    const cpu_gemm_class *c = &classes[i];
    char one[128];
    const int len = snprintf(one, sizeof one, "%s%s %c%c ~%lldx%lldx%lld t%d: %s",
                             i ? "; " : "", c->float64 ? "float64" : "float32", c->ta, c->tb,
                             1ll << c->lm, 1ll << c->ln, 1ll << c->lk, c->threads,
                             cpu_gemm_provider_name(c->provider));
    if (buf && used + len < size) memcpy(buf + used, one, (size_t)len + 1);
    used += len;
  }
  pthread_mutex_unlock(&lock);
  if (buf && size > 0 && used >= size) buf[0] = 0;
  return used;
}

/* Products run by each provider since load (not the chooser's timings), for fused_gemm_calls. */
static int64_t calls[CPU_GEMM_PROVIDERS];

int64_t fused_gemm_calls(const char *provider) {
  for (int p = 0; p < CPU_GEMM_PROVIDERS; p++)
    if (provider && !strcmp(provider, setting_names[p]))
      return __atomic_load_n(&calls[p], __ATOMIC_RELAXED);
  if (!provider)
    return fused_error("gemm_calls: argument 'provider' expected openblas, onednn or packed, got "
                       "NULL");
  return fused_error("gemm_calls: argument 'provider' expected openblas, onednn or packed, got "
                     "'%s'", provider);
}

/* The product on p; returns the provider that ran it. oneDNN leaves C unwritten at k = 0
 * (BLAS writes beta·C) and refuses nothing else that BLAS takes; were it to, OpenBLAS computes
 * the same product. */
static cpu_gemm_provider sgemm_on(cpu_gemm_provider p, bool ta, bool tb, int64_t m, int64_t n,
                                  int64_t k, float alpha, const float *a, int64_t lda,
                                  const float *b, int64_t ldb, float beta, float *c,
                                  int64_t ldc) {
#ifdef FUSED_HAVE_DNNL
  if (p == CPU_GEMM_ONEDNN && k > 0 &&
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
          dnnl_success)
    return CPU_GEMM_ONEDNN;
#endif
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
  return CPU_GEMM_OPENBLAS;
}

void cpu_sgemm(cpu_gemm_provider p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
               float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
               float *c, int64_t ldc) {
  const cpu_gemm_provider ran = sgemm_on(p, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  __atomic_add_fetch(&calls[ran], 1, __ATOMIC_RELAXED);
}

void cpu_gemm_count_packed(void) {
  __atomic_add_fetch(&calls[CPU_GEMM_PACKED], 1, __ATOMIC_RELAXED);
}

void cpu_dgemm(cpu_gemm_provider p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
               double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
               double beta, double *c, int64_t ldc) {
  __atomic_add_fetch(&calls[CPU_GEMM_OPENBLAS], 1, __ATOMIC_RELAXED);
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

bool cpu_gemm_same_class(const cpu_gemm_class *x, const cpu_gemm_class *y) {
  return x->float64 == y->float64 && x->ta == y->ta && x->tb == y->tb && x->lm == y->lm &&
         x->ln == y->ln && x->lk == y->lk && x->threads == y->threads;
}

/* Under the lock, before a save: the classes another process stored since this one loaded,
 * added to ours (a class in both keeps ours), so that two processes measuring at once do not
 * each write away the other's. A file that is refused or ignored adds nothing. */
static void merge_stored(void) {
  static cpu_gemm_class stored[CPU_GEMM_MAX_CLASSES];
  cpu_gemm_wisdom now = wisdom;
  const int n = cpu_gemm_wisdom_load(&now, fingerprint, stored, CPU_GEMM_MAX_CLASSES);
  for (int i = 0; i < n && n_classes < CPU_GEMM_MAX_CLASSES; i++) {
    int j = 0;
    while (j < n_classes && !cpu_gemm_same_class(&classes[j], &stored[i])) j++;
    if (j == n_classes) classes[n_classes++] = stored[i];
  }
}

static int log2_of(int64_t x) { return x < 2 ? 0 : 63 - __builtin_clzll((unsigned long long)x); }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One product of the measurement on p, in the dtype; the packed kernel reads bp, packed from b
 * first where b is not shared (ta: a weight gradient's). */
static void run_on(cpu_gemm_provider p, bool float64, const cpu_gemm_packed *packed, bool ta,
                   bool tb, int64_t m, int64_t n, int64_t k, const void *a, const void *b,
                   void *bp, void *c) {
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  if (p == CPU_GEMM_PACKED && ta) packed->pack(bp, b, n, k, n);
  if (p == CPU_GEMM_PACKED) packed->run(m, n, k, a, lda, ta, bp, false, c, n);
  else if (float64) cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                                tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1, a,
                                (int)lda, b, (int)ldb, 0, c, (int)n);
  else sgemm_on(p, ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c, n);
}

/* The fastest of the candidates (OpenBLAS; oneDNN in float32; the packed kernel where
 * offered, on its own packing of b, timed with each product where b is not shared) at this
 * shape, alternating CHOICE_ROUNDS rounds (min of each) on scratch operands; OpenBLAS where
 * the scratch cannot be had. b is row-major (the engine lays a shared b out so once per
 * sequence). */
static cpu_gemm_provider measure(bool float64, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                                 const cpu_gemm_packed *packed) {
  while ((double)m * k + (double)k * n * (packed ? 2 : 1) + (double)m * n > CHOICE_MAX_ELEMENTS) {
    if (m >= n && m >= k) m /= 2;
    else if (n >= k) n /= 2;
    else k /= 2;
  }
  const int64_t packed_size = packed ? packed->size(k, n) : 0;
  const int64_t count = m * k + k * n + m * n + packed_size;
  void *mem = malloc((size_t)count * (float64 ? sizeof(double) : sizeof(float)));
  if (!mem) return CPU_GEMM_OPENBLAS;
  for (int64_t i = 0; i < count; i++) {
    const double v = (double)(i % 17) * 0.0625 - 0.5;
    if (float64) ((double *)mem)[i] = v;
    else ((float *)mem)[i] = (float)v;
  }
  const size_t size = float64 ? sizeof(double) : sizeof(float);
  const char *a = mem, *b = a + m * k * size;
  char *bp = (char *)b + k * n * size, *c = bp + packed_size * size;
  if (packed) packed->pack(bp, b, n, k, n);
  const bool candidate[CPU_GEMM_PROVIDERS] = {
      [CPU_GEMM_OPENBLAS] = true,
      [CPU_GEMM_ONEDNN] = !float64 && cpu_gemm_have_onednn(),
      [CPU_GEMM_PACKED] = packed != NULL};
  const int64_t macs = m * n * k, reps = macs >= CHOICE_ROUND_MACS ? 1 : CHOICE_ROUND_MACS / macs;
  double best[CPU_GEMM_PROVIDERS];
  for (int p = 0; p < CPU_GEMM_PROVIDERS; p++) {
    if (candidate[p]) run_on((cpu_gemm_provider)p, float64, packed, ta, tb, m, n, k, a, b, bp, c);
    best[p] = 1e300;
  }
  for (int r = 0; r < CHOICE_ROUNDS; r++)
    for (int p = 0; p < CPU_GEMM_PROVIDERS; p++) {
      if (!candidate[p]) continue;
      const double t0 = now();
      for (int64_t i = 0; i < reps; i++)
        run_on((cpu_gemm_provider)p, float64, packed, ta, tb, m, n, k, a, b, bp, c);
      const double t = now() - t0;
      if (t < best[p]) best[p] = t;
    }
  free(mem);
  cpu_gemm_provider fastest = CPU_GEMM_OPENBLAS;
  for (int p = 1; p < CPU_GEMM_PROVIDERS; p++)
    if (candidate[p] && best[p] < CHOICE_MARGIN * best[fastest]) fastest = (cpu_gemm_provider)p;
  return fastest;
}

cpu_gemm_provider cpu_gemm_choose(bool float64, bool ta, bool tb, int64_t m, int64_t n,
                                  int64_t k, int threads, const cpu_gemm_packed *packed) {
  /* A setting a product cannot run on (oneDNN in float64, the packed kernel for a b used
   * once) gives it OpenBLAS. */
  if (setting == CPU_GEMM_ONEDNN && !float64) return CPU_GEMM_ONEDNN;
  if (setting == CPU_GEMM_PACKED && packed) return CPU_GEMM_PACKED;
  if (setting != SETTING_AUTO || (float64 && !packed)) return CPU_GEMM_OPENBLAS;
  if (!packed && !cpu_gemm_have_onednn()) return CPU_GEMM_OPENBLAS;
  const cpu_gemm_provider unmeasured = packed && !ta ? CPU_GEMM_PACKED : CPU_GEMM_OPENBLAS;
  if ((double)m * n * k < CHOICE_MIN_MACS) return unmeasured;
  const cpu_gemm_class key = {float64, ta ? 'T' : 'N', packed ? 'P' : tb ? 'T' : 'N',
                              log2_of(m), log2_of(n), log2_of(k), threads < 1 ? 1 : threads,
                              CPU_GEMM_OPENBLAS};
  cpu_gemm_provider p = unmeasured;
  pthread_mutex_lock(&lock);
  load_wisdom();
  int i = 0;
  for (; i < n_classes; i++)
    if (cpu_gemm_same_class(&classes[i], &key)) break;
  if (i < n_classes) {
    p = classes[i].provider;
  } else if (!omp_in_parallel() && n_classes < CPU_GEMM_MAX_CLASSES &&
             key.threads <= CPU_GEMM_MAX_THREADS) {
    /* Measured on the threads the call will have: a call on one thread outside a region
     * (rnn_gemm's blocks) is measured on one. */
    const int before = omp_get_max_threads();
    omp_set_num_threads(key.threads);
    openblas_set_num_threads(key.threads);
    p = measure(float64, ta, tb && !packed, m, n, k, packed);
    omp_set_num_threads(before);
    openblas_set_num_threads(before);
    classes[n_classes] = key;
    classes[n_classes++].provider = p;
    merge_stored();
    cpu_gemm_wisdom_save(&wisdom, fingerprint, classes, n_classes);
  }
  pthread_mutex_unlock(&lock);
  return p;
}
