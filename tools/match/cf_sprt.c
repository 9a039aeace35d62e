/* cf_sprt.c: the pentanomial generalized SPRT (see cf_sprt.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/match/cf_sprt.h"

static double score_of_elo(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

/* The distribution q closest in likelihood to the empirical p (over the
 * outcomes a_i = i / 4) whose mean is s has the form
 * q_i = p_i / (1 + theta (a_i - s)), where theta is the root of
 * g(theta) = sum p_i (a_i - s) / (1 + theta (a_i - s)). g falls from +inf to
 * -inf over the theta that keep every q_i positive, so bisection finds it.
 * Returns theta. */
static double lagrange_theta(const double p[CF_SPRT_OUTCOMES], double s) {
  double lo = -1.0 / (1.0 - s), hi = 1.0 / s; /* 1 + theta (a - s) > 0 for a in [0, 1] */
  double span = hi - lo;
  lo += 1e-12 * span;
  hi -= 1e-12 * span;
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi), g = 0;
    for (int i = 0; i < CF_SPRT_OUTCOMES; i++) {
      double d = i / 4.0 - s;
      g += p[i] * d / (1.0 + mid * d);
    }
    if (g > 0) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

double cf_sprt_llr_of_counts(const double counts[CF_SPRT_OUTCOMES], double elo0, double elo1) {
  double c[CF_SPRT_OUTCOMES], n = 0;
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) {
    c[i] = counts[i] > 0 ? counts[i] : 1e-3;
    n += c[i];
  }
  double p[CF_SPRT_OUTCOMES];
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) p[i] = c[i] / n;
  double s0 = score_of_elo(elo0), s1 = score_of_elo(elo1);
  double t0 = lagrange_theta(p, s0), t1 = lagrange_theta(p, s1);
  /* log q1_i - log q0_i = log(1 + t0 (a_i - s0)) - log(1 + t1 (a_i - s1)) */
  double llr = 0;
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) {
    double a = i / 4.0;
    llr += p[i] * (log1p(t0 * (a - s0)) - log1p(t1 * (a - s1)));
  }
  return n * llr;
}

bool cf_sprt_parse(const char *text, cf_sprt *out, char *why, int why_size) {
  double v[4] = {0, 0, 0.05, 0.05};
  int n = 0;
  const char *at = text;
  char *end;
  while (n < 4) {
    v[n] = strtod(at, &end);
    if (end == at || !isfinite(v[n])) break;
    n++;
    if (*end != ',') break;
    at = end + 1;
  }
  if ((n != 2 && n != 4) || *end != 0) {
    snprintf(why, (size_t)why_size, "expected ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA, e.g. 0,10 or "
             "0,10,0.05,0.05");
    return false;
  }
  if (v[0] >= v[1]) {
    snprintf(why, (size_t)why_size, "elo0 (%g) must be below elo1 (%g)", v[0], v[1]);
    return false;
  }
  if (fabs(v[0]) > 1000 || fabs(v[1]) > 1000) {
    snprintf(why, (size_t)why_size, "elo0 and elo1 must lie within [-1000, 1000]");
    return false;
  }
  for (int i = 2; i < 4; i++)
    if (!(v[i] > 0 && v[i] < 0.5)) {
      snprintf(why, (size_t)why_size, "%s (%g) must lie strictly between 0 and 0.5",
               i == 2 ? "alpha" : "beta", v[i]);
      return false;
    }
  memset(out, 0, sizeof *out);
  out->elo0 = v[0];
  out->elo1 = v[1];
  out->alpha = v[2];
  out->beta = v[3];
  out->lower = log(out->beta / (1.0 - out->alpha));
  out->upper = log((1.0 - out->beta) / out->alpha);
  return true;
}

bool cf_sprt_begin(cf_sprt *s, int max_games) {
  s->n_pairs_max = (max_games + 1) / 2;
  s->first_half = malloc((size_t)(s->n_pairs_max > 0 ? s->n_pairs_max : 1));
  if (!s->first_half) return false;
  memset(s->first_half, -1, (size_t)(s->n_pairs_max > 0 ? s->n_pairs_max : 1));
  memset(s->pairs, 0, sizeof s->pairs);
  return true;
}

void cf_sprt_end(cf_sprt *s) {
  free(s->first_half);
  s->first_half = NULL;
}

bool cf_sprt_add_game(cf_sprt *s, int index, int half_points) {
  int k = index / 2;
  if (k < 0 || k >= s->n_pairs_max || half_points < 0 || half_points > 2) return false;
  if (s->first_half[k] < 0) {
    s->first_half[k] = (signed char)half_points;
    return false;
  }
  s->pairs[s->first_half[k] + half_points]++;
  return true;
}

double cf_sprt_llr(const cf_sprt *s) {
  long total = 0;
  double c[CF_SPRT_OUTCOMES];
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) {
    c[i] = (double)s->pairs[i];
    total += s->pairs[i];
  }
  return total ? cf_sprt_llr_of_counts(c, s->elo0, s->elo1) : 0.0;
}

cf_sprt_verdict cf_sprt_verdict_of(const cf_sprt *s) {
  double llr = cf_sprt_llr(s);
  if (llr >= s->upper) return CF_SPRT_H1;
  if (llr <= s->lower) return CF_SPRT_H0;
  return CF_SPRT_CONTINUE;
}
