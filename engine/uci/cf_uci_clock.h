/* cf_uci_clock.h: the clock of every agent's move (cf_uci_clock in
 * cf_uci_state.h): Lc0's time manager, the game's ply as it counts it, the
 * budget and deadline of a go, time trouble, what an answer costs. */
#ifndef CF_UCI_CLOCK_H
#define CF_UCI_CLOCK_H

#include "engine/uci/cf_uci_state.h"

/* A new clock: no budget, no answer measured, the time manager's settings
 * from the options (create, reset). */
void cf_uci_clock_reset(cf_uci *u);
/* ucinewgame: the time manager's game state and the once-a-game warning. */
void cf_uci_clock_new_game(cf_uci *u);

/* The game's ply as Lc0 counts it for the time manager. */
int cf_uci_game_ply(const cf_uci *u);
/* The side to move's clock from `go`. */
cf_clock cf_uci_go_clock(const cf_uci *u);
/* This move's budget in ms from u->clock.start; -1 when nothing limits it. */
double cf_uci_move_budget(cf_uci *u);

/* The clock of a go read at go_at, its agent starting now: budget,
 * deadline, the owed minibatch (a held go has none of them). Returns
 * whether the clock is in time trouble (the move must be made without the
 * network); gives the once-a-game warning when MoveOverheadMs was cut. */
bool cf_uci_clock_start(cf_uci *u, double go_at, bool stopped);
/* The agent is done: the time manager saves the budget's unused part
 * (under u->mu: a ponderhit may be setting the clock). */
void cf_uci_clock_spent(cf_uci *u);
/* The agent answered r (not held): what the answer cost is remembered. */
void cf_uci_clock_answered(cf_uci *u, const cf_agent_result *r);

/* MoveOverheadMs, TimeManager or Slowmover was set: the time manager takes
 * them, or the setting is refused. */
cf_status cf_uci_clock_changed(cf_uci *u, cf_error *err);

#endif /* CF_UCI_CLOCK_H */
