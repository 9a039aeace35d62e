/* bench_units.c: see bench_units.h. */
#include "tools/bench/bench_units.h"

#include <math.h>
#include <stdio.h>

/* 3 significant digits of v, which is in [1, 1000) or zero. */
static void three_digits(double v, const char *suffix, char *out, size_t n) {
  const char *fmt = v >= 99.95 ? "%.0f%s" : v >= 9.995 ? "%.1f%s" : "%.2f%s";
  snprintf(out, n, fmt, v, suffix);
}

void bench_si(double v, char *out, size_t n) {
  static const char *const suffix[] = {"", "k", "M", "G", "T", "P"};
  if (!isfinite(v)) {
    snprintf(out, n, "-");
    return;
  }
  double a = fabs(v);
  int k = 0;
  while (a >= 999.5 && k < 5) {
    a /= 1000.0;
    k++;
  }
  if (k == 0 && a == floor(a)) {
    snprintf(out, n, "%.0f", v);
    return;
  }
  char body[32];
  three_digits(a, suffix[k], body, sizeof body);
  snprintf(out, n, "%s%s", v < 0 ? "-" : "", body);
}

void bench_duration(double s, char *out, size_t n) {
  if (!isfinite(s) || s < 0) {
    snprintf(out, n, "-");
  } else if (s < 1e-6) {
    three_digits(s * 1e9, " ns", out, n);
  } else if (s < 1e-3) {
    three_digits(s * 1e6, " us", out, n);
  } else if (s < 1.0) {
    three_digits(s * 1e3, " ms", out, n);
  } else {
    snprintf(out, n, s < 1000 ? "%.3g s" : "%.0f s", s);
  }
}
