/* One generator (xoshiro256**, seeded through splitmix64) for every device: numbers are made
 * on the host with integer arithmetic and a hand-written log, so a seed gives the same
 * numbers on every machine; a device tensor is filled through a host copy. This file is
 * compiled with -ffp-contract=off so that no FMA changes a rounding. */
#include <math.h>
#include <stdlib.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

static uint64_t state[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
                            0x2545f4914f6cdd1dull};

static int have_spare; /* normal_sample's second value */
static double spare;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fused_manual_seed(uint64_t seed) {
  for (int i = 0; i < 4; i++) state[i] = splitmix64(&seed);
  have_spare = 0;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(void) {
  const uint64_t result = rotl(state[1] * 5, 7) * 9, t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = rotl(state[3], 45);
  return result;
}

/* In [0, 1), 53 random bits. */
static double next_double(void) { return (double)(next_u64() >> 11) * 0x1.0p-53; }

/* log(x) for x > 0 from +, *, / and frexp alone: x = m 2^e with m in [sqrt(1/2), sqrt(2)),
 * log(m) = 2 atanh(s) with s = (m-1)/(m+1), |s| < 0.172, summed to 1e-17. */
static double portable_log(double x) {
  int e;
  double m = frexp(x, &e);
  if (m < 0.70710678118654752440) {
    m *= 2;
    e--;
  }
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double term = s, sum = 0;
  for (int k = 1; k < 40; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2 * sum + e * 6.93147180369123816490e-01 + e * 1.90821492927058770002e-10;
}

typedef double (*sampler)(double a, double b);

static double uniform_sample(double low, double high) { return low + (high - low) * next_double(); }

/* Marsaglia's polar method; the second value of each pair is kept for the next call. */

static double normal_sample(double mean, double std) {
  if (have_spare) {
    have_spare = 0;
    return mean + std * spare;
  }
  double u, v, s;
  do {
    u = 2 * next_double() - 1;
    v = 2 * next_double() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  const double factor = sqrt(-2 * portable_log(s) / s);
  spare = v * factor;
  have_spare = 1;
  return mean + std * u * factor;
}

/* Numbers are drawn in float64 on the host, then copied into t, which converts (rounding
 * once to float32) and moves them; a device copy keeps the dtype, so a device tensor of
 * another dtype goes through a host tensor of its own dtype. */
static int fill_random(const char *fn, fused_tensor *t, sampler draw, double a, double b) {
  FUSED_TRY(check_output(fn, "t", t));
  FUSED_TRY(check_floating(fn, "t", t));
  if (t->device_type != FUSED_CPU || t->scalar_type != FUSED_FLOAT64 ||
      !fused_tensor_is_contiguous(t)) {
    const int32_t host_dtype = t->device_type == FUSED_CPU ? FUSED_FLOAT64 : t->scalar_type;
    fused_tensor *host;
    FUSED_TRY(fused_tensor_new(&host, t->ndim, t->sizes, host_dtype, FUSED_CPU));
    int rc = fill_random(fn, host, draw, a, b);
    if (rc == 0) rc = fused_copy(t, host);
    fused_tensor_free(host);
    return rc;
  }
  double *x = (double *)t->data;
  const int64_t n = fused_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) x[i] = draw(a, b);
  return 0;
}

int fused_uniform(fused_tensor *t, double low, double high) {
  if (!(low <= high))
    return fused_error("uniform: argument 'high' expected >= low (%g), got %g", low, high);
  return fill_random("uniform", t, uniform_sample, low, high);
}

int fused_normal(fused_tensor *t, double mean, double std) {
  if (!(std >= 0)) return fused_error("normal: argument 'std' expected >= 0, got %g", std);
  return fill_random("normal", t, normal_sample, mean, std);
}
