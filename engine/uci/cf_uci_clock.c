/* cf_uci_clock.c: the clock of every agent's move: Lc0's time manager
 * (engine/search/cf_time_manager.h) with the options' settings, the game's
 * ply as it counts it, a go's budget and deadline, time trouble, and what
 * an answer from the network costs, as measured here. */
#include <stdatomic.h>

#include "common/cf_clock.h"
#include "engine/uci/cf_uci_clock.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_time_manager.h"

void cf_uci_clock_reset(cf_uci *u) {
  cf_uci_clock *c = &u->clock;
  cf_time_manager_init(&c->tm, u->opt[CF_OPT_MOVE_OVERHEAD].i);
  cf_time_manager_params p;
  if (cf_uci_time_manager_params(u, &p, NULL) == CF_OK) c->tm.p = p;
  c->budget_ms = c->start = c->deadline = c->answer_ms = 0;
  atomic_store(&c->live_deadline, 0.0);
  c->one_minibatch = c->overhead_warned = false;
}

void cf_uci_clock_new_game(cf_uci *u) {
  cf_time_manager_new_game(&u->clock.tm);
  u->clock.overhead_warned = false;
}

cf_status cf_uci_clock_changed(cf_uci *u, cf_error *err) {
  cf_time_manager_params p;
  CF_TRY(cf_uci_time_manager_params(u, &p, err));
  u->clock.tm.p = p;
  u->clock.tm.move_overhead_ms = u->opt[CF_OPT_MOVE_OVERHEAD].i;
  return CF_OK;
}

/* The game's ply as Lc0 counts it for the time manager: from the FEN's move
 * number, plus the moves played since. */
int cf_uci_game_ply(const cf_uci *u) {
  const cf_position *start = &u->game.plies[0].pos;
  int fullmove = start->fullmove > 0 ? start->fullmove : 1;
  return 2 * (fullmove - 1) + (start->side == CF_BLACK) + u->game.count - 1;
}

/* The side to move's clock from `go`. */
cf_clock cf_uci_go_clock(const cf_uci *u) {
  const bool white = cf_game_position(&u->game)->side == CF_WHITE;
  cf_clock c = {.time_ms = white ? u->go.wtime : u->go.btime,
                .inc_ms = white ? u->go.winc : u->go.binc,
                .movestogo = u->go.movestogo,
                .movetime_ms = u->go.movetime};
  return c;
}

/* This move's time budget in ms, counted from u->clock.start, for every
 * agent: Lc0's time manager, so MoveOverheadMs is kept back from every
 * budget and a clock at 0 or below (or a budget used up by the overhead)
 * gives 0: move now, after the first evaluation. -1 when nothing limits
 * the time (no clock for the side to move and no movetime). Only the
 * clocked budgets of an agent that spends them (CF_AGENT_USES_CLOCK_BUDGET)
 * are recorded in u->clock.budget_ms, so that the unused time is saved for later
 * moves: a one-ply agent finishes early by design and would pile up time it
 * never uses. */
double cf_uci_move_budget(cf_uci *u) {
  cf_clock clock = cf_uci_go_clock(u);
  double ms;
  if (!cf_time_manager_budget(&u->clock.tm, &clock, cf_uci_game_ply(u), &ms)) return -1;
  if (ms < 0) ms = 0;
  if (clock.time_ms >= 0 && cf_agent_has(u->agent, CF_AGENT_USES_CLOCK_BUDGET)) u->clock.budget_ms = ms;
  return ms;
}

bool cf_uci_clock_start(cf_uci *u, double go_at, bool stopped) {
  cf_uci_clock *c = &u->clock;
  c->start = go_at;
  c->budget_ms = -1;
  atomic_store(&c->live_deadline, 0.0);
  const double budget = u->hold ? -1 : cf_uci_move_budget(u);
  c->deadline = budget >= 0 ? go_at + budget / 1000.0 : 0;
  c->one_minibatch = budget > 0;
  const cf_clock clock = cf_uci_go_clock(u);
  /* Time trouble keeps the whole MoveOverheadMs (not the half a budget
   * may cut it to): in sudden death the last MoveOverheadMs of the clock are
   * kept for moves without the network, so the engine does not lose on
   * time; the engine says so in an info string. */
  const double waited_ms = (u->start - go_at) * 1000.0;
  const bool trouble = !u->hold && clock.time_ms >= 0 &&
                       (double)(clock.time_ms - c->tm.move_overhead_ms) - waited_ms < c->answer_ms;
  /* The budget cut MoveOverheadMs to half: said once a game, when a search
   * runs on that budget. */
  if (!u->hold && !stopped && !trouble && c->tm.overhead_cut && !c->overhead_warned) {
    c->overhead_warned = true;
    const bool by_clock =
        clock.time_ms >= 0 && (clock.movetime_ms < 0 || clock.time_ms < clock.movetime_ms);
    cf_uci_emit(u, "info string warning: MoveOverheadMs %ld is more than half of the %s (%ld ms), "
                "which leaves the search too little time: half of it is kept back instead; set "
                "MoveOverheadMs lower for such short times (once per game)",
                c->tm.move_overhead_ms, by_clock ? "time left" : "movetime",
                by_clock ? clock.time_ms : clock.movetime_ms);
  }
  return trouble;
}

void cf_uci_clock_spent(cf_uci *u) {
  cf_uci_clock *c = &u->clock;
  if (c->budget_ms >= 0) /* set only for agents that spend their budget */
    cf_time_manager_done(&c->tm, c->budget_ms, (cf_clock_now() - c->start) * 1000.0);
}

void cf_uci_clock_answered(cf_uci *u, const cf_agent_result *r) {
  cf_uci_clock *c = &u->clock;
  /* A search its deadline cut spent its budget by design: what an answer
   * costs is then how late it came after the deadline (the last network
   * call that could not be cut). */
  const double now = cf_clock_now();
  const bool cut = r->stopped && c->deadline > 0;
  double answer_ms = (cut ? now - c->deadline : now - c->start) * 1000.0;
  if (answer_ms < 0) answer_ms = 0;
  c->answer_ms = answer_ms > 0.75 * c->answer_ms ? answer_ms : 0.75 * c->answer_ms;
}
