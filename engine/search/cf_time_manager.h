/* cf_time_manager.h: how long a move may take under a clock, Lc0's default
 * ("legacy") time manager, with Lc0's constants:
 *
 *   moves to go  m = M * (1 + 2 (p / M)^s)^(1/s) - p,  p = game ply / 2
 *                (M = 51.5 the median game length in moves, s = 7: the
 *                median residual life of a log-logistic game length), or the
 *                GUI's movestogo when that is smaller;
 *   total        T = max(0, time + inc * (m - 1) - MoveOverheadMs);
 *   saved time   time left unused by earlier moves is taken out of T and
 *                spent now (immediate-use 1: all of it);
 *   this move    T / m, times 1 + 1.8 + 0.25 * min(12, ply) on the first
 *                move of a game (there is no tree to reuse yet);
 *   and never more than time - MoveOverheadMs.
 *
 * movetime gives movetime - MoveOverheadMs (with a clock as well, the
 * smaller of the two). A zero or negative result means: make the move at
 * once (after the first evaluation; the UCI engine moves without the network
 * when the clock cannot pay for one answer: engine/cf_instant_move.h). game_ply counts from the FEN's move
 * number, as Lc0's does. */
#ifndef CF_TIME_MANAGER_H
#define CF_TIME_MANAGER_H

#include <stdbool.h>

typedef struct cf_time_manager {
  long move_overhead_ms; /* MoveOverheadMs (Lc0: 200) */
  bool first_move;       /* no clocked move yet this game */
  double spared_ms;      /* budgeted but unused time of earlier moves */
} cf_time_manager;

void cf_time_manager_init(cf_time_manager *tm, long move_overhead_ms);
/* ucinewgame: the next move is a first move again, nothing is saved. */
void cf_time_manager_new_game(cf_time_manager *tm);

/* The clock as `go` gives it; -1 = not given. */
typedef struct cf_clock {
  long time_ms, inc_ms, movestogo, movetime_ms;
} cf_clock;

/* Writes the milliseconds this move may take to *ms (0 or less: move at
 * once) and returns true; false when there is no time limit (no clock and
 * no movetime). game_ply: plies played since the game's start position. */
bool cf_time_manager_budget(cf_time_manager *tm, const cf_clock *clock, int game_ply, double *ms);

/* After a clocked search: what it did not use of its budget is saved. */
void cf_time_manager_done(cf_time_manager *tm, double budget_ms, double used_ms);

/* Lc0's estimate of the moves left in a game at a ply. */
double cf_time_manager_moves_to_go(int game_ply);

#endif /* CF_TIME_MANAGER_H */
