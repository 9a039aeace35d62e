/* cf_elo.c: logistic Elo from a score; interval from the score's standard
 * error. */
#include <math.h>

#include "tools/match/cf_elo.h"

double cf_elo_of_score(double s) {
  if (s <= 0) return -INFINITY;
  if (s >= 1) return INFINITY;
  return -400.0 * log10(1.0 / s - 1.0);
}

cf_elo cf_elo_from_wdl(int w, int d, int l) {
  cf_elo e = {0};
  double n = (double)(w + d + l);
  if (n <= 0) return e;
  double s = ((double)w + 0.5 * (double)d) / n;
  double var = ((double)w * (1 - s) * (1 - s) + (double)d * (0.5 - s) * (0.5 - s) +
                (double)l * s * s) / n;
  double se = sqrt(var / n);
  e.score = s;
  e.diff = cf_elo_of_score(s);
  e.lo = cf_elo_of_score(s - 1.959964 * se);
  e.hi = cf_elo_of_score(s + 1.959964 * se);
  /* Every game lost (or won): the normal approximation has no spread, so
   * bound the score instead with the exact binomial one: all n games lost
   * has probability (1 - p)^n, which falls under 5% once
   * p > 1 - 0.05^(1/n) (about 3/n, the "rule of three"). */
  double edge = 1.0 - pow(0.05, 1.0 / n);
  if (w == 0 && d == 0) e.hi = cf_elo_of_score(edge);
  if (l == 0 && d == 0) e.lo = cf_elo_of_score(1.0 - edge);
  /* Every game drawn: likewise the share of decisive games is below edge
   * at 95%, and the score lies within edge / 2 of one half whichever side
   * would have won them. */
  if (w == 0 && l == 0) {
    e.lo = cf_elo_of_score(0.5 - 0.5 * edge);
    e.hi = cf_elo_of_score(0.5 + 0.5 * edge);
  }
  return e;
}
