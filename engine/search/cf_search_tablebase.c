/* cf_search_tablebase.c: the Syzygy tables in the search, as Lc0 uses them.
 *
 * At the root (no searchmoves given, the root in the tables): only the
 * moves that keep the best result are searched, ranked by DTZ so that a won
 * position is converted within the fifty-move rule (WDL when DTZ tables
 * are missing). Lc0 then stops probing inside the tree, since DTZ has
 * already decided what matters.
 *
 * In the tree (when the root was not DTZ-ranked): a new node whose position
 * has at most the tables' piece count, no castling rights and a zero
 * rule-50 count is scored from WDL without the network, proven and exact:
 * cursed wins and blessed losses count as draws. Its moves-left estimate is
 * its parent's less one, and its proof carries CF_TB_PROOF_PLIES so that
 * the score reads as Lc0's tablebase mates (101 and up).
 *
 * SyzygyFastPlay ranks the root's wins by DTZ alone (as after a
 * repetition), so the shortest conversion is played. The root's own result
 * is kept (tb_root_result) for the score it reports (cf_search_report.c). */
#include "engine/search/cf_search_internal.h"
#include "engine/syzygy/cf_syzygy.h"

/* Whether the root position occurred before since the last capture or pawn
 * move: then no win is ranked as certain (Lc0's has_repeated). */
static bool repeated_since_zeroing(const cf_game *game) {
  const cf_position *pos = cf_game_position(game);
  for (int k = game->count - 1; k >= 0 && k >= game->count - 1 - pos->rule50; k--)
    if (game->plies[k].repetitions > 0) return true;
  return false;
}

void cf_search_tb_root(cf_search *s, const cf_game *game, cf_search_limits *lim) {
  s->tb_hits = 0;
  s->tb_root_known = false;
  s->tb_in_tree = cf_syzygy_max_pieces() > 0;
  if (!s->tb_in_tree || (lim->allowed && lim->n_allowed > 0)) return; /* searchmoves rule */
  const int fast = s->params.syzygy_fast_play || repeated_since_zeroing(game);
  cf_syzygy_wdl result = CF_SYZYGY_DRAW;
  cf_syzygy_root how =
      cf_syzygy_root_probe(cf_game_position(game), fast, &s->tb_root_moves, &result);
  if (how == CF_SYZYGY_ROOT_NONE || s->tb_root_moves.count == 0) return;
  s->tb_hits++;
  /* The fifty-move rule's wins and losses are draws, as in the tree. */
  s->tb_root_known = true;
  s->tb_root_result = result == CF_SYZYGY_WIN ? 1 : result == CF_SYZYGY_LOSS ? -1 : 0;
  s->tb_in_tree = how != CF_SYZYGY_ROOT_DTZ;
  lim->allowed = s->tb_root_moves.moves;
  lim->n_allowed = s->tb_root_moves.count;
}

bool cf_search_tb_classify(cf_search *s, cf_snode *x) {
  cf_syzygy_wdl wdl;
  if (!s->tb_in_tree || !cf_syzygy_probe_wdl(cf_game_position(s->game), &wdl)) return false;
  s->tb_hits++;
  /* x's values are from the side that moved into it: the other side's. */
  x->proven = wdl == CF_SYZYGY_WIN ? -1 : wdl == CF_SYZYGY_LOSS ? 1 : 0;
  x->flags |= CF_NODE_TERMINAL | CF_NODE_TABLEBASE;
  float parent_m = x->parent ? x->parent->m - 1.0f : 0.0f;
  int moves_left = parent_m > 0 ? (int)(parent_m + 0.5f) : 0;
  x->proven_plies = (int16_t)(x->proven != 0 ? CF_TB_PROOF_PLIES + moves_left : moves_left);
  x->v = (float)x->proven;
  return true;
}
