/* cf_uci_search.c: the search worker (one thread per engine, kept between
 * searches) that runs one agent's choice, its info and bestmove, held for
 * stop/ponderhit under go infinite/ponder; waiting for it (the move's
 * clock is cf_uci_clock.c's). */
#include <pthread.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "common/cf_clock.h"
#include "engine/search/cf_search_wdl.h"
#include "engine/uci/cf_uci_clock.h"
#include "engine/uci/cf_uci_contempt.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_search.h"
#include "engine/uci/cf_uci_temperature.h"

/* Waits for stop / ponderhit when the search was started held. */
static void wait_release(cf_uci *u) {
  pthread_mutex_lock(&u->mu);
  while (u->hold && !u->released) pthread_cond_wait(&u->cv, &u->mu);
  pthread_mutex_unlock(&u->mu);
}

/* One search (on the worker, or in the feeding call with inline_search):
 * what go asked for, from the fields cmd_go set; its info lines are
 * written, its answer is left in r for bestmove. Returns whether there is
 * a move to answer with. */
static bool run_search(cf_uci *u, cf_agent_result *r) {
  if (u->game_over != CF_REASON_NONE) { /* nothing to search: the game's result, no move */
    cf_uci_emit_game_over(u, u->game_over);
    return false;
  }
  const bool tree = cf_agent_has(u->agent, CF_AGENT_BUILDS_TREE);
  const bool keeps = cf_agent_has(u->agent, CF_AGENT_KEEPS_STATE);
  /* UCI_LimitStrength: at most the level's nodes, whatever the clock (which
   * still applies) or go nodes asked. */
  long nodes = u->go.nodes > 0 ? u->go.nodes : 0;
  const long level_nodes = cf_uci_strength(u).nodes;
  if (level_nodes > 0 && (nodes == 0 || level_nodes < nodes)) nodes = level_nodes;
  cf_agent_request req = {
      .net = u->net,
      .game = &u->game,
      .allowed = u->go.searchmoves,
      .n_allowed = u->go.n_searchmoves,
      .max_evals = nodes,
      /* Nothing but a poll can stop a search that runs in the feeding
       * call: without a flag, a held one that is solved ends instead of
       * waiting for it. */
      .stop = u->inline_search && !u->poll ? NULL : &u->stop,
      .deadline = u->clock.deadline,
      .policy_temperature = (float)u->opt[CF_OPT_SEARCH(policy_temperature)].f,
      .depth = u->go.depth > 0 && u->go.depth < 1000 ? (int)u->go.depth : 0,
      .infinite = u->hold,
      .live_deadline = &u->clock.live_deadline,
      .one_minibatch = u->clock.one_minibatch,
      .mate = u->go.mate > 0 && u->go.mate < 1000 ? (int)u->go.mate : 0,
      .go_infinite = u->go.infinite,
      .search = keeps ? u->search : NULL,
      .on_info = tree ? cf_uci_on_search_info : NULL,
      .info_user = u,
      .poll = u->poll,
      .poll_user = u->poll_user,
  };
  /* Lc0 says so when go infinite turns ContemptMode play off. */
  if (tree && cf_wdl_play_disabled(cf_search_get_params(u->search), u->go.infinite))
    cf_uci_emit(u, "info string WARNING: ContemptMode play is off under go infinite (no side to "
                   "favour); use white_side_analysis or black_side_analysis to analyse with "
                   "contempt");
  static const cf_agent_result none = {.best = CF_MOVE_NONE, .ponder = CF_MOVE_NONE};
  *r = none; /* an agent that fails before its first evaluation leaves it */
  cf_error err = {0};
  cf_status st = u->agent->choose(&req, r, &err);
  double elapsed = cf_clock_now() - u->start;
  /* Under mu: a ponderhit may be setting the clock (a ponder search that
   * ended early, at RamLimitMb, is still waiting for it). */
  pthread_mutex_lock(&u->mu);
  cf_uci_clock_spent(u);
  pthread_mutex_unlock(&u->mu);
  /* An agent that failed part way (the network, mid-search) still has its
   * best move so far: the search's, or the root policy's for the one-ply
   * agents. */
  const bool answer = st == CF_OK || r->best != CF_MOVE_NONE;
  /* The result is shown as soon as the work is done, so a GUI analysing
   * with go infinite (or pondering) sees it before it sends stop; only
   * bestmove waits for stop or ponderhit. */
  if (st != CF_OK) cf_uci_emit(u, "info string error: %s", err.msg);
  if (answer) cf_uci_emit_final_info(u, r, elapsed);
  if (answer) cf_uci_apply_temperature(u, r); /* after info, which shows the best move, as Lc0 */
  if (!u->hold) cf_uci_clock_answered(u, r);
  return answer;
}

static void emit_answer(cf_uci *u, const cf_agent_result *r, bool answer) {
  if (answer) cf_uci_emit_bestmove(u, r);
  else cf_uci_emit(u, "bestmove 0000");
}

/* inline_search: the bestmove of the search that ran last, held (infinite,
 * ponder) until now. */
static void release_inline_answer(cf_uci *u) {
  if (!u->search_live) return;
  u->search_live = false;
  emit_answer(u, &u->answer, u->answer_ok);
}

void cf_uci_released(cf_uci *u) {
  if (u->inline_search) release_inline_answer(u);
}

/* The worker: waits for a job (cf_uci_start_search), runs it, says it is
 * done, until cf_uci_end_worker. The mutex hand-over orders the fields
 * cmd_go set before the search, and the search's writes before the
 * feeding side reads them, as creating and joining a thread did. */
static void *worker_main(void *arg) {
  cf_uci *u = arg;
  pthread_mutex_lock(&u->mu);
  for (;;) {
    while (!u->job_posted && !u->worker_quit) pthread_cond_wait(&u->job_cv, &u->mu);
    if (!u->job_posted) break; /* quit, and nothing left to run */
    pthread_mutex_unlock(&u->mu);
    cf_agent_result r;
    const bool answer = run_search(u, &r);
    wait_release(u);
    emit_answer(u, &r, answer);
    pthread_mutex_lock(&u->mu);
    u->job_posted = false;
    pthread_cond_broadcast(&u->done_cv);
  }
  pthread_mutex_unlock(&u->mu);
  return NULL;
}

/* Until the search started last has written its bestmove. The search takes
 * no cmd_mu: waiting under it is safe. */
static void wait_search(cf_uci *u) {
  if (!u->search_live) return;
  if (u->inline_search) return; /* it has ended; only a held answer waits (for its release) */
  pthread_mutex_lock(&u->mu);
  while (u->job_posted) pthread_cond_wait(&u->done_cv, &u->mu);
  pthread_mutex_unlock(&u->mu);
  u->search_live = false;
}

/* Ends a running search: a held one is stopped (a timed one runs out its
 * time), then waited for. */
void cf_uci_finish_search(cf_uci *u, bool force_stop) {
  if (!u->search_live) return;
  pthread_mutex_lock(&u->mu);
  if (force_stop || u->hold) {
    atomic_store(&u->stop, true);
    u->released = true;
    pthread_cond_broadcast(&u->cv);
  }
  pthread_mutex_unlock(&u->mu);
  cf_uci_released(u); /* inline_search: a released answer is written now */
  wait_search(u);
}

void cf_uci_interrupt(cf_uci *u) {
  if (u) atomic_store(&u->stop, true);
}

/* Ends the worker thread (cf_uci_free, after cf_uci_finish_search: it is
 * idle). */
void cf_uci_end_worker(cf_uci *u) {
  if (!u->worker_live) return;
  pthread_mutex_lock(&u->mu);
  u->worker_quit = true;
  pthread_cond_broadcast(&u->job_cv);
  pthread_mutex_unlock(&u->mu);
  pthread_join(u->worker, NULL);
  u->worker_live = false;
}

void cf_uci_wait(cf_uci *u) {
  pthread_mutex_lock(&u->cmd_mu);
  while (u->loader) pthread_cond_wait(&u->idle_cv, &u->cmd_mu);
  wait_search(u);
  pthread_mutex_unlock(&u->cmd_mu);
}

void cf_uci_drain(cf_uci *u) {
  pthread_mutex_lock(&u->cmd_mu);
  while (u->loader) pthread_cond_wait(&u->idle_cv, &u->cmd_mu);
  pthread_mutex_unlock(&u->cmd_mu);
}

bool cf_uci_loading(cf_uci *u) {
  pthread_mutex_lock(&u->cmd_mu);
  const bool loading = u->loader != NULL;
  pthread_mutex_unlock(&u->cmd_mu);
  return loading;
}

bool cf_uci_root_over(const cf_uci *u, cf_game_reason *reason) {
  cf_game_reason why;
  const bool over = cf_game_outcome(&u->game, &why) != CF_RESULT_ONGOING &&
                    (why == CF_REASON_CHECKMATE || why == CF_REASON_STALEMATE);
  if (reason) *reason = over ? why : CF_REASON_NONE;
  return over;
}

/* Starts the agent on the worker, made here at the first go; false (and
 * nothing started) when the thread cannot be made (the next go tries
 * again). The previous search was waited for (go does not run during one). */
bool cf_uci_start_search(cf_uci *u) {
  if (u->inline_search) {
    u->answer_ok = run_search(u, &u->answer);
    u->search_live = true;
    if (!u->hold) release_inline_answer(u);
    return true;
  }
  if (!u->worker_live) {
    if (pthread_create(&u->worker, NULL, worker_main, u) != 0) return false;
    u->worker_live = true;
  }
  pthread_mutex_lock(&u->mu);
  u->job_posted = true;
  pthread_cond_signal(&u->job_cv);
  pthread_mutex_unlock(&u->mu);
  u->search_live = true;
  return true;
}

bool cf_uci_device_backend(const cf_uci *u) {
  const char *name = u->opt[CF_OPT_BACKEND].text;
  const cf_backend_desc *d =
      strcmp(name, "auto") == 0 ? cf_backend_default() : cf_backend_find(name);
  return d && d->device;
}

void cf_uci_search_params(const cf_uci *u, cf_search_params *p) {
  cf_search_params_default(p);
  for (int i = 0; i < CF_SEARCH_OPTION_COUNT; i++)
    cf_search_param_at(i)->set(p, u->opt[CF_OPT_SEARCH_FIRST + i].f);
  /* The contempt: Contempt's list against UCI_Opponent, from UCI_RatingAdv;
   * cut to the knob's range, which no ContemptMaxValue exceeds (so the cut
   * changes nothing). */
  const cf_search_param *c = cf_search_param_at(CF_SEARCH_PARAM_contempt);
  const double contempt = cf_uci_contempt_value(u->opt[CF_OPT_CONTEMPT].text,
                                                u->opt[CF_OPT_UCI_OPPONENT].text, p->rating_adv);
  p->contempt = (float)(contempt < c->min ? c->min : contempt > c->max ? c->max : contempt);
  /* Threads on a device: batches the search keeps on it (0: Lc0's 2). */
  const int threads = (int)u->opt[CF_OPT_THREADS].i;
  const int most = (int)cf_search_param_at(CF_SEARCH_PARAM_batches_in_flight)->max;
  if (cf_uci_device_backend(u)) p->batches_in_flight = threads <= 0 ? 2 : threads > most ? most : threads;
}

cf_status cf_uci_search_changed(cf_uci *u, cf_error *err) {
  cf_search_params p;
  cf_uci_search_params(u, &p);
  return cf_search_set_params(u->search, &p, err);
}

cf_status cf_uci_contempt_changed(cf_uci *u, cf_error *err) {
  CF_TRY(cf_uci_contempt_check(u->opt[CF_OPT_CONTEMPT].text, err));
  return cf_uci_search_changed(u, err);
}

cf_status cf_uci_opponent_changed(cf_uci *u, cf_error *err) {
  CF_TRY(cf_uci_opponent_check(u->opt[CF_OPT_UCI_OPPONENT].text, err));
  return cf_uci_search_changed(u, err);
}

void cf_uci_search_reset(cf_uci *u) {
  u->hold = u->released = false;
  u->game_over = CF_REASON_NONE;
  atomic_store(&u->stop, false);
  memset(&u->go, 0, sizeof u->go);
  u->agent = NULL;
  u->start = 0;
}

void cf_uci_moves_left_note(cf_uci *u) {
  if (u->moves_left_said || !u->net || cf_net_get_info(u->net)->has_moves_left) return;
  static const int rows[] = {CF_SEARCH_PARAM_moves_left_max_effect,
                             CF_SEARCH_PARAM_moves_left_threshold,
                             CF_SEARCH_PARAM_moves_left_slope,
                             CF_SEARCH_PARAM_moves_left_constant_factor,
                             CF_SEARCH_PARAM_moves_left_scaled_factor,
                             CF_SEARCH_PARAM_moves_left_quadratic_factor};
  cf_search_params p, def;
  cf_uci_search_params(u, &p);
  cf_search_params_default(&def);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const cf_search_param *r = cf_search_param_at(rows[i]);
    if (r->get(&p) == r->get(&def)) continue;
    u->moves_left_said = true;
    cf_uci_emit(u, "info string %s and the other MovesLeft options have no effect: the network "
                   "has no moves-left head", r->name);
    return;
  }
}
