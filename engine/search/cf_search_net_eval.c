/* cf_search_net_eval.c: the network's own answer for a position as the
 * search's NN cache keeps it (cf_search_cached_eval, cf_search.h): what
 * Lc0's selfplay reads back from its cache for the orig_* fields and the
 * policy KL divergence of a training record. */
#include <math.h>

#include "engine/cf_net_input.h"
#include "engine/search/cf_search_internal.h"

bool cf_search_cached_eval(const cf_search *s, const cf_game *game, cf_search_net_eval *out) {
  if (!s->cache || s->key_format < 0) return false;
  cf_policy_move policy_moves[CF_MAX_MOVES];
  const int n = cf_engine_legal_policy_moves(cf_game_position(game), out->moves, policy_moves);
  /* The key as the search made it: from the last run's network's input. */
  cf_net_position np;
  cf_planes input;
  cf_engine_net_position(game, s->key_format, &np);
  cf_net_encode_planes(&np, s->key_fill, &input);
  const cf_nn_entry *e =
      cf_nn_cache_get(s->cache, cf_search_cache_key(game, s->params.cache_history_length, &input));
  if (!e || e->n_moves != n) return false;
  /* The cache keeps the view of the side that moved into the position, as
   * the tree's nodes do; the answer is the side to move's. */
  out->wl = -e->wl;
  out->d = e->d;
  out->m = e->m;
  out->n_moves = n;
  /* The priors without PolicyTemperature or noise: Lc0 undoes its softmax
   * temperature before the KL divergence. */
  float mx = -INFINITY;
  for (int i = 0; i < n; i++) mx = e->logits[i] > mx ? e->logits[i] : mx;
  double sum = 0;
  for (int i = 0; i < n; i++) sum += exp((double)e->logits[i] - mx);
  for (int i = 0; i < n; i++) out->p[i] = (float)(exp((double)e->logits[i] - mx) / sum);
  return true;
}
