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
 *   slowmover   this move times slowmover (1), when that is below 1 or the
 *                result is over 200 ms (the extra comes out of saved time);
 *   and never more than time - MoveOverheadMs.
 *
 * movetime gives movetime - MoveOverheadMs (with a clock as well, the
 * smaller of the two). Unlike Lc0, MoveOverheadMs never takes more than half
 * of the movetime or of the time left on the clock (overhead_cut says when
 * it was cut): Lc0's 200 ms overhead would leave `go movetime 100` no time
 * at all, so the move would be played blind. A zero or negative result means: make the move at
 * once (after the first evaluation; the UCI engine moves without the network
 * when the clock cannot pay for one answer: engine/cf_instant_move.h). game_ply counts from the FEN's move
 * number, as Lc0's does. */
#ifndef CF_TIME_MANAGER_H
#define CF_TIME_MANAGER_H

#include <stdbool.h>

/* Lc0's legacy time manager's settings, by the names of its TimeManager
 * option (legacy(slowmover=...,midpoint-move=...)), with Lc0's defaults. */
typedef struct cf_time_manager_params {
  double slowmover;        /* slowmover 1: the budget's multiplier */
  double midpoint_move;    /* midpoint-move 51.5: M above */
  double steepness;        /* steepness 7: s above */
  double immediate_use;    /* immediate-use 1: the part of saved time spent now */
  double first_move_bonus; /* first-move-bonus 1.8 */
  double book_ply_bonus;   /* book-ply-bonus 0.25 */
} cf_time_manager_params;

void cf_time_manager_params_default(cf_time_manager_params *p);

typedef struct cf_time_manager {
  cf_time_manager_params p;
  long move_overhead_ms; /* MoveOverheadMs (Lc0: 200) */
  bool first_move;       /* no clocked move yet this game */
  double spared_ms;      /* budgeted but unused time of earlier moves */
  bool overhead_cut;     /* the last budget kept back less than MoveOverheadMs (half) */
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

/* The overhead kept back from a budget of budget_ms (a movetime or the
 * time left): MoveOverheadMs, at most half of it; 0 for a budget <= 0. */
double cf_time_manager_overhead(const cf_time_manager *tm, long budget_ms);

/* After a clocked search: what it did not use of its budget is saved. */
void cf_time_manager_done(cf_time_manager *tm, double budget_ms, double used_ms);

/* Lc0's estimate of the moves left in a game at a ply (the default M, s). */
double cf_time_manager_moves_to_go(int game_ply);

#endif /* CF_TIME_MANAGER_H */
