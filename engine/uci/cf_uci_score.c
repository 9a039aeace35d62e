/* cf_uci_score.c: score and W/D/L text (cf_uci_score.h). */
#include "engine/uci/cf_uci_score.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Lc0's WDL model: W = sigmoid((mu - 1) / s), L = sigmoid((-1 - mu) / s).
 * Returns mu for (wl, d) (the model fitted exactly; on the info path Lc0
 * leaves W/D/L themselves unchanged); 0 when W, D or L is too extreme to
 * fit. */
static double wdl_mu(float wl, float d) {
  const double w = (1 + wl - d) / 2, l = (1 - wl - d) / 2, eps = 0.0001;
  if (!(w > eps && d > eps && l > eps && w < 1 - eps && d < 1 - eps && l < 1 - eps)) return 0;
  const double a = log(1 / l - 1), b = log(1 / w - 1);
  return (a - b) / (a + b);
}

static double centipawn(double x) { return 90 * tan(1.5637541897 * x); }

/* |x| < 1 keeps tan finite; Lc0's clamps by float rounding alike. */
static double clamp_unit(double x) { return x > 0.999999 ? 0.999999 : x < -0.999999 ? -0.999999 : x; }

void cf_uci_score_text(const char *score_type, float wl, float d, float q, int mate, char *out,
                       size_t size) {
  if (mate != 0) {
    snprintf(out, size, "mate %d", mate);
    return;
  }
  const char *t = score_type ? score_type : "WDL_mu";
  const double x = clamp_unit(wl), xq = clamp_unit(q);
  double cp;
  if (strcmp(t, "centipawn_with_drawscore") == 0) cp = centipawn(xq);
  else if (strcmp(t, "centipawn_2019") == 0) cp = 295 * x / (1 - 0.976953126 * pow(x, 14));
  else if (strcmp(t, "centipawn_2018") == 0) cp = 290.680623072 * tan(1.548090806 * x);
  else if (strcmp(t, "win_percentage") == 0) cp = x * 5000 + 5000;
  else if (strcmp(t, "Q") == 0) cp = xq * 10000;
  else if (strcmp(t, "W-L") == 0) cp = x * 10000;
  else if (strcmp(t, "WDL_mu") == 0) {
    const double mu = wdl_mu(wl, d);
    const double fallback = 45 * tan(1.56728071628 * x);
    cp = mu != 0 && fabs(wl) + d < 0.996 && (fabs(mu) < 1 || fabs(fallback) < fabs(100 * mu))
             ? 100 * mu
             : fallback;
  } else {
    cp = centipawn(x);
  }
  snprintf(out, size, "cp %ld", lround(cp));
}

void cf_uci_wdl_from_wl(float wl, float d, int out[3]) {
  int w = (int)lround(500.0 * (1.0 + wl - d)), l = (int)lround(500.0 * (1.0 - wl - d));
  if (w < 0) w = 0;
  if (l < 0) l = 0;
  int dd = 1000 - w - l;
  if (dd < 0) {
    w = w + dd / 2;
    w = w < 0 ? 0 : w > 1000 ? 1000 : w;
    l = 1000 - w;
    dd = 0;
  }
  out[0] = w;
  out[1] = dd;
  out[2] = l;
}
