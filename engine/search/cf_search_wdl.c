/* cf_search_wdl.c: Lc0's WDL rescaling and contempt (cf_search_wdl.h), and
 * where the search applies them. The model's parameters are computed
 * exactly (Lc0 does too); the transform of each value uses Lc0's fast log
 * and logistic (cf_fast_math.h), as Lc0's does. */
#include "engine/search/cf_search_wdl.h"

#include <math.h>

#include "engine/search/cf_fast_math.h"
#include "engine/search/cf_search_internal.h"

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

static double sech2(double x) {
  const double c = cosh(x);
  return 1.0 / (c * c);
}

/* The model's scale s of equal positions whose draw rate is `rate`. */
static double scale_of_draw_rate(double rate) { return 1.0 / log((1.0 + rate) / (1.0 - rate)); }

cf_wdl_rescale cf_wdl_rescale_by_draw_rate(float contempt, float draw_rate_target,
                                           float draw_rate_reference, float book_exit_bias,
                                           float contempt_max, float attenuation) {
  double target = draw_rate_target;
  /* A tiny positive target would make the scale explode; Lc0 lifts it so. */
  if (target > 0 && target < 0.001) target = 0.001;
  const double ref = scale_of_draw_rate(draw_rate_reference);
  const double tgt = target == 0 ? ref : scale_of_draw_rate(target);
  /* mu's shift per Elo: the derivative of the expected score of a game
   * starting from the book exit bias, at the target scale (Elo is
   * ln(10)/400 per unit of logistic score, over a game pair). */
  const double per_elo = tgt / (ref * ref) /
                         (sech2(0.5 * (1 - book_exit_bias) / tgt) +
                          sech2(0.5 * (1 + book_exit_bias) / tgt)) *
                         log(10.0) / 200.0;
  const double elo = clampd(contempt, -contempt_max, contempt_max);
  return (cf_wdl_rescale){(float)(tgt / ref), (float)(per_elo * elo * attenuation)};
}

/* Lc0's Elo model, fitted to Stockfish's levels: the scale of a player of
 * game-pair Elo e is 1 / (1/15 + exp(e/425 - 6.75)). */
#define ELO_SCALE_ZERO 15.0
#define ELO_SLOPE 425.0
#define ELO_OFFSET 6.75

/* Regular Elo to the game-pair Elo of the model: equal at the top, with a
 * smooth bend (width 250) around 2737 below which regular Elo differences
 * count half. */
static double game_pair_elo(double elo) {
  return elo + 0.5 * 250.0 * log(1.0 + exp((2737.0 - elo) / 250.0));
}

static double elo_scale(double e) { return 1.0 / (1.0 / ELO_SCALE_ZERO + exp(e / ELO_SLOPE - ELO_OFFSET)); }

/* mu at game-pair Elo e: the integral of the scale over Elo (so that
 * d mu / d Elo = ln(10)/200 * scale). */
static double elo_mu(double e) {
  return -log(10.0) / 200.0 * ELO_SCALE_ZERO * ELO_SLOPE *
         log(1.0 + exp(-e / ELO_SLOPE + ELO_OFFSET) / ELO_SCALE_ZERO);
}

cf_wdl_rescale cf_wdl_rescale_by_elo(float contempt, float draw_rate_reference, float elo,
                                     float contempt_max, float attenuation) {
  const double ref = scale_of_draw_rate(draw_rate_reference);
  const double opp = game_pair_elo(elo - clampd(contempt, -contempt_max, contempt_max));
  const double own = game_pair_elo(elo);
  const double s_own = elo_scale(own), s_opp = elo_scale(opp);
  /* The game's scale: the root mean square of the two players'. */
  const double target = sqrt((s_own * s_own + s_opp * s_opp) / 2.0);
  const double diff = (elo_mu(own) - elo_mu(opp)) / (ref * ref) * attenuation;
  return (cf_wdl_rescale){(float)(target / ref), (float)diff};
}

cf_wdl_rescale cf_wdl_rescale_of(const cf_search_params *p) {
  if (p->wdl_calibration_elo == 0)
    return cf_wdl_rescale_by_draw_rate(p->contempt, p->wdl_draw_rate_target,
                                       p->wdl_draw_rate_reference, p->wdl_book_exit_bias,
                                       p->contempt_max, p->wdl_contempt_attenuation);
  return cf_wdl_rescale_by_elo(p->contempt, p->wdl_draw_rate_reference, p->wdl_calibration_elo,
                               p->contempt_max, p->wdl_contempt_attenuation);
}

double cf_wdl_rescale_apply(float *wl, float *d, cf_wdl_rescale r, float sign, bool invert,
                            float max_s) {
  /* In float with Lc0's fast log and logistic, as Lc0 computes it: the
   * approximations move a value by a few parts in a thousand, enough to
   * turn a close choice of the search. */
  float ratio = r.ratio, diff = r.diff;
  if (invert) {
    ratio = 1.0f / ratio;
    diff = -diff;
  }
  const float w = (1 + *wl - *d) / 2, l = (1 - *wl - *d) / 2, dd = *d;
  const float eps = 0.0001f;
  if (!(w > eps && dd > eps && l > eps && w < 1 - eps && dd < 1 - eps && l < 1 - eps)) return 0;
  const float a = cf_fast_log(1 / l - 1), b = cf_fast_log(1 / w - 1);
  float s = 2 / (a + b);
  /* A network's very broad W/D/L (s large) would make contempt erratic:
   * the scale is cut, before the change, or after it when reporting. */
  if (!invert && s > max_s) s = max_s;
  const float mu = (a - b) / (a + b);
  float s_new = s * ratio;
  if (invert) {
    const float t = s;
    s = s_new < max_s ? s_new : max_s;
    s_new = t;
  }
  const float mu_new = mu + sign * s * s * diff;
  const float w_new = cf_fast_logistic((-1.0f + mu_new) / s_new);
  const float l_new = cf_fast_logistic((-1.0f - mu_new) / s_new);
  *wl = w_new - l_new;
  const float d_new = 1.0f - w_new - l_new;
  *d = d_new > 0 ? d_new : 0;
  return mu_new;
}

int cf_wdl_contempt_side(int contempt_mode, bool root_black, bool go_infinite) {
  switch (contempt_mode) {
  case CF_CONTEMPT_PLAY:
    /* Analysis has no side of its own: Lc0 turns play off there. */
    if (go_infinite) return CF_CONTEMPT_DISABLE;
    return root_black ? CF_CONTEMPT_BLACK : CF_CONTEMPT_WHITE;
  case CF_CONTEMPT_WHITE:
  case CF_CONTEMPT_BLACK:
    return contempt_mode;
  default:
    return CF_CONTEMPT_DISABLE;
  }
}

bool cf_wdl_play_disabled(const cf_search_params *p, bool go_infinite) {
  return go_infinite && p->contempt_mode == CF_CONTEMPT_PLAY && cf_wdl_rescale_of(p).diff != 0;
}

/* ---- in the search ------------------------------------------------------ */

void cf_search_wdl_start(cf_search *s, bool go_infinite) {
  s->wdl = cf_wdl_rescale_of(&s->params);
  s->contempt_side = cf_wdl_contempt_side(s->params.contempt_mode, s->root_black, go_infinite);
  /* Nobody favoured: only the draw rate's change applies. */
  if (s->contempt_side == CF_CONTEMPT_DISABLE) s->wdl.diff = 0;
  s->wdl_on = s->wdl.ratio != 1.0f || s->wdl.diff != 0.0f;
}

/* +1 when a value from the side to move at the root is from the favoured
 * side. */
static float root_sign(const cf_search *s) {
  return (s->contempt_side == CF_CONTEMPT_BLACK) == s->root_black ? 1.0f : -1.0f;
}

void cf_search_wdl_leaf(const cf_search *s, int depth, float *wl, float *d) {
  if (!s->wdl_on) return;
  /* A node's value is from the side that moved into it: the root's side
   * to move at odd depths. */
  const float sign = depth % 2 == 1 ? root_sign(s) : -root_sign(s);
  cf_wdl_rescale_apply(wl, d, s->wdl, sign, false, s->params.wdl_max_s);
}

double cf_search_reported_wdl(const cf_search *s, bool always, float *wl, float *d) {
  if (!always && s->wdl.diff == 0.0f) return 0;
  const cf_wdl_rescale r = {s->wdl.ratio, s->wdl.diff * s->params.wdl_eval_objectivity};
  if (r.ratio == 1.0f && r.diff == 0.0f) {
    /* The identity: the values stay bit for bit; only mu is wanted. */
    float wl_copy = *wl, d_copy = *d;
    return cf_wdl_rescale_apply(&wl_copy, &d_copy, r, 1.0f, true, s->params.wdl_max_s);
  }
  return cf_wdl_rescale_apply(wl, d, r, root_sign(s), true, s->params.wdl_max_s);
}
