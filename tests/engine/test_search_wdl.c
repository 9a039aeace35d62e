/* test_search_wdl.c: Lc0's WDL rescaling and contempt
 * (engine/search/cf_search_wdl.h): each formula against values computed
 * here independently (the model rewritten in other terms: atanh for the
 * draw-rate scale, 1 - tanh^2 for sech^2, log1p; and literal values worked
 * out by hand), the favoured side of each ContemptMode, and the search: a
 * network value is rescaled before it is backed up, from the favoured
 * side's view, and the reported view takes contempt out again. */
#include <math.h>
#include <string.h>

#include "chess/cf_game.h"
#include "engine/search/cf_fast_math.h"
#include "engine/search/cf_search.h"
#include "engine/search/cf_search_wdl.h"
#include "tests/cf_test.h"
#include "tests/engine/agent_test_net.h"

/* ---- the model, rewritten ---- */

static double scale_of(double rate) { return 1.0 / (2.0 * atanh(rate)); }
static double sech_sq(double x) { return 1.0 - tanh(x) * tanh(x); }
static double clip(double x, double m) { return x > m ? m : x < -m ? -m : x; }

static void by_draw_rate(double c, double target, double ref, double bias, double cmax, double att,
                         double *ratio, double *diff) {
  const double sr = scale_of(ref), st = target == 0 ? sr : scale_of(target < 0.001 ? 0.001 : target);
  *ratio = st / sr;
  *diff = st / (sr * sr) / (sech_sq(0.5 * (1 - bias) / st) + sech_sq(0.5 * (1 + bias) / st)) *
          log(10.0) / 200.0 * clip(c, cmax) * att;
}

static double pair_elo(double e) { return e + 125.0 * log1p(exp((2737.0 - e) / 250.0)); }
static double elo_s(double e) { return 1.0 / (1.0 / 15.0 + exp(e / 425.0 - 6.75)); }
static double elo_mu(double e) { return -(log(10.0) / 200.0) * 15.0 * 425.0 * log1p(exp(6.75 - e / 425.0) / 15.0); }

static void by_elo(double c, double ref, double elo, double cmax, double att, double *ratio, double *diff) {
  const double sr = scale_of(ref), a = pair_elo(elo), o = pair_elo(elo - clip(c, cmax));
  *ratio = sqrt((elo_s(a) * elo_s(a) + elo_s(o) * elo_s(o)) / 2.0) / sr;
  *diff = (elo_mu(a) - elo_mu(o)) / (sr * sr) * att;
}

/* Lc0's fast log and logistic (utils/fastmath.h), rewritten with frexp
 * and ldexp instead of its bit tricks: log2 of m 2^e (m in [1, 2)) is
 * e + (m - 1)(1.3465552 - 0.34655523 (m - 1)); 2^x is 2^floor(x) times
 * 1 + f (0.6602339 + 0.33976606 f), f the fraction. */
static double fast_log(double x) {
  int e;
  const double m = 2 * frexp(x, &e) - 1; /* frexp's mantissa is in [0.5, 1) */
  return 0.6931471805599453 * (m * (1.3465552 - 0.34655523 * m) + (e - 1));
}

static double sigmoid(double x) {
  if (x > 20) return 1;
  if (x < -20) return 0;
  const double y = -1.442695040 * x, f = y - floor(y);
  return 1.0 / (1.0 + ldexp(1.0 + f * (0.6602339 + 0.33976606 * f), (int)floor(y)));
}

/* The forward transform (the search's direction), for values well inside
 * (0, 1). */
static void forward(double wl, double d, double ratio, double diff, double sign, double max_s,
                    double *wl_out, double *d_out) {
  const double w = (1 + wl - d) / 2, l = (1 - wl - d) / 2;
  const double a = fast_log((1 - l) / l), b = fast_log((1 - w) / w);
  double s = 2 / (a + b);
  if (s > max_s) s = max_s;
  const double mu = (a - b) / (a + b) + sign * s * s * diff;
  const double w2 = sigmoid((mu - 1) / (s * ratio)), l2 = sigmoid((-mu - 1) / (s * ratio));
  *wl_out = w2 - l2;
  *d_out = 1 - w2 - l2;
}

/* The reporting direction's mu (the inverse transform: ratio and diff
 * undone, the scale cut by max_s after the change). */
static double inverse_mu(double wl, double d, double ratio, double diff, double sign, double max_s) {
  const double w = (1 + wl - d) / 2, l = (1 - wl - d) / 2;
  const double a = fast_log((1 - l) / l), b = fast_log((1 - w) / w);
  double s = 2 / (a + b) / ratio;
  if (s > max_s) s = max_s;
  return (a - b) / (a + b) - sign * s * s * diff;
}

static void test_draw_rate_model(cf_test *t) {
  /* Lc0's defaults: nothing changes. */
  cf_wdl_rescale r = cf_wdl_rescale_by_draw_rate(0, 0, 0.5f, 0.65f, 420, 1);
  CHECK_NEAR(r.ratio, 1, 0);
  CHECK_NEAR(r.diff, 0, 0);
  /* Worked by hand: scale(0.5) = 1/ln 3, scale(0.6) = 1/ln 4, ratio =
   * ln 3 / ln 4 = 0.79248125; diff (contempt 100, bias 0.65) = 0.78425703. */
  r = cf_wdl_rescale_by_draw_rate(100, 0.6f, 0.5f, 0.65f, 420, 1);
  CHECK_NEAR(r.ratio, 0.79248125, 1e-6);
  CHECK_NEAR(r.diff, 0.78425703, 1e-5);
  /* contempt above ContemptMaxValue is cut to it; attenuation scales */
  r = cf_wdl_rescale_by_draw_rate(1000, 0, 0.5f, 0.65f, 420, 0.5f);
  CHECK_NEAR(r.diff, 1.83634274, 1e-5);
  static const float cases[][6] = {
      /* contempt, target, reference, bias, max, attenuation */
      {50, 0.7f, 0.5f, 0.2f, 420, 1},   {-300, 0.85f, 0.6f, 0.65f, 420, 0.6f},
      {420, 0, 0.55f, 1.0f, 200, 1},     {-5000, 0.3f, 0.9f, -1.5f, 10000, -2},
      {10, 0.0005f, 0.5f, 0.65f, 420, 1}, /* a tiny target is lifted to 0.001 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const float *c = cases[i];
    double ratio, diff;
    by_draw_rate(c[0], c[1], c[2], c[3], c[4], c[5], &ratio, &diff);
    r = cf_wdl_rescale_by_draw_rate(c[0], c[1], c[2], c[3], c[4], c[5]);
    CHECK_NEAR(r.ratio, ratio, 1e-5 * fabs(ratio));
    CHECK_NEAR(r.diff, diff, 1e-5 * fabs(diff) + 1e-7);
  }
}

static void test_elo_model(cf_test *t) {
  /* Worked by hand (the model's game-pair Elo and scale at 3000 and 2800):
   * ratio 0.87922629, diff 1.79199037. */
  cf_wdl_rescale r = cf_wdl_rescale_by_elo(200, 0.5f, 3000, 420, 1);
  CHECK_NEAR(r.ratio, 0.87922629, 1e-5);
  CHECK_NEAR(r.diff, 1.79199037, 1e-4);
  /* no contempt: no shift, only the Elo's draw rate */
  r = cf_wdl_rescale_by_elo(0, 0.6f, 1500, 420, 1);
  CHECK_NEAR(r.diff, 0, 0);
  CHECK_NEAR(r.ratio, 5.82086595, 1e-4);
  static const float cases[][5] = {
      {450, 0.65f, 3300, 420, 1}, {-100, 0.5f, 2000, 420, 0.5f}, {1000, 0.3f, 3600, 10000, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const float *c = cases[i];
    double ratio, diff;
    by_elo(c[0], c[1], c[2], c[3], c[4], &ratio, &diff);
    r = cf_wdl_rescale_by_elo(c[0], c[1], c[2], c[3], c[4]);
    CHECK_NEAR(r.ratio, ratio, 1e-5 * fabs(ratio));
    CHECK_NEAR(r.diff, diff, 1e-4 * fabs(diff) + 1e-6);
  }
  /* cf_wdl_rescale_of picks the model by WDLCalibrationElo */
  cf_search_params p;
  cf_search_params_default(&p);
  p.contempt = 200;
  p.wdl_calibration_elo = 3000;
  r = cf_wdl_rescale_of(&p);
  CHECK_NEAR(r.ratio, 0.87922629, 1e-5);
  p.wdl_calibration_elo = 0;
  p.wdl_draw_rate_target = 0.6f;
  p.contempt = 100;
  r = cf_wdl_rescale_of(&p);
  CHECK_NEAR(r.ratio, 0.79248125, 1e-6);
}

static void test_fast_math(cf_test *t) {
  /* Worked by hand from Lc0's polynomials: log2(1.5) = 0.5 (1.3465552 -
   * 0.5 0.34655523) = 0.58663879 (exact: 0.58496250); powers of two are
   * exact; 2^0.5 = 1 + 0.5 (0.6602339 + 0.5 0.33976606) = 1.41505847;
   * 2^-1.5 a quarter of that. */
  CHECK_NEAR(cf_fast_log2(1.5f), 0.58663879, 1e-6);
  CHECK_NEAR(cf_fast_log2(8.0f), 3.0, 0);
  CHECK_NEAR(cf_fast_log2(0.75f), 0.58663879 - 1, 1e-6);
  CHECK_NEAR(cf_fast_exp2(0.5f), 1.41505847, 1e-6);
  CHECK_NEAR(cf_fast_exp2(-1.5f), 1.41505847 / 4, 1e-6);
  CHECK_NEAR(cf_fast_exp2(-2.0f), 0.25, 1e-7);
  CHECK_NEAR(cf_fast_exp2(-200.0f), 0, 0);
  CHECK_NEAR(cf_fast_logistic(25.0f), 1, 0);
  CHECK_NEAR(cf_fast_logistic(-25.0f), 0, 0);
  /* against the rewrite */
  for (float x = -19.5f; x < 20; x += 0.37f) {
    CHECK_NEAR(cf_fast_logistic(x), sigmoid(x), 1e-6);
    CHECK_NEAR(cf_fast_log(expf(x)), fast_log(exp(x)), 2e-6 * (1 + fabs(x)));
  }
}

static void test_transform(cf_test *t) {
  /* Worked by hand (exact logs; Lc0's fast ones are good to a few parts
   * in a thousand, hence the tolerance): mu 0.2, s 0.5 gives W 0.16798161, L 0.08317270; with
   * ratio 2 and diff 0.1 (sign +1), mu becomes 0.2 + 0.25 * 0.1 = 0.225 at
   * s 1: W - L = 0.08834076, D = 0.45754376. */
  float wl = (float)(0.16798161 - 0.08317270), d = (float)(1 - 0.16798161 - 0.08317270);
  double mu = cf_wdl_rescale_apply(&wl, &d, (cf_wdl_rescale){2, 0.1f}, 1, false, 1.4f);
  CHECK_NEAR(mu, 0.225, 5e-3);
  CHECK_NEAR(wl, 0.08834076, 5e-3);
  CHECK_NEAR(d, 0.45754376, 5e-3);
  /* Reporting undoes the shift with the scale it was made at (mu back to
   * 0.2); the scale stays the searched one, as in Lc0. */
  const float fwd_wl = wl, fwd_d = d;
  mu = cf_wdl_rescale_apply(&wl, &d, (cf_wdl_rescale){2, 0.1f}, 1, true, 1.4f);
  CHECK_NEAR(mu, 0.2, 0.02);
  CHECK_NEAR(mu, inverse_mu(fwd_wl, fwd_d, 2, 0.1, 1, 1.4), 2e-5);
  /* Identity at ratio 1, diff 0: the W/D/L come back, mu is the model's. */
  wl = 0.3f;
  d = 0.5f;
  mu = cf_wdl_rescale_apply(&wl, &d, (cf_wdl_rescale){1, 0}, 1, false, 1.4f);
  CHECK_NEAR(wl, 0.3, 5e-3);
  CHECK_NEAR(d, 0.5, 5e-3);
  CHECK_NEAR(mu, (log(1 / 0.1 - 1) - log(1 / 0.4 - 1)) / (log(1 / 0.1 - 1) + log(1 / 0.4 - 1)), 5e-3);
  /* Extreme W/D/L are left alone (mu 0). */
  wl = 0.9999f;
  d = 0.0f;
  CHECK_NEAR(cf_wdl_rescale_apply(&wl, &d, (cf_wdl_rescale){0.5f, 1}, 1, false, 1.4f), 0, 0);
  CHECK_NEAR(wl, 0.9999f, 0);
  /* Against the rewrite, both signs, with the scale cut by max_s. */
  static const float cases[][5] = {
      /* wl, d, ratio, diff, max_s */
      {0.1f, 0.6f, 0.8f, 0.78f, 1.4f}, {-0.4f, 0.3f, 1.2f, -0.5f, 1.4f},
      {0.0f, 0.1f, 1.0f, 0.3f, 0.7f}, /* broad: s cut to 0.7 */
      {0.6f, 0.35f, 0.5f, 2.0f, 10.0f},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int sign = -1; sign <= 1; sign += 2) {
      const float *c = cases[i];
      double want_wl, want_d;
      forward(c[0], c[1], c[2], c[3], sign, c[4], &want_wl, &want_d);
      wl = c[0];
      d = c[1];
      cf_wdl_rescale_apply(&wl, &d, (cf_wdl_rescale){c[2], c[3]}, (float)sign, false, c[4]);
      CHECK_NEAR(wl, want_wl, 2e-5);
      CHECK_NEAR(d, want_d, 2e-5);
    }
}

static void test_contempt_side(cf_test *t) {
  CHECK_INT_EQ(cf_wdl_contempt_side(CF_CONTEMPT_PLAY, false, false), CF_CONTEMPT_WHITE);
  CHECK_INT_EQ(cf_wdl_contempt_side(CF_CONTEMPT_PLAY, true, false), CF_CONTEMPT_BLACK);
  CHECK_INT_EQ(cf_wdl_contempt_side(CF_CONTEMPT_PLAY, true, true), CF_CONTEMPT_DISABLE);
  CHECK_INT_EQ(cf_wdl_contempt_side(CF_CONTEMPT_WHITE, true, true), CF_CONTEMPT_WHITE);
  CHECK_INT_EQ(cf_wdl_contempt_side(CF_CONTEMPT_BLACK, false, false), CF_CONTEMPT_BLACK);
  CHECK_INT_EQ(cf_wdl_contempt_side(CF_CONTEMPT_DISABLE, false, false), CF_CONTEMPT_DISABLE);
  cf_search_params p;
  cf_search_params_default(&p);
  CHECK(!cf_wdl_play_disabled(&p, true)); /* no contempt: nothing to warn of */
  p.contempt = 100;
  CHECK(cf_wdl_play_disabled(&p, true));
  CHECK(!cf_wdl_play_disabled(&p, false));
}

/* ---- in the search ---- */

/* The first root move's (wl, d) after a 2-visit search (the root, then
 * its most likely move) of fen with params p; false when it fails. */
static bool first_child(cf_test *t, cf_net *net, const cf_search_params *p, const char *fen,
                        bool go_infinite, cf_search_move_stats *out, cf_search **keep) {
  cf_search *s = NULL;
  cf_game g;
  if (!CHECK(cf_search_create(p, &s, NULL) == CF_OK)) return false;
  if (!CHECK(cf_game_init_fen(&g, fen, NULL) == CF_OK)) {
    cf_search_free(s);
    return false;
  }
  cf_search_limits lim = {.visits = 2, .go_infinite = go_infinite};
  cf_search_result r;
  bool ok = CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK);
  cf_search_move_stats stats[CF_MAX_MOVES];
  const int n = ok ? cf_search_root_stats(s, stats, CF_MAX_MOVES) : 0;
  ok = ok && CHECK(n > 0 && stats[0].n == 1);
  if (ok) *out = stats[0];
  cf_game_free(&g);
  if (keep && ok) *keep = s;
  else cf_search_free(s);
  return ok;
}

#define WHITE_FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
#define START_FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

static void test_search_rescales_leaves(cf_test *t) {
  cf_error err = {0};
  cf_net *net = agent_test_net(8, 7, &err);
  if (!CHECK(net != NULL)) return;
  cf_search_params plain;
  cf_search_params_default(&plain);
  plain.nn_cache_size = 1000;
  static const struct {
    const char *fen;
    int mode;
    bool infinite;
    float sign; /* of the child's value: +1 from the favoured side */
  } cases[] = {
      {START_FEN, CF_CONTEMPT_PLAY, false, 1},   /* white to move plays white */
      {WHITE_FEN, CF_CONTEMPT_PLAY, false, 1},   /* black to move plays black */
      {WHITE_FEN, CF_CONTEMPT_WHITE, false, -1}, /* the root's mover is black */
      {START_FEN, CF_CONTEMPT_BLACK, true, -1},
      {START_FEN, CF_CONTEMPT_PLAY, true, 0},    /* go infinite: nobody */
      {START_FEN, CF_CONTEMPT_DISABLE, false, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cf_search_move_stats raw, got;
    if (!first_child(t, net, &plain, cases[i].fen, cases[i].infinite, &raw, NULL)) break;
    cf_search_params p = plain;
    p.contempt = 150;
    p.wdl_draw_rate_target = 0.7f;
    p.contempt_mode = cases[i].mode;
    cf_search *s = NULL;
    if (!first_child(t, net, &p, cases[i].fen, cases[i].infinite, &got, &s)) break;
    CHECK(got.move == raw.move);
    /* V stays the network's own */
    CHECK_NEAR(got.v, raw.v, 0);
    const cf_wdl_rescale r = cf_wdl_rescale_of(&p);
    double want_wl, want_d;
    forward(raw.wl, raw.d, r.ratio, cases[i].sign != 0 ? r.diff : 0, cases[i].sign, p.wdl_max_s,
            &want_wl, &want_d);
    CHECK_NEAR(got.wl, want_wl, 1e-5);
    CHECK_NEAR(got.d, want_d, 1e-5);
    /* Reported with full objectivity: the shift is taken out again, the
     * scale kept (the raw mu, at the rescaled spread). */
    float wl = got.wl, d = got.d;
    const double mu = cf_search_reported_wdl(s, true, &wl, &d);
    const double w = (1 + raw.wl - raw.d) / 2, l = (1 - raw.wl - raw.d) / 2;
    const double a = log(1 / l - 1), b = log(1 / w - 1);
    /* Lc0's fast log and logistic make the round trip good to about 0.01 */
    CHECK_NEAR(mu, (a - b) / (a + b), 0.02);
    CHECK_NEAR(mu, inverse_mu(got.wl, got.d, r.ratio, cases[i].sign != 0 ? r.diff : 0,
                              cases[i].sign, p.wdl_max_s), 2e-5);
    /* Without contempt in effect and not asked for (not WDL_mu), the
     * report is the search's own. */
    wl = got.wl;
    d = got.d;
    cf_search_reported_wdl(s, false, &wl, &d);
    if (cases[i].sign == 0) CHECK_NEAR(wl, got.wl, 0);
    else CHECK(fabsf(wl - got.wl) > 1e-6f);
    cf_search_free(s);
  }
  cf_net_free(net);
}

CF_TEST_MAIN(test_draw_rate_model, test_elo_model, test_fast_math, test_transform, test_contempt_side,
             test_search_rescales_leaves)
