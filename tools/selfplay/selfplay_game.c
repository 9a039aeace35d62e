/* selfplay_game.c: one selfplay game (selfplay_game.h). The order of each
 * move follows Lc0's selfplay: the rules' end, the length limit, the
 * search, resignation on the best move's value, then the record of the
 * position and the move drawn with the temperature. */
#include "tools/selfplay/selfplay_game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "engine/syzygy/cf_syzygy.h"

void sp_game_free(sp_game *g) {
  cf_game_free(&g->game);
  free(g->records);
  memset(g, 0, sizeof *g);
}

uint64_t sp_game_seed(uint64_t seed, long game) {
  /* one splitmix64 step from seed + game: neighbouring games get unrelated
   * streams */
  uint64_t state = seed ^ ((uint64_t)game * 0x9E3779B97F4A7C15ull);
  return cf_temperature_rng_next(&state);
}

static cf_status add_record(sp_game *g, cf_v6 **slot, cf_error *err) {
  if (g->n_records == g->cap_records) {
    const int cap = g->cap_records ? 2 * g->cap_records : 64;
    cf_v6 *grown = realloc(g->records, (size_t)cap * sizeof *grown);
    if (!grown) return cf_error_set(err, CF_ERR_NOMEM, "selfplay: out of memory for records");
    g->records = grown;
    g->cap_records = cap;
  }
  *slot = &g->records[g->n_records++];
  return CF_OK;
}

/* The move played: the best, or one drawn with the move's temperature. */
static cf_move choose(const cf_search *search, const sp_settings *s, const cf_game *game,
                      cf_move best, uint64_t *rng) {
  /* the schedule counts the game's plies as its start FEN numbers them,
   * as the UCI engine and Lc0 do */
  const cf_position *start = &game->plies[0].pos;
  const int fullmove = start->fullmove > 0 ? start->fullmove : 1;
  const int ply = 2 * (fullmove - 1) + (start->side == CF_BLACK) + game->count - 1;
  const float t = cf_temperature_at(&s->temp, ply);
  if (!(t > 0)) return best;
  cf_search_move_stats st[CF_MAX_MOVES];
  cf_temperature_move cand[CF_MAX_MOVES];
  const int n = cf_search_root_stats(search, st, CF_MAX_MOVES);
  for (int i = 0; i < n; i++) cand[i] = (cf_temperature_move){.n = st[i].n, .p = st[i].p, .q = st[i].q};
  const int pick = cf_temperature_pick(cand, n, t, s->temp.visit_offset, s->temp.value_cutoff,
                                       cf_temperature_toss(rng));
  return pick >= 0 ? st[pick].move : best;
}

/* Ends the game; its records get the result (sp_records_finish). A game
 * cut at the length limit has no result for training: Lc0 marks its
 * records undecided (scored as a draw) with the max-length flag. */
static void end(sp_game *g, cf_game_result result, const char *reason, bool adjudicated) {
  g->result = result;
  snprintf(g->reason, sizeof g->reason, "%s", reason);
  g->adjudicated = adjudicated;
  g->over = true;
  const bool cut = strcmp(reason, "max length") == 0;
  sp_records_finish(g->records, g->n_records, cut ? CF_RESULT_ONGOING : result, adjudicated);
}

/* The tables' verdict on the current position, when they give one: as the
 * search probes, only just after a capture or a pawn move (rule-50 count
 * zero) and with no castling rights, so a game is adjudicated where the
 * fifty-move rule cannot change the tables' answer. */
static bool tablebase_end(sp_game *g) {
  const cf_position *pos = cf_game_position(&g->game);
  cf_syzygy_wdl wdl;
  if (!cf_syzygy_probe_wdl(pos, &wdl)) return false;
  const bool white = pos->side == CF_WHITE;
  if (wdl == CF_SYZYGY_WIN)
    end(g, white ? CF_RESULT_WHITE_WINS : CF_RESULT_BLACK_WINS, "tablebase", true);
  else if (wdl == CF_SYZYGY_LOSS)
    end(g, white ? CF_RESULT_BLACK_WINS : CF_RESULT_WHITE_WINS, "tablebase", true);
  else
    end(g, CF_RESULT_DRAW, "tablebase", true); /* drawn, cursed or blessed: a draw in play */
  return true;
}

cf_status sp_begin(cf_search *search, const sp_settings *s, const cf_position *start,
                   const cf_move *opening, int n_opening, uint64_t seed, sp_game *g,
                   cf_error *err) {
  memset(g, 0, sizeof *g);
  CF_TRY(cf_game_init(&g->game, start, err));
  for (int i = 0; i < n_opening; i++) CF_TRY(cf_game_push_legal(&g->game, opening[i], err));
  g->opening_plies = n_opening;
  g->rng = seed;
  /* A game owes nothing to the games its search played before: with the
   * NN cache of an earlier game, other leaves would share its batches, and
   * a batch's arithmetic may differ in the last bit from another's. */
  cf_search_reset(search);
  cf_search_seed(search, cf_temperature_rng_next(&g->rng));
  /* ResignPlaythrough: this game's draw, made first so that it never
   * depends on how long the game runs. */
  g->may_resign = s->resign_percentage > 0 &&
                  cf_temperature_toss(&g->rng) * 100.0 >= s->resign_playthrough;
  return CF_OK;
}

bool sp_next(cf_search *search, const sp_settings *s, sp_game *g, cf_search_limits *lim) {
  if (g->over) return false;
  cf_game_reason why;
  const cf_game_result rules = cf_game_outcome(&g->game, &why);
  if (rules != CF_RESULT_ONGOING) {
    end(g, rules, cf_game_reason_name(why), false);
    return false;
  }
  if (g->game.count - 1 >= SP_MAX_PLY) {
    end(g, CF_RESULT_DRAW, "max length", true);
    return false;
  }
  if (s->syzygy && tablebase_end(g)) return false;
  long limit = s->visits;
  if (s->playouts > 0 && (limit == 0 || s->playouts < limit)) limit = s->playouts;
  *lim = (cf_search_limits){.visits = limit};
  cf_search_reset_tree(search);
  return true;
}

cf_status sp_after_search(cf_net *net, const cf_search *search, const sp_settings *s,
                          const cf_search_result *res, sp_game *g, cf_error *err) {
  g->playouts += res->info.playouts;
  const bool black = cf_game_position(&g->game)->side == CF_BLACK;
  /* Lc0 resigns on the best move's win chance, (Q + 1) / 2 */
  const int move_number = (g->game.count - 1) / 2 + 1;
  if (g->may_resign && move_number >= s->resign_earliest_move &&
      (res->info.wdl[0] - res->info.wdl[2] + 1) / 2 < s->resign_percentage / 100.0) {
    end(g, black ? CF_RESULT_WHITE_WINS : CF_RESULT_BLACK_WINS, "resignation", true);
    return CF_OK;
  }
  const cf_move played = choose(search, s, &g->game, res->info.best, &g->rng);
  if (s->training) {
    cf_v6 *r = NULL;
    CF_TRY(add_record(g, &r, err));
    sp_record_fill(r, search, res, &g->game, cf_net_get_info(net), played);
  }
  return cf_game_push_legal(&g->game, played, err);
}

cf_status sp_play(cf_net *net, cf_search *search, const sp_settings *s, const cf_position *start,
                  const cf_move *opening, int n_opening, uint64_t seed, const atomic_bool *stop,
                  sp_game *g, cf_error *err) {
  CF_TRY(sp_begin(search, s, start, opening, n_opening, seed, g, err));
  cf_search_limits lim;
  while (sp_next(search, s, g, &lim)) {
    if (stop && atomic_load(stop)) return CF_OK; /* result stays ongoing: not a finished game */
    lim.stop = stop;
    cf_search_result res;
    CF_TRY(cf_search_run(search, net, &g->game, &lim, NULL, NULL, &res, err));
    if (stop && atomic_load(stop)) return CF_OK;
    CF_TRY(sp_after_search(net, search, s, &res, g, err));
  }
  return CF_OK;
}
