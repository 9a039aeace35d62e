/* cf_uci_temperature.c: the move played under Lc0's Temperature options
 * (engine/cf_temperature.h): drawn from the search's root visits, or from
 * the policy agent's priors; the value agent plays its best move. */
#include <stdint.h>
#include <string.h>

#include "common/cf_clock.h"

#include "engine/cf_temperature.h"
#include "engine/uci/cf_uci_clock.h"
#include "engine/uci/cf_uci_temperature.h"

static bool allowed(const cf_uci *u, cf_move m) {
  if (u->go.n_searchmoves == 0) return true;
  for (int i = 0; i < u->go.n_searchmoves; i++)
    if (u->go.searchmoves[i] == m) return true;
  return false;
}

void cf_uci_apply_temperature(cf_uci *u, cf_agent_result *r) {
  const cf_temperature_params p = {
      .temperature = (float)u->opt[CF_OPT_TEMPERATURE].f,
      .decay_moves = (int)u->opt[CF_OPT_TEMP_DECAY_MOVES].i,
      .decay_delay_moves = (int)u->opt[CF_OPT_TEMP_DECAY_DELAY_MOVES].i,
      .cutoff_move = (int)u->opt[CF_OPT_TEMP_CUTOFF_MOVE].i,
      .endgame = (float)u->opt[CF_OPT_TEMP_ENDGAME].f,
      .value_cutoff = (float)u->opt[CF_OPT_TEMP_VALUE_CUTOFF].f,
      .visit_offset = (float)u->opt[CF_OPT_TEMP_VISIT_OFFSET].f,
  };
  float t = cf_temperature_at(&p, cf_uci_game_ply(u));
  /* A limited strength widens the choice at least to its level's temperature. */
  const float level_t = cf_uci_strength(u).temperature;
  if (level_t > t) t = level_t;
  if (!(t > 0) || r->best == CF_MOVE_NONE) return;
  const bool tree = cf_agent_has(u->agent, CF_AGENT_BUILDS_TREE);
  if (!tree && strcmp(u->agent->name, "policy") != 0) return;
  cf_temperature_move cand[CF_MAX_MOVES];
  cf_move move[CF_MAX_MOVES];
  cf_move reply[CF_MAX_MOVES];
  int n = 0;
  if (tree) {
    cf_search_move_stats stats[CF_MAX_MOVES];
    const int k = cf_search_root_stats(u->search, stats, CF_MAX_MOVES);
    for (int i = 0; i < k; i++) {
      if (!allowed(u, stats[i].move)) continue;
      cand[n] = (cf_temperature_move){.n = stats[i].n, .p = stats[i].p, .q = stats[i].q};
      move[n] = stats[i].move;
      cf_move pv[2];
      reply[n] = cf_search_pv(u->search, stats[i].move, pv, 2) == 2 ? pv[1] : CF_MOVE_NONE;
      n++;
    }
  } else {
    for (int i = 0; i < r->n_moves; i++) {
      cand[n] = (cf_temperature_move){.n = 0, .p = r->moves[i].p, .q = r->moves[i].q};
      move[n] = r->moves[i].move;
      reply[n] = r->moves[i].reply;
      n++;
    }
  }
  const int pick = cf_temperature_pick(cand, n, t, p.visit_offset, p.value_cutoff,
                                       cf_temperature_toss(&u->rng));
  if (pick < 0 || move[pick] == r->best) return;
  r->best = move[pick];
  r->ponder = reply[pick];
}

cf_strength_level cf_uci_strength(const cf_uci *u) {
  if (!u->opt[CF_OPT_UCI_LIMIT_STRENGTH].on) return (cf_strength_level){0, 0};
  return cf_strength_at((int)u->opt[CF_OPT_UCI_ELO].i);
}

void cf_uci_seed_rng(cf_uci *u) {
  const long seed = u->opt[CF_OPT_SEED].i;
  u->rng = seed ? (uint64_t)seed : (uint64_t)(cf_clock_now() * 1e9) ^ (uint64_t)(uintptr_t)u;
}

cf_status cf_uci_seed_changed(cf_uci *u, cf_error *err) {
  (void)err;
  cf_uci_seed_rng(u);
  return CF_OK;
}
