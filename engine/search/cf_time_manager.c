/* cf_time_manager.c: Lc0's legacy time manager (cf_time_manager.h). */
#include "engine/search/cf_time_manager.h"

#include <math.h>

#define MIDPOINT_MOVE 51.5
#define STEEPNESS 7.0
#define IMMEDIATE_USE 1.0
#define FIRST_MOVE_BONUS 1.8
#define BOOK_PLY_BONUS 0.25
#define BOOK_PLY_CAP 12

void cf_time_manager_init(cf_time_manager *tm, long move_overhead_ms) {
  tm->move_overhead_ms = move_overhead_ms;
  cf_time_manager_new_game(tm);
}

void cf_time_manager_new_game(cf_time_manager *tm) {
  tm->first_move = true;
  tm->spared_ms = 0;
}

double cf_time_manager_moves_to_go(int game_ply) {
  const double move = game_ply / 2.0;
  return MIDPOINT_MOVE * pow(1 + 2 * pow(move / MIDPOINT_MOVE, STEEPNESS), 1 / STEEPNESS) - move;
}

bool cf_time_manager_budget(cf_time_manager *tm, const cf_clock *c, int game_ply, double *ms) {
  const double movetime = c->movetime_ms >= 0 ? (double)(c->movetime_ms - tm->move_overhead_ms) : 0;
  if (c->time_ms < 0) { /* no clock */
    *ms = movetime;
    return c->movetime_ms >= 0;
  }
  const double inc = c->inc_ms > 0 ? (double)c->inc_ms : 0;
  double mtg = cf_time_manager_moves_to_go(game_ply);
  if (c->movestogo > 0 && (double)c->movestogo < mtg) mtg = (double)c->movestogo;
  double total = (double)c->time_ms + inc * (mtg - 1) - (double)tm->move_overhead_ms;
  if (total < 0) total = 0;
  double squander = 0;
  if (tm->spared_ms > 0) {
    total = total - tm->spared_ms > 0 ? total - tm->spared_ms : 0;
    squander = tm->spared_ms * IMMEDIATE_USE;
    tm->spared_ms -= squander;
  }
  double this_move = total / mtg;
  if (tm->first_move) {
    this_move *= 1 + FIRST_MOVE_BONUS + BOOK_PLY_BONUS * (game_ply < BOOK_PLY_CAP ? game_ply : BOOK_PLY_CAP);
    tm->first_move = false;
  }
  this_move += squander;
  const double cap = (double)(c->time_ms - tm->move_overhead_ms);
  *ms = this_move < cap ? this_move : cap;
  if (c->movetime_ms >= 0 && movetime < *ms) *ms = movetime; /* both limits hold */
  return true;
}

void cf_time_manager_done(cf_time_manager *tm, double budget_ms, double used_ms) {
  tm->spared_ms += budget_ms - used_ms;
}
