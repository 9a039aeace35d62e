/* backendbench_stats.c: see backendbench_stats.h. */
#include "tools/backendbench/backendbench_stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void backendbench_row_of(int size, double *seconds, int n, double first_seconds,
                         backendbench_row *out) {
  double total = 0, var = 0;
  for (int i = 0; i < n; i++) total += seconds[i];
  const double mean = total / n;
  for (int i = 0; i < n; i++) var += (seconds[i] - mean) * (seconds[i] - mean);
  /* the sample deviation, as Lc0; one interval has none to speak of */
  const double sdev = n > 1 ? sqrt(var / (n - 1)) : 0;
  qsort(seconds, (size_t)n, sizeof *seconds, cmp_double);
  const double median_s = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  *out = (backendbench_row){.size = size,
                            .mean_nps = size * n / total,
                            .mean_ms = mean * 1000,
                            .sdev_ms = sdev * 1000,
                            .cv = sdev / mean,
                            .max_nps = size / seconds[0],
                            .median_nps = size / median_s,
                            .min_nps = size / seconds[n - 1],
                            .first_ms = first_seconds * 1000};
}

void backendbench_row_print(const backendbench_row *r, FILE *out) {
  /* Lc0 prints mean ms with 4 significant digits, the rest fixed; one
   * caller thread, so "first max" and "first mean" are the same call */
  fprintf(out, "%4d,%9.0f,%8.4g,%7.4f,%7.4f,%8.0f,%8.0f,%8.0f,%10.4f,%11.4f\n", r->size,
          r->mean_nps, r->mean_ms, r->sdev_ms, r->cv, r->max_nps, r->median_nps, r->min_nps,
          r->first_ms, r->first_ms);
}

void backendbench_clippy_init(backendbench_clippy *c) {
  *c = (backendbench_clippy){.best = {1, 1, 1}};
}

/* Seconds per move of the three time controls, longest first. */
static const double clippy_seconds[3] = {180, 15, 1};

void backendbench_clippy_add(backendbench_clippy *c, const backendbench_row *r) {
  const double nps = r->mean_nps;
  /* Each shorter control moves only when the longer one did: a size too
   * large for long searches is too large for short ones. */
  for (int k = 0; k < 3; k++) {
    /* the search's speed in play grows a little faster than the backend's */
    const double ingame = pow((nps + c->best_nps[k]) / 2, 1.085);
    const double threshold = 0.16947 * exp(-4.1695e-6 * ingame * clippy_seconds[k]) + 0.02;
    const bool better = nps > c->best_nps[k] &&
                        threshold * (r->size - c->best[k]) * c->best_nps[k] <
                            (nps - c->best_nps[k]) * c->best[k];
    if (!better) break;
    c->best[k] = r->size;
    c->best_nps[k] = nps;
  }
}

void backendbench_clippy_print(const backendbench_clippy *c, FILE *out) {
  fprintf(out,
          "Recommended minibatch-size for this net:\n"
          "  1s/move   (Bullet):     %d\n"
          "  15s/move  (Rapid):      %d\n"
          "  3min/move (Tournament): %d\n",
          c->best[2], c->best[1], c->best[0]);
}
