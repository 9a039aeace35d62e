/* cf_uci_score.h: a search result as UCI shows it: `score cp N` under each
 * of Lc0's ScoreType choices, `score mate N`, and `wdl W D L` per mille,
 * with Lc0's formulas. wl = W - L and d = D are from the side to move; q
 * adds the draw score (Q = wl + DrawScore * d). */
#ifndef CF_UCI_SCORE_H
#define CF_UCI_SCORE_H

#include <stddef.h>

/* Writes "mate N" when mate != 0, else "cp N" for score_type:
 *   centipawn                 90 tan(1.5637541897 wl)
 *   centipawn_with_drawscore  90 tan(1.5637541897 q)
 *   centipawn_2019            295 wl / (1 - 0.976953126 wl^14)
 *   centipawn_2018            290.680623072 tan(1.548090806 wl)
 *   win_percentage            5000 wl + 5000
 *   Q                         10000 q
 *   W-L                       10000 wl
 *   WDL_mu (Lc0's default)    100 mu, mu the mean of the logistic model that
 *                             fits W/D/L, when that is meaningful; else
 *                             45 tan(1.56728071628 wl)
 * Unknown types fall back to centipawn. */
void cf_uci_score_text(const char *score_type, float wl, float d, float q, int mate, char *out,
                       size_t size);

/* W/D/L per mille from (wl, d), summing to 1000, as Lc0 rounds them. */
void cf_uci_wdl_from_wl(float wl, float d, int out[3]);

#endif /* CF_UCI_SCORE_H */
