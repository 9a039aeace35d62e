/* bench_signature.c: FNV-1a 64 (public domain constants; Fowler, Noll, Vo).
 * Integers enter as 8 little-endian bytes so the value is the same on every
 * host. */
#include "tools/bench/bench_signature.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

void bench_signature_init(bench_signature *s) { s->h = FNV_OFFSET; }

void bench_signature_bytes(bench_signature *s, const void *data, unsigned long n) {
  const unsigned char *p = data;
  for (unsigned long i = 0; i < n; i++) {
    s->h ^= p[i];
    s->h *= FNV_PRIME;
  }
}

void bench_signature_text(bench_signature *s, const char *text) {
  /* the terminating NUL too, so "ab","c" and "a","bc" differ */
  bench_signature_bytes(s, text, (unsigned long)strlen(text) + 1);
}

void bench_signature_int(bench_signature *s, int64_t v) {
  unsigned char b[8];
  uint64_t u = (uint64_t)v;
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(u >> (8 * i));
  bench_signature_bytes(s, b, sizeof b);
}

void bench_signature_quantised(bench_signature *s, double x) {
  if (isnan(x)) {
    bench_signature_int(s, INT64_MIN);
  } else if (isinf(x)) {
    bench_signature_int(s, x > 0 ? INT64_MAX : INT64_MIN + 1);
  } else {
    double r = nearbyint(x * BENCH_SIGNATURE_Q_STEPS);
    /* clamp: a huge logit must not be undefined behaviour in the cast */
    if (r > 9e18) r = 9e18;
    if (r < -9e18) r = -9e18;
    bench_signature_int(s, (int64_t)r);
  }
}

void bench_signature_hex(const bench_signature *s, char out[17]) {
  snprintf(out, 17, "%016" PRIx64, s->h);
}
