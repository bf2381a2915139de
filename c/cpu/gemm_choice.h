/* Which library runs each CPU matrix product (fused_set_gemm in fused.h): OpenBLAS, oneDNN's
 * dnnl_sgemm or, for a product whose right operand many products share (the sequence engine's
 * per-step recurrent products, over w_hh), the engine's own packed kernel
 * (generic/packed_gemm.h), chosen per shape class by a measurement made once per machine and
 * kept on disk (gemm_wisdom.c); the engine's weight gradients (d_gatesᵀ·x, x packed once per
 * product) have the packed kernel as a candidate too. Every GEMM of the op layer and the
 * sequence engine goes through cpu_gemm_choose and cpu_sgemm/cpu_dgemm or the packed kernel. */
#ifndef FUSED_CPU_GEMM_CHOICE_H
#define FUSED_CPU_GEMM_CHOICE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
  CPU_GEMM_OPENBLAS,
  CPU_GEMM_ONEDNN,
  CPU_GEMM_PACKED,
  CPU_GEMM_PROVIDERS
} cpu_gemm_provider;

/* The packed kernel of one dtype (generic/packed_gemm.h, compiled per dtype and vector
 * capability), for the chooser to measure: the size in elements of a packed k×n B, its
 * packing from a row-major k×n b, and c (m×n, ldc) = op(a)·B (+ c with add) for a row-major
 * a (m×k, or k×m with ta). */
typedef struct {
  int64_t (*size)(int64_t k, int64_t n);
  void (*pack)(void *bp, const void *b, int64_t ldb, int64_t k, int64_t n);
  void (*run)(int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, bool ta,
              const void *bp, bool add, void *c, int64_t ldc);
} cpu_gemm_packed;

/* The provider for c (m×n) = op(a)·op(b) on `threads` threads, float64 or float32 (oneDNN has
 * no float64 GEMM). packed: NULL, or the packed kernel as a candidate for b row-major ("NN" or
 * "TN"), each provider then reading b in the layout it wants; such a class is apart from the
 * plain one (tb 'P' in its line) and may get CPU_GEMM_PACKED. Two uses, told apart by ta: an
 * "NP" class has a b shared by many products (the per-step recurrent products, w_hh packed once
 * per sequence: its packing is not timed), a "TP" class a b packed for each product (a weight
 * gradient d_gatesᵀ·x: timed with it). Under "auto", a shape class with two candidates not yet
 * measured on this machine is measured now (a few ms to a second, once), unless the call is
 * inside a parallel region or too small to be worth it: then OpenBLAS (the packed kernel for a
 * shared b), unrecorded. Under "packed", a product offered the packed kernel gets it. */
cpu_gemm_provider cpu_gemm_choose(bool float64, bool ta, bool tb, int64_t m, int64_t n,
                                  int64_t k, int threads, const cpu_gemm_packed *packed);
/* Counts a product the engine ran on its packed kernel, for fused_gemm_calls. */
void cpu_gemm_count_packed(void);

/* c = alpha·op(a)·op(b) + beta·c, row-major, on provider p (BLAS's int sizes: the ops check
 * that they fit). */
void cpu_sgemm(cpu_gemm_provider p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
               float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
               float *c, int64_t ldc);
void cpu_dgemm(cpu_gemm_provider p, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
               double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
               double beta, double *c, int64_t ldc);

/* A measured shape class: the dtype, the transposes, log2 of m, n and k, the thread count. */
typedef struct {
  bool float64;
  char ta, tb; /* 'N' or 'T'; tb 'P' where the packed kernel is a candidate */
  int32_t lm, ln, lk, threads;
  cpu_gemm_provider provider;
} cpu_gemm_class;

#define CPU_GEMM_MAX_CLASSES 512
#define CPU_GEMM_MAX_THREADS 1024

const char *cpu_gemm_provider_name(cpu_gemm_provider p);
/* Whether this build links oneDNN (built with oneapi/dnnl/dnnl.h). */
bool cpu_gemm_have_onednn(void);
/* Whether two classes are the same shape class (their providers aside). */
bool cpu_gemm_same_class(const cpu_gemm_class *x, const cpu_gemm_class *y);

/* The wisdom file (gemm_wisdom.c): its path, or why there is none, for fused_gemm_wisdom. */
typedef struct {
  char path[4096];
  char state[160]; /* "" when the file is usable, else why it is not ("refused: ...") */
} cpu_gemm_wisdom;

/* Reads the classes stored for this machine's fingerprint into classes (at most max); returns
 * how many, 0 where there is no usable file (w->state says why). Nothing read is trusted:
 * a file that is not exactly what cpu_gemm_wisdom_save writes is ignored whole. */
int cpu_gemm_wisdom_load(cpu_gemm_wisdom *w, const char *fingerprint, cpu_gemm_class *classes,
                         int max);
/* Writes them atomically (a 0600 temporary file renamed over the old), creating the 0700
 * folder where missing; 0, or -1 with w->state saying why. */
int cpu_gemm_wisdom_save(cpu_gemm_wisdom *w, const char *fingerprint,
                         const cpu_gemm_class *classes, int n);

#endif
