/* cf_time_manager.c: Lc0's legacy time manager (cf_time_manager.h). */
#include "engine/search/cf_time_manager.h"

#include <math.h>

#define MIDPOINT_MOVE 51.5
#define STEEPNESS 7.0
#define IMMEDIATE_USE 1.0
#define FIRST_MOVE_BONUS 1.8
#define BOOK_PLY_BONUS 0.25
#define BOOK_PLY_CAP 12

/* Lc0's: slowmover stretches a budget only where smart pruning may cut it. */
#define SMART_PRUNING_TOLERANCE_MS 200

void cf_time_manager_params_default(cf_time_manager_params *p) {
  *p = (cf_time_manager_params){.slowmover = 1,
                                .midpoint_move = MIDPOINT_MOVE,
                                .steepness = STEEPNESS,
                                .immediate_use = IMMEDIATE_USE,
                                .first_move_bonus = FIRST_MOVE_BONUS,
                                .book_ply_bonus = BOOK_PLY_BONUS};
}

void cf_time_manager_init(cf_time_manager *tm, long move_overhead_ms) {
  cf_time_manager_params_default(&tm->p);
  tm->move_overhead_ms = move_overhead_ms;
  cf_time_manager_new_game(tm);
}

void cf_time_manager_new_game(cf_time_manager *tm) {
  tm->first_move = true;
  tm->spared_ms = 0;
}

static double moves_to_go(int game_ply, double midpoint, double steepness) {
  const double move = game_ply / 2.0;
  return midpoint * pow(1 + 2 * pow(move / midpoint, steepness), 1 / steepness) - move;
}

double cf_time_manager_moves_to_go(int game_ply) {
  return moves_to_go(game_ply, MIDPOINT_MOVE, STEEPNESS);
}

double cf_time_manager_overhead(const cf_time_manager *tm, long budget_ms) {
  const double half = budget_ms > 0 ? budget_ms / 2.0 : 0;
  return (double)tm->move_overhead_ms < half ? (double)tm->move_overhead_ms : half;
}

bool cf_time_manager_budget(cf_time_manager *tm, const cf_clock *c, int game_ply, double *ms) {
  tm->overhead_cut = false;
  const double movetime_overhead = cf_time_manager_overhead(tm, c->movetime_ms);
  const double movetime = c->movetime_ms >= 0 ? (double)c->movetime_ms - movetime_overhead : 0;
  if (c->movetime_ms > 0 && movetime_overhead < (double)tm->move_overhead_ms) tm->overhead_cut = true;
  if (c->time_ms < 0) { /* no clock */
    *ms = movetime;
    return c->movetime_ms >= 0;
  }
  const double inc = c->inc_ms > 0 ? (double)c->inc_ms : 0;
  double mtg = moves_to_go(game_ply, tm->p.midpoint_move, tm->p.steepness);
  if (c->movestogo > 0 && (double)c->movestogo < mtg) mtg = (double)c->movestogo;
  const double overhead = cf_time_manager_overhead(tm, c->time_ms);
  if (c->time_ms > 0 && overhead < (double)tm->move_overhead_ms) tm->overhead_cut = true;
  double total = (double)c->time_ms + inc * (mtg - 1) - overhead;
  if (total < 0) total = 0;
  double squander = 0;
  if (tm->spared_ms > 0) {
    total = total - tm->spared_ms > 0 ? total - tm->spared_ms : 0;
    squander = tm->spared_ms * tm->p.immediate_use;
    tm->spared_ms -= squander;
  }
  double this_move = total / mtg;
  if (tm->first_move) {
    this_move *= 1 + tm->p.first_move_bonus +
                 tm->p.book_ply_bonus * (game_ply < BOOK_PLY_CAP ? game_ply : BOOK_PLY_CAP);
    tm->first_move = false;
  }
  if (tm->p.slowmover < 1 || this_move * tm->p.slowmover > SMART_PRUNING_TOLERANCE_MS) {
    tm->spared_ms -= this_move * (tm->p.slowmover - 1);
    this_move *= tm->p.slowmover;
  }
  this_move += squander;
  const double cap = (double)c->time_ms - overhead;
  *ms = this_move < cap ? this_move : cap;
  if (c->movetime_ms >= 0 && movetime < *ms) *ms = movetime; /* both limits hold */
  return true;
}

void cf_time_manager_done(cf_time_manager *tm, double budget_ms, double used_ms) {
  tm->spared_ms += budget_ms - used_ms;
}
