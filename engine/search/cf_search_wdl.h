/* cf_search_wdl.h: Lc0's WDL rescaling and contempt (its "random walk"
 * model of a game's result).
 *
 * The model: a position's W/D/L are those of a logistic variable of mean mu
 * and scale s, W = sigmoid((mu - 1) / s), L = sigmoid((-1 - mu) / s). The
 * network's W/D/L fix mu and s. Rescaling multiplies s by `ratio` (a draw
 * rate target, or the two players' Elo, sharpens or softens the game) and
 * moves mu by sign * s^2 * diff (contempt: the Elo advantage of one side),
 * then reads W/D/L back off the model.
 *
 * Where it applies, as in Lc0:
 *   - every network value, fresh or from the NN cache, before it is backed
 *     up (not a terminal, proven or tablebase value, not the V a node
 *     shows: those stay the network's own); sign +1 where the value is from
 *     the side the contempt favours;
 *   - the scores reported (info, VerboseMoveStats): the inverse transform,
 *     with diff scaled by WDLEvalObjectivity, so that 1 reports an
 *     objective score and 0 the one searched with.
 * ContemptMode picks the favoured side: play = the side to move at the root
 * (none under go infinite), or a fixed colour, or nobody (diff is then 0;
 * the draw-rate ratio still applies). */
#ifndef CF_SEARCH_WDL_H
#define CF_SEARCH_WDL_H

#include <stdbool.h>

#include "engine/search/cf_search_params.h"

/* The model's change: s is multiplied by ratio, mu moved by s^2 * diff. */
typedef struct cf_wdl_rescale {
  float ratio, diff;
} cf_wdl_rescale;

/* Lc0's model from a target draw rate (WDLCalibrationElo 0): ratio from the
 * target against the reference draw rate (a target of 0 keeps the
 * reference: ratio 1), diff from contempt (cut to +-contempt_max) and the
 * book exit bias, times attenuation. */
cf_wdl_rescale cf_wdl_rescale_by_draw_rate(float contempt, float draw_rate_target,
                                           float draw_rate_reference, float book_exit_bias,
                                           float contempt_max, float attenuation);

/* Lc0's model from the engine's Elo (WDLCalibrationElo > 0): the draw rate
 * of both players' Elo (elo and elo - contempt, contempt cut to
 * +-contempt_max) sets ratio, the integral of the model's scale between the
 * two sets diff, times attenuation. */
cf_wdl_rescale cf_wdl_rescale_by_elo(float contempt, float draw_rate_reference, float elo,
                                     float contempt_max, float attenuation);

/* The rescale p's options ask for (by_elo when wdl_calibration_elo > 0). */
cf_wdl_rescale cf_wdl_rescale_of(const cf_search_params *p);

/* The transform of (*wl, *d) (W - L and D of one side): sign +1 moves mu
 * towards that side, -1 away. invert: the reporting direction (ratio and
 * diff undone, max_s cuts the scale after it). A W, D or L within 1e-4 of 0
 * or 1 is left as it is (Lc0's guard against extreme values). Returns the
 * new mu, 0 when nothing was changed. */
double cf_wdl_rescale_apply(float *wl, float *d, cf_wdl_rescale r, float sign, bool invert,
                            float max_s);

/* The colour the contempt favours in a search: CF_CONTEMPT_WHITE,
 * CF_CONTEMPT_BLACK or CF_CONTEMPT_DISABLE, from ContemptMode (its play
 * mode: the side to move at the root, disabled under go infinite). The
 * engine searches a ponder position with its own side to move, so play
 * needs no case for pondering. */
int cf_wdl_contempt_side(int contempt_mode, bool root_black, bool go_infinite);

/* Whether go infinite turns ContemptMode play off where it would have
 * worked (Lc0 warns then). */
bool cf_wdl_play_disabled(const cf_search_params *p, bool go_infinite);

struct cf_search;

/* The reported view of (*wl, *d), a value from the root's side to move
 * after the last run: Lc0's inverse rescale with WDLEvalObjectivity, when
 * `always` (the WDL_mu score type, VerboseMoveStats) or when contempt is in
 * effect. Returns the mu of the result (0: none). */
double cf_search_reported_wdl(const struct cf_search *s, bool always, float *wl, float *d);

#endif /* CF_SEARCH_WDL_H */
