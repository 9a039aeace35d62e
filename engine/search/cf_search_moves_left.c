/* cf_search_moves_left.c: Lc0's moves-left utility. With a network that
 * predicts the game's length (a moves-left head), selection adds to a
 * visited child's Q a small bonus for a move that shortens a win or
 * lengthens a loss, once the position is decided enough (its |Q| above
 * MovesLeftThreshold): so the engine converts instead of wandering, and
 * resists longest when lost. Unvisited children get no bonus (their length
 * is unknown), as in Lc0. */
#include <math.h>

#include "engine/search/cf_search_internal.h"

float cf_search_moves_left_utility(const cf_search_params *p, const cf_snode *parent,
                                   const cf_snode *child, float q) {
  if (!child || child->n == 0) return 0.0f;
  /* The parent's own |W - L|, as Lc0 reads it (draw score aside). */
  const float threshold = p->moves_left_threshold;
  if (!(fabs(parent->wl) > threshold)) return 0.0f;
  const float cap = p->moves_left_max_effect;
  float m = p->moves_left_slope * (child->m - parent->m);
  m = m < -cap ? -cap : m > cap ? cap : m;
  /* Fewer moves left is good when winning (q > 0), bad when losing. */
  m *= copysignf(1.0f, -q);
  /* How decided the position is, from 0 at the threshold to 1 at a
   * certain result, so the bonus comes in smoothly. */
  float x = fabsf(q);
  if (threshold > 0.0f && threshold < 1.0f) {
    x = x - threshold > 0.0f ? (x - threshold) / (1.0f - threshold) : 0.0f;
  }
  return m * (p->moves_left_constant_factor + p->moves_left_scaled_factor * x +
              p->moves_left_quadratic_factor * x * x);
}
