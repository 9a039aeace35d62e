/* cf_uci.c: the UCI command loop as a library (see cf_uci.h). Commands are
 * dispatched from one table; the search runs on its own thread. */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_agent.h"
#include "engine/cf_engine_loader.h"
#include "engine/cf_engine_weights.h"
#include "engine/cf_instant_move.h"
#include "engine/cf_uci.h"
#include "engine/cf_uci_go.h"
#include "engine/cf_uci_log.h"
#include "engine/cf_uci_score.h"
#include "engine/cf_uci_syzygy.h"
#include "engine/cf_uci_text.h"
#include "engine/search/cf_search.h"
#include "engine/search/cf_time_manager.h"
#include "engine/syzygy/cf_syzygy.h"
#include "net/cf_net_options.h"
#include "policy_head/cf_policy_map.h"
#include "engine/cf_net_input.h"

#define DEFAULT_MAX_BATCH 32
/* How long quit lets a network load under way finish (see cmd quit). */
#define QUIT_GRACE_MS 250
#define MAX_SEARCH_DIRS 16

struct command;

/* A command that came in and has not run yet: commands run in the order
 * they came, and isready and go wait at the head while a network loads. */
typedef struct pending {
  struct pending *next;
  const struct command *cmd;
  double at;      /* when it was read: a go's clock starts here */
  bool is_go;
  bool tried;     /* a go cleared the failed load once already */
  bool stopped;   /* a go that stop (or quit) came for while it waited */
  char args[];
} pending;

struct cf_uci {
  cf_uci_write_fn write;
  void *user;
  pthread_mutex_t out_mu; /* one line at a time */
  char value[CF_OPT_COUNT][CF_UCI_VALUE_MAX];
  char *search_dirs[MAX_SEARCH_DIRS + 1];
  int max_batch;

  cf_game game; /* the position set by `position` (start position until then) */

  /* The network and what it was built from (weights, backend, options). */
  cf_net *net;
  char net_key[5 * CF_UCI_VALUE_MAX];
  char failed_key[5 * CF_UCI_VALUE_MAX]; /* the last key that failed to load */
  char failed_msg[CF_ERROR_MSG_MAX];

  /* Loading runs on a thread of its own (cf_engine_loader.h), so the
   * input is read meanwhile. Commands run under cmd_mu, on the input
   * thread or, when a load ends, on the loader's; those that came during
   * a load and must wait for it are queued. */
  pthread_mutex_t cmd_mu;
  pthread_cond_t idle_cv; /* a load ended */
  cf_engine_loader *loader; /* the load under way; NULL when none */
  char loading_key[5 * CF_UCI_VALUE_MAX];
  bool background_load; /* cf_uci_config: feed returns during a load */
  bool closing;         /* cf_uci_free began: a load that ends is dropped */
  pending *queue, *queue_tail;
  double cmd_at;      /* when the running command was read */
  bool cmd_stopped;   /* the running go was stopped while it waited */

  /* The search. The thread owns game, net and go while it runs; the feeding
   * thread touches only the fields under mu and the stop flag. */
  pthread_t thread;
  bool thread_live;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool hold;      /* infinite / ponder: bestmove waits for release */
  bool released;  /* stop or ponderhit came */
  atomic_bool stop;
  cf_uci_go go;
  const cf_agent_desc *agent;
  double start;    /* when the agent started (after any network load): info's time */
  double deadline; /* when the agent must stop; 0 = no deadline */

  /* The search agent's state across moves (tree, NN cache); the clock of
   * every agent. */
  cf_search *search;
  cf_time_manager tm;
  double budget_ms;   /* the search's clock budget, whose unused part is saved; < 0: none */
  double clock_start; /* when this move's clock started (go was read, or ponderhit) */
  _Atomic double live_deadline; /* set by ponderhit: the pondering agent's deadline */

  /* Time trouble: when the clock, less MoveOverheadMs, cannot pay for one
   * more answer from the network, the move is made without it
   * (cf_instant_move.h). answer_ms is the cost of a network answer as
   * measured here (go to bestmove), a decaying maximum so that one slow
   * answer is remembered for a few moves. */
  double answer_ms;

  cf_uci_log *log; /* LogFile: every line in and out (cf_uci_log.h) */

  char syzygy_loaded[CF_UCI_VALUE_MAX]; /* the SyzygyPath last loaded (cf_uci_syzygy.h) */
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void emit(cf_uci *u, const char *fmt, ...) {
  /* Lines quote input (commands, values, FENs, file names) and files (a
   * network's license): cleaned, so no control character or invalid UTF-8
   * reaches the GUI (cf_uci_text.h says how). */
  char line[4096], clean[4 * sizeof line];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  cf_uci_text_clean(line, clean, sizeof clean);
  pthread_mutex_lock(&u->out_mu);
  u->write(u->user, clean);
  cf_uci_log_line(u->log, CF_UCI_LOG_OUT, clean, strlen(clean)); /* under out_mu: in order */
  pthread_mutex_unlock(&u->out_mu);
}

/* ---- search ------------------------------------------------------------ */

static bool option_on(const cf_uci *u, cf_uci_option_id id) {
  return strcmp(u->value[id], "true") == 0;
}

/* Castling notation of the current game's moves: king takes rook under
 * UCI_Chess960 or in a Chess960 position (cf_move_uci_king_takes_rook). */
static int king_takes_rook(const cf_uci *u) {
  return cf_move_uci_king_takes_rook(cf_game_position(&u->game), option_on(u, CF_OPT_UCI_CHESS960));
}

/* " wdl W D L" when UCI_ShowWDL is on. */
static void wdl_text(const cf_uci *u, float wl, float d, char *out, size_t size) {
  out[0] = 0;
  if (!option_on(u, CF_OPT_SHOW_WDL)) return;
  int p[3];
  cf_uci_wdl_from_wl(wl, d, p);
  snprintf(out, size, " wdl %d %d %d", p[0], p[1], p[2]);
}

/* Moves as " m1 m2 ..." into out. */
static void moves_text(const cf_uci *u, const cf_move *moves, int n, char *out, size_t size) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < n && at + CF_UCI_MOVE_MAX + 1 < size; i++) {
    char m[CF_UCI_MOVE_MAX];
    cf_move_write_uci(moves[i], king_takes_rook(u), m);
    at += (size_t)snprintf(out + at, size - at, " %s", m);
  }
}

/* The search's info line(s): one per MultiPV line, best first. */
static void emit_search_info(cf_uci *u, const cf_search *s, const cf_search_info *info) {
  const int multipv = atoi(u->value[CF_OPT_MULTIPV]);
  cf_search_move_stats stats[CF_MAX_MOVES];
  int n = cf_search_root_stats(s, stats, multipv < CF_MAX_MOVES ? multipv : CF_MAX_MOVES);
  const long ms = (long)(info->seconds * 1000.0);
  const long nps = info->seconds > 0 ? (long)((double)info->playouts / info->seconds) : 0;
  if (n == 0) { /* before the root's first evaluation */
    emit(u, "info depth %d seldepth %d time %ld nodes %ld nps %ld", info->depth, info->seldepth,
         ms, info->visits, nps);
    return;
  }
  for (int k = 0; k < n; k++) {
    const cf_search_move_stats *m = &stats[k];
    float wl, d;
    int mate = 0;
    if (k == 0) { /* the best line carries the search's own figures */
      wl = info->wdl[0] - info->wdl[2];
      d = info->wdl[1];
      mate = info->mate;
    } else if (m->n > 0) {
      wl = m->wl;
      d = m->d;
      mate = m->mate;
    } else { /* an unvisited move: the root's own value, as Lc0 shows it */
      wl = info->root_wdl[0] - info->root_wdl[2];
      d = info->root_wdl[1];
    }
    float q = k == 0 ? info->q : m->n > 0 ? m->q : info->root_q;
    char score[48], wdl[48], pv[CF_AGENT_PV_MAX * (CF_UCI_MOVE_MAX + 1) + 1], mpv[24] = "";
    cf_uci_score_text(u->value[CF_OPT_SCORE_TYPE], wl, d, q, mate, score, sizeof score);
    wdl_text(u, wl, d, wdl, sizeof wdl);
    cf_move line[CF_AGENT_PV_MAX];
    int len = cf_search_pv(s, m->move, line, CF_AGENT_PV_MAX);
    moves_text(u, line, len, pv, sizeof pv);
    if (multipv > 1) snprintf(mpv, sizeof mpv, " multipv %d", k + 1);
    /* tbhits once tables are loaded (Lc0's place for it: after nps). */
    char tb[32] = "";
    if (cf_syzygy_max_pieces() > 0) snprintf(tb, sizeof tb, " tbhits %ld", info->tb_hits);
    emit(u, "info depth %d seldepth %d time %ld nodes %ld%s score %s%s nps %ld%s hashfull %d pv%s",
         info->depth, info->seldepth, ms, info->visits, mpv, score, wdl, nps, tb, info->hashfull,
         pv);
  }
}

static void on_search_info(void *user, const cf_search *s, const cf_search_info *info) {
  emit_search_info(user, s, info);
}

/* VerboseMoveStats: a line per root move, Lc0's layout, best last. */
static void emit_move_stats(cf_uci *u) {
  cf_search_move_stats stats[CF_MAX_MOVES];
  int n = cf_search_root_stats(u->search, stats, CF_MAX_MOVES);
  const cf_position *pos = cf_game_position(&u->game);
  for (int k = n - 1; k >= 0; k--) {
    const cf_search_move_stats *m = &stats[k];
    char move[CF_UCI_MOVE_MAX], wl[16] = "  -.-----", d[16] = "-.---", ml[16] = " -.-", v[16] = " -.----";
    cf_move_write_uci(m->move, king_takes_rook(u), move);
    int index = cf_policy_move_index(cf_engine_policy_move(m->move), pos->side == CF_BLACK, 0);
    if (m->n > 0) {
      snprintf(wl, sizeof wl, "%8.5f", m->wl);
      snprintf(d, sizeof d, "%5.3f", m->d);
      snprintf(ml, sizeof ml, "%4.1f", m->m);
    }
    if (!isnan(m->v)) snprintf(v, sizeof v, "%7.4f", m->v);
    const char *proof = m->proven == 1 ? " (W)" : m->proven == -1 ? " (L)" : m->proven == 0 ? " (D)" : "";
    emit(u, "info string %-5s (%4d) N: %7u (+%2u) (P: %5.2f%%) (WL: %s) (D: %s) (M: %s) "
            "(Q: %8.5f) (U: %7.5f) (S: %8.5f) (V: %s)%s",
         move, index, m->n, m->in_flight, 100.0 * m->p, wl, d, ml, m->q, m->u, m->q + m->u, v,
         proof);
  }
}

/* The one-ply agents' info line(s): one per MultiPV line in the agent's
 * ranking, each with its own value and the reply the child's policy expects
 * (the best line's reply is the ponder move). Unscored moves carry the
 * root's value, as Lc0 shows unvisited ones. */
static void emit_one_ply_info(cf_uci *u, const cf_agent_result *r, double elapsed) {
  const int multipv = atoi(u->value[CF_OPT_MULTIPV]);
  const long ms = (long)(elapsed * 1000.0);
  const long nps = elapsed > 0 ? (long)((double)r->evals / elapsed) : 0;
  int lines = r->n_moves < multipv ? r->n_moves : multipv;
  if (lines < 1) lines = 1;
  for (int k = 0; k < lines; k++) {
    /* the best line carries the result's own figures (equal to moves[0]'s) */
    const cf_agent_move_stats *m = r->n_moves > 0 ? &r->moves[k] : NULL;
    cf_move line[2] = {k == 0 ? r->best : m->move, k == 0 ? r->ponder : m->reply};
    const float *wdl3 = k == 0 ? r->wdl : m->wdl;
    float q = k == 0 ? r->q : m->q;
    int mate = k == 0 ? r->mate : m->proven == 1;
    float wl = wdl3[0] - wdl3[2];
    char score[48], wdl[48], pv[2 * (CF_UCI_MOVE_MAX + 1) + 1], mpv[24] = "";
    cf_uci_score_text(u->value[CF_OPT_SCORE_TYPE], wl, wdl3[1], q, mate, score, sizeof score);
    wdl_text(u, wl, wdl3[1], wdl, sizeof wdl);
    moves_text(u, line, line[1] != CF_MOVE_NONE ? 2 : 1, pv, sizeof pv);
    if (multipv > 1) snprintf(mpv, sizeof mpv, " multipv %d", k + 1);
    emit(u, "info depth 1 seldepth 1 time %ld nodes %ld%s score %s%s nps %ld pv%s", ms, r->evals,
         mpv, score, wdl, nps, pv);
  }
}

/* VerboseMoveStats for the one-ply agents, in the search's layout, best
 * last: N is 1 for a move the network scored, U and S do not exist here. */
static void emit_one_ply_move_stats(cf_uci *u, const cf_agent_result *r) {
  const cf_position *pos = cf_game_position(&u->game);
  for (int k = r->n_moves - 1; k >= 0; k--) {
    const cf_agent_move_stats *m = &r->moves[k];
    char move[CF_UCI_MOVE_MAX], wl[16] = "  -.-----", d[16] = "-.---", ml[16] = " -.-",
                                q[16] = " -.-----", v[16] = " -.----";
    cf_move_write_uci(m->move, king_takes_rook(u), move);
    int index = cf_policy_move_index(cf_engine_policy_move(m->move), pos->side == CF_BLACK, 0);
    if (m->scored) {
      snprintf(wl, sizeof wl, "%8.5f", m->wdl[0] - m->wdl[2]);
      snprintf(d, sizeof d, "%5.3f", m->wdl[1]);
      snprintf(q, sizeof q, "%8.5f", m->q);
      if (!isnan(m->moves_left)) snprintf(ml, sizeof ml, "%4.1f", m->moves_left);
      if (m->by_net) snprintf(v, sizeof v, "%7.4f", m->q);
    }
    const char *proof = m->proven == 1 ? " (W)" : m->proven == 0 ? " (D)" : "";
    emit(u, "info string %-5s (%4d) N: %7d (+ 0) (P: %5.2f%%) (WL: %s) (D: %s) (M: %s) "
            "(Q: %s) (U: -.-----) (S: -.-----) (V: %s)%s",
         move, index, m->by_net ? 1 : 0, 100.0 * m->p, wl, d, ml, q, v, proof);
  }
}

/* The agent's last info line(s) and VerboseMoveStats: the search's final
 * figures, or the one-ply agents' lines. */
static void emit_final_info(cf_uci *u, const cf_agent_result *r, double elapsed) {
  if (u->agent == &cf_agent_search_desc) {
    /* The final figures, as the search left them. */
    cf_search_info info = {.best = r->best, .q = r->q, .mate = r->mate, .depth = r->depth,
                           .seldepth = r->seldepth, .visits = r->nodes, .playouts = r->playouts,
                           .evals = r->evals, .seconds = elapsed, .hashfull = r->hashfull,
                           .tb_hits = r->tb_hits};
    memcpy(info.wdl, r->wdl, sizeof info.wdl);
    emit_search_info(u, u->search, &info);
    if (option_on(u, CF_OPT_VERBOSE_MOVE_STATS)) emit_move_stats(u);
    return;
  }
  emit_one_ply_info(u, r, elapsed);
  if (option_on(u, CF_OPT_VERBOSE_MOVE_STATS)) emit_one_ply_move_stats(u, r);
}

static void emit_bestmove(cf_uci *u, const cf_agent_result *r) {
  const int chess960 = king_takes_rook(u);
  char move[CF_UCI_MOVE_MAX], ponder[CF_UCI_MOVE_MAX + 8] = "";
  cf_move_write_uci(r->best, chess960, move);
  if (r->ponder != CF_MOVE_NONE) {
    char p[CF_UCI_MOVE_MAX];
    cf_move_write_uci(r->ponder, chess960, p);
    snprintf(ponder, sizeof ponder, " ponder %s", p);
  }
  emit(u, "bestmove %s%s", move, ponder);
}

/* Waits for stop / ponderhit when the search was started held. */
static void wait_release(cf_uci *u) {
  pthread_mutex_lock(&u->mu);
  while (u->hold && !u->released) pthread_cond_wait(&u->cv, &u->mu);
  pthread_mutex_unlock(&u->mu);
}

/* A move without the network (time trouble, or a stop during the load):
 * no tree; the clock's budget is not recorded, so nothing is saved or
 * spent from it. why names the reason in the info string. */
static void play_instant(cf_uci *u, const char *why) {
  const cf_position *pos = cf_game_position(&u->game);
  cf_agent_result r = {.best = cf_instant_move(pos), .ponder = CF_MOVE_NONE};
  char move[CF_UCI_MOVE_MAX];
  cf_move_write_uci(r.best, king_takes_rook(u), move);
  emit(u, "info depth 0 seldepth 0 time %ld nodes 0 pv %s",
       (long)((cf_agent_now() - u->clock_start) * 1000.0), move);
  emit(u, "info string %s: %s played without the network", why, move);
  emit_bestmove(u, &r);
}

static void *search_main(void *arg) {
  cf_uci *u = arg;
  const bool tree = u->agent == &cf_agent_search_desc;
  cf_agent_request req = {
      .net = u->net,
      .game = &u->game,
      .allowed = u->go.searchmoves,
      .n_allowed = u->go.n_searchmoves,
      .max_evals = u->go.nodes > 0 ? u->go.nodes : 0,
      .stop = &u->stop,
      .deadline = u->deadline,
      .policy_temperature = (float)atof(u->value[CF_OPT_POLICY_TEMPERATURE]),
      .depth = u->go.depth > 0 && u->go.depth < 1000 ? (int)u->go.depth : 0,
      .infinite = u->hold,
      .live_deadline = &u->live_deadline,
      .search = tree ? u->search : NULL,
      .on_info = tree ? on_search_info : NULL,
      .info_user = u,
  };
  static const cf_agent_result none = {.best = CF_MOVE_NONE, .ponder = CF_MOVE_NONE};
  cf_agent_result r = none; /* an agent that fails before its first evaluation leaves it */
  cf_error err = {0};
  cf_status st = u->agent->choose(&req, &r, &err);
  double elapsed = cf_agent_now() - u->start;
  /* Under mu: a ponderhit may be setting the clock (a ponder search that
   * ended early, at RamLimitMb, is still waiting for it). */
  pthread_mutex_lock(&u->mu);
  if (tree && u->budget_ms >= 0)
    cf_time_manager_done(&u->tm, u->budget_ms, (cf_agent_now() - u->clock_start) * 1000.0);
  pthread_mutex_unlock(&u->mu);
  /* An agent that failed part way (the network, mid-search) still has its
   * best move so far: the search's, or the root policy's for the one-ply
   * agents. */
  const bool answer = st == CF_OK || r.best != CF_MOVE_NONE;
  /* The result is shown as soon as the work is done, so a GUI analysing
   * with go infinite (or pondering) sees it before it sends stop; only
   * bestmove waits for stop or ponderhit. */
  if (st != CF_OK) emit(u, "info string error: %s", err.msg);
  if (answer) emit_final_info(u, &r, elapsed);
  if (!u->hold) {
    const double answer_ms = (cf_agent_now() - u->clock_start) * 1000.0;
    u->answer_ms = answer_ms > 0.75 * u->answer_ms ? answer_ms : 0.75 * u->answer_ms;
  }
  wait_release(u);
  if (answer) emit_bestmove(u, &r);
  else emit(u, "bestmove 0000");
  return NULL;
}

/* Ends a running search: a held one is stopped (a timed one runs out its
 * time), then joined. */
static void finish_search(cf_uci *u, bool force_stop) {
  if (!u->thread_live) return;
  pthread_mutex_lock(&u->mu);
  if (force_stop || u->hold) {
    atomic_store(&u->stop, true);
    u->released = true;
    pthread_cond_broadcast(&u->cv);
  }
  pthread_mutex_unlock(&u->mu);
  pthread_join(u->thread, NULL);
  u->thread_live = false;
}

void cf_uci_wait(cf_uci *u) {
  pthread_mutex_lock(&u->cmd_mu);
  while (u->loader) pthread_cond_wait(&u->idle_cv, &u->cmd_mu);
  if (u->thread_live) {
    /* The search takes no cmd_mu: joining under it is safe. */
    pthread_join(u->thread, NULL);
    u->thread_live = false;
  }
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

/* ---- network ----------------------------------------------------------- */

/* The backend options the net is created with: BackendOptions, led by
 * lanes=Threads when Threads is above 1 and BackendOptions sets neither
 * lanes nor the backend's own threads (Threads is how Lc0 users ask for
 * more cores; here the network splits each batch across that many
 * sleeping threads, since the agents have no parallel search:
 * net/cf_net_lanes.h). */
static void backend_options(const cf_uci *u, char *out, size_t size) {
  if (!cf_net_options_for_threads(u->value[CF_OPT_BACKEND_OPTIONS], atoi(u->value[CF_OPT_THREADS]),
                                  out, size))
    snprintf(out, size, "%s", u->value[CF_OPT_BACKEND_OPTIONS]);
}

/* Positions per network pass: the search's MinibatchSize when set, else
 * the larger of the engine's batch and the backend's default minibatch. */
static int net_batch(const cf_uci *u) {
  int mb = atoi(u->value[CF_OPT_MINIBATCH_SIZE]);
  if (mb > 0) return mb;
  int def = cf_search_default_minibatch(u->value[CF_OPT_BACKEND]);
  return def > u->max_batch ? def : u->max_batch;
}

static void net_key(const cf_uci *u, char *key, size_t size) {
  char opts[CF_UCI_VALUE_MAX + 32];
  backend_options(u, opts, sizeof opts);
  snprintf(key, size, "%s\n%s\n%s\n%s\n%d", u->value[CF_OPT_WEIGHTS_FILE],
           u->value[CF_OPT_BACKEND], opts, u->value[CF_OPT_HISTORY_FILL], net_batch(u));
}

/* WeightsMaxMb as the loader's limit; a refused file's message names the
 * option and its flag (name is the storage). */
static cf_weights_load_options weights_limit(const cf_uci *u, char *name, size_t size) {
  const cf_uci_option_desc *o = cf_uci_option_at(CF_OPT_WEIGHTS_MAX_MB);
  snprintf(name, size, "%s (--%s)", o->name, o->flag);
  return (cf_weights_load_options){
      .max_decompressed_bytes = (uint64_t)atol(u->value[CF_OPT_WEIGHTS_MAX_MB]) << 20,
      .limit_name = name};
}

/* Whether the loaded net is the one the options ask for. */
static bool net_ready(const cf_uci *u) {
  char key[sizeof u->net_key];
  net_key(u, key, sizeof key);
  return u->net && strcmp(key, u->net_key) == 0;
}

/* What a network load said: the net and its notes, or the error. */
static void report_load(cf_uci *u, const cf_engine_weights_info *info) {
  emit(u, "info string loaded network %s (%d layers, d %d, %d heads, %zu parameters) on %s",
       info->source, info->layers, info->d, info->heads, info->params,
       cf_net_get_info(u->net)->backend);
  /* Fields of the file that were read but are not run (weights/). */
  for (int i = 0; i < info->n_notes; i++) emit(u, "info string warning: %s", info->notes[i]);
  /* Autodiscover's choice: say which newer files it passed over, and why,
   * or a user wonders why the net beside the binary is not the one played. */
  for (int i = 0; i < info->n_skipped; i++) {
    const char *why = info->skipped[i].why;
    if (strstr(why, info->skipped[i].path))
      emit(u, "info string warning: autodiscover skipped %s", why);
    else
      emit(u, "info string warning: autodiscover skipped %s: %s", info->skipped[i].path, why);
  }
  if (info->n_skipped_total > info->n_skipped)
    emit(u, "info string warning: autodiscover skipped %d more files",
         info->n_skipped_total - info->n_skipped);
  if (info->untrained)
    emit(u, "info string warning: this network is untrained (random weights: \"%s\"); its moves "
            "are meaningless. Set WeightsFile (or --weights) to a trained network.",
         info->license);
}

static void record_failure(cf_uci *u, const char *key, const char *msg) {
  snprintf(u->failed_key, sizeof u->failed_key, "%s", key);
  snprintf(u->failed_msg, sizeof u->failed_msg, "%s", msg);
  emit(u, "info string error: %s", msg);
}

static void pump(cf_uci *u);

/* A load ended, on the loader's thread: the net (or the error) is taken
 * and the commands that waited for it run. */
static bool on_loaded(void *user, cf_engine_loader *l) {
  cf_uci *u = user;
  pthread_mutex_lock(&u->cmd_mu);
  if (u->closing || u->loader != l) { /* cf_uci_free releases it */
    pthread_mutex_unlock(&u->cmd_mu);
    return false;
  }
  cf_error err = {0};
  cf_engine_weights_info info;
  if (cf_engine_loader_take(l, &u->net, &info, &err) == CF_OK) {
    snprintf(u->net_key, sizeof u->net_key, "%s", u->loading_key);
    u->failed_key[0] = 0;
    report_load(u, &info);
  } else {
    record_failure(u, u->loading_key, err.msg);
  }
  u->loader = NULL;
  pump(u);
  pthread_cond_broadcast(&u->idle_cv);
  pthread_mutex_unlock(&u->cmd_mu);
  return true;
}

typedef enum { NET_READY, NET_FAILED, NET_LOADING } net_state;

/* Makes the net match the options: ready, failed (the load error is
 * reported once per setting, as isready may come often, until setoption
 * WeightsFile or WeightsMaxMb, or a go, clears failed_key to try again),
 * or loading now: a load was started (or one is under way), and what
 * waits for it runs when it ends (on_loaded). Under cmd_mu. */
static net_state start_load(cf_uci *u) {
  if (u->loader) return NET_LOADING; /* the options are looked at again when it ends */
  char key[sizeof u->net_key];
  net_key(u, key, sizeof key);
  if (u->net && strcmp(key, u->net_key) == 0) return NET_READY;
  if (strcmp(key, u->failed_key) == 0) return NET_FAILED;
  /* One net in memory at a time; no search runs during a load. */
  cf_net_free(u->net);
  u->net = NULL;
  char opts[CF_UCI_VALUE_MAX + 32];
  backend_options(u, opts, sizeof opts);
  char limit_name[128];
  cf_engine_weights_spec spec = {
      .weights = u->value[CF_OPT_WEIGHTS_FILE],
      .search_dirs = (const char *const *)u->search_dirs,
      .net = {.backend = u->value[CF_OPT_BACKEND],
              .backend_options = opts,
              .max_batch = net_batch(u)},
      .load = weights_limit(u, limit_name, sizeof limit_name),
  };
  /* A new network makes the tree and the cached outputs meaningless. */
  cf_search_reset(u->search);
  cf_error err = {0};
  cf_status st = cf_history_fill_parse(u->value[CF_OPT_HISTORY_FILL], &spec.net.history_fill, &err);
  if (st == CF_OK) st = cf_engine_loader_start(&spec, on_loaded, u, &u->loader, &err);
  if (st != CF_OK) {
    record_failure(u, key, err.msg);
    return NET_FAILED;
  }
  snprintf(u->loading_key, sizeof u->loading_key, "%s", key);
  return NET_LOADING;
}

/* The game's ply as Lc0 counts it for the time manager: from the FEN's move
 * number, plus the moves played since. */
static int game_ply(const cf_uci *u) {
  const cf_position *start = &u->game.plies[0].pos;
  int fullmove = start->fullmove > 0 ? start->fullmove : 1;
  return 2 * (fullmove - 1) + (start->side == CF_BLACK) + u->game.count - 1;
}

/* The side to move's clock from `go`. */
static cf_clock go_clock(const cf_uci *u) {
  const bool white = cf_game_position(&u->game)->side == CF_WHITE;
  cf_clock c = {.time_ms = white ? u->go.wtime : u->go.btime,
                .inc_ms = white ? u->go.winc : u->go.binc,
                .movestogo = u->go.movestogo,
                .movetime_ms = u->go.movetime};
  return c;
}

/* This move's time budget in ms, counted from u->clock_start, for every
 * agent: Lc0's time manager, so MoveOverheadMs is kept back from every
 * budget and a clock at 0 or below (or a budget used up by the overhead)
 * gives 0: move now, after the first evaluation. -1 when nothing limits
 * the time (no clock for the side to move and no movetime). Only the
 * search's clocked budgets are recorded in u->budget_ms, so that its
 * unused time is saved for later moves: a one-ply agent finishes early by
 * design and would pile up time it never uses. */
static double move_budget(cf_uci *u) {
  cf_clock clock = go_clock(u);
  double ms;
  if (!cf_time_manager_budget(&u->tm, &clock, game_ply(u), &ms)) return -1;
  if (ms < 0) ms = 0;
  if (clock.time_ms >= 0 && u->agent == &cf_agent_search_desc) u->budget_ms = ms;
  return ms;
}

/* ---- commands ---------------------------------------------------------- */

static void cmd_uci(cf_uci *u, char *args) {
  (void)args;
  emit(u, "id name cformer %s", CF_VERSION);
  emit(u, "id author the cformer authors");
  for (int i = 0; i < CF_OPT_COUNT; i++) {
    char line[2048];
    cf_uci_option_line(cf_uci_option_at((cf_uci_option_id)i), line, sizeof line);
    emit(u, "%s", line);
  }
  emit(u, "uciok");
}

/* Comes after the network load it waited for (pump), so whatever the
 * load had to say is written before readyok. */
static void say_line(void *user, const char *line) { emit(user, "%s", line); }

/* SyzygyPath's tables, when it changed; never under a running search. */
static void syzygy_sync(cf_uci *u) {
  if (u->thread_live) return;
  cf_uci_syzygy_sync(u->value[CF_OPT_SYZYGY_PATH], u->syzygy_loaded, sizeof u->syzygy_loaded,
                     say_line, u);
}

static void cmd_isready(cf_uci *u, char *args) {
  (void)args;
  syzygy_sync(u);
  emit(u, "readyok");
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

static cf_status set_option(cf_uci *u, cf_uci_option_id id, const char *value, cf_error *err);

/* "name <Name> [value <Value>]": both may contain spaces. */
static void cmd_setoption(cf_uci *u, char *args) {
  args = trim(args);
  if (strncasecmp(args, "name", 4) != 0 || (args[4] && !isspace((unsigned char)args[4]))) {
    emit(u, "info string error: setoption: expected 'setoption name <name> [value <value>]'");
    return;
  }
  char *name = args + 4, *value = "";
  for (char *p = name; *p; p++) {
    if (isspace((unsigned char)p[0]) && strncasecmp(p + 1, "value", 5) == 0 &&
        (p[6] == 0 || isspace((unsigned char)p[6]))) {
      *p = 0;
      value = p + 6;
      break;
    }
  }
  name = trim(name);
  value = trim(value);
  cf_uci_option_id id;
  if (!cf_uci_option_by_name(name, &id)) {
    emit(u, "info string error: unknown option '%s'", name);
    return;
  }
  cf_error err = {0};
  if (set_option(u, id, value, &err) != CF_OK) emit(u, "info string error: %s", err.msg);
}

static void cmd_ucinewgame(cf_uci *u, char *args) {
  (void)args;
  cf_error err;
  cf_game g;
  if (cf_game_init(&g, NULL, &err) != CF_OK) {
    emit(u, "info string error: %s", err.msg);
    return;
  }
  cf_game_free(&u->game);
  u->game = g;
  cf_search_reset(u->search);
  cf_time_manager_new_game(&u->tm);
}

/* position startpos|fen <FEN> [moves m1 m2 ...]: builds the new game aside
 * and keeps it only if everything in it is valid. */
static void cmd_position(cf_uci *u, char *args) {
  char *save = NULL, *w = strtok_r(args, " \t", &save);
  char fen[CF_FEN_INPUT_MAX] = "";
  if (w && strcmp(w, "startpos") == 0) {
    snprintf(fen, sizeof fen, "%s", CF_FEN_STARTPOS);
    w = strtok_r(NULL, " \t", &save);
  } else if (w && strcmp(w, "fen") == 0) {
    size_t at = 0;
    for (w = strtok_r(NULL, " \t", &save); w && strcmp(w, "moves") != 0;
         w = strtok_r(NULL, " \t", &save)) {
      size_t n = strlen(w);
      if (at + n + 2 > sizeof fen) {
        emit(u, "info string error: position: FEN too long");
        return;
      }
      if (at) fen[at++] = ' ';
      memcpy(fen + at, w, n + 1);
      at += n;
    }
    if (!at) {
      emit(u, "info string error: position: 'fen' needs a FEN");
      return;
    }
  } else {
    emit(u, "info string error: position: expected 'startpos' or 'fen <FEN>', got '%s'",
         w ? w : "");
    return;
  }
  if (w && strcmp(w, "moves") != 0) {
    emit(u, "info string error: position: expected 'moves', got '%s'", w);
    return;
  }
  cf_game g;
  cf_error err = {0};
  if (cf_game_init_fen(&g, fen, &err) != CF_OK) {
    emit(u, "info string error: position: invalid FEN '%s': %s", fen, err.msg);
    return;
  }
  int ply = 0;
  for (w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    ply++;
    if (cf_game_push_uci(&g, w, &err) != CF_OK) {
      emit(u, "info string error: position: move %d '%s' rejected (%s); position unchanged", ply,
           w, err.msg);
      cf_game_free(&g);
      return;
    }
  }
  cf_game_free(&u->game);
  u->game = g;
}

static void cmd_go(cf_uci *u, char *args) {
  /* When go was read: a network load it waited for counts against it. */
  const double go_at = u->cmd_at;
  char warn[1024];
  cf_uci_go_parse(args, cf_game_position(&u->game), &u->go, warn, sizeof warn);
  if (warn[0]) emit(u, "info string error: go: %s", warn);
  u->hold = u->go.infinite || u->go.ponder;
  u->released = false;
  atomic_store(&u->live_deadline, 0.0);
  atomic_store(&u->stop, false);
  u->agent = cf_agent_find(u->value[CF_OPT_AGENT]);
  cf_game_reason reason;
  cf_game_result result = cf_game_outcome(&u->game, &reason);
  if (result != CF_RESULT_ONGOING &&
      (reason == CF_REASON_CHECKMATE || reason == CF_REASON_STALEMATE)) {
    /* Nothing to search; a GUI still expects a bestmove. */
    emit(u, "info string error: go: no legal moves (%s)", cf_game_reason_name(reason));
    emit(u, "bestmove 0000");
    return;
  }
  /* Stopped while it waited for a network load: it answers now, without
   * the network, rather than after the load. */
  const bool early_stop = u->cmd_stopped;
  if (!early_stop && !net_ready(u)) {
    emit(u, "info string error: go: no network loaded: %s", u->failed_msg);
    emit(u, "bestmove 0000");
    return;
  }
  syzygy_sync(u);
  u->start = cf_agent_now();
  /* The clock started when go was read, so time spent loading the network
   * here counts against the move. A held search (infinite, ponder) has no
   * deadline; ponderhit gives it one. */
  u->clock_start = go_at;
  u->budget_ms = -1;
  const double budget = u->hold ? -1 : move_budget(u);
  u->deadline = budget >= 0 ? go_at + budget / 1000.0 : 0;
  const cf_clock clock = go_clock(u);
  const double waited_ms = (u->start - go_at) * 1000.0;
  const bool time_trouble = !u->hold && clock.time_ms >= 0 &&
                            (double)(clock.time_ms - u->tm.move_overhead_ms) - waited_ms <
                                u->answer_ms;
  if (early_stop || time_trouble) {
    /* Answered here, on the thread that runs the command: the move costs
     * microseconds, while waking a new thread can cost a scheduler slice
     * on a busy machine, and in time trouble every millisecond of the
     * round trip is off the clock. */
    play_instant(u, early_stop ? "stop came during the network load" : "time trouble");
    return;
  }
  if (pthread_create(&u->thread, NULL, search_main, u) != 0) {
    emit(u, "info string error: go: cannot start the search thread");
    emit(u, "bestmove 0000");
    return;
  }
  u->thread_live = true;
}

/* The first go still waiting in the queue (for a network load). */
static pending *queued_go(cf_uci *u) {
  for (pending *p = u->queue; p; p = p->next)
    if (p->is_go && !p->stopped) return p;
  return NULL;
}

static void cmd_stop(cf_uci *u, char *args) {
  (void)args;
  if (!u->thread_live) {
    /* A go waiting for a network load answers at once (pump). */
    pending *p = queued_go(u);
    if (p) p->stopped = true;
    return;
  }
  pthread_mutex_lock(&u->mu);
  atomic_store(&u->stop, true);
  u->released = true;
  pthread_cond_broadcast(&u->cv);
  pthread_mutex_unlock(&u->mu);
}

/* The move to ponder on was played: the agent goes on as a timed one with
 * the time the clock of `go ponder` allows (the time manager's budget,
 * counted from now); with no clock to go by it plays at once. A one-ply
 * agent that finished while pondering answers at once. */
static void cmd_ponderhit(cf_uci *u, char *args) {
  (void)args;
  if (!u->thread_live) {
    /* A go ponder still waiting for a network load becomes a timed go
     * whose clock starts now. */
    pending *p = queued_go(u);
    if (!p) return;
    for (char *w = p->args; (w = strstr(w, "ponder")) != NULL; w += 6)
      if ((w == p->args || isspace((unsigned char)w[-1])) && (!w[6] || isspace((unsigned char)w[6]))) {
        memset(w, ' ', 6);
        p->at = cf_agent_now();
        break;
      }
    return;
  }
  pthread_mutex_lock(&u->mu);
  if (u->go.ponder) {
    const double now = cf_agent_now();
    u->clock_start = now;
    const double budget = move_budget(u);
    if (budget >= 0) atomic_store(&u->live_deadline, now + budget / 1000.0);
    else atomic_store(&u->stop, true);
  }
  u->released = true;
  pthread_cond_broadcast(&u->cv);
  pthread_mutex_unlock(&u->mu);
}

static void cmd_ignore(cf_uci *u, char *args) {
  (void)u;
  (void)args;
}

typedef struct command {
  const char *name;
  void (*run)(cf_uci *u, char *args);
  bool during_search; /* runs alongside a search instead of ending it first */
  bool at_once;       /* runs when read, even while others wait for a load */
  bool needs_net;     /* waits for the network the options name */
} command;

static const command commands[] = {
    {"uci", cmd_uci, true, true, false},
    {"isready", cmd_isready, true, false, true},
    {"setoption", cmd_setoption, false, false, false},
    {"ucinewgame", cmd_ucinewgame, false, false, false},
    {"position", cmd_position, false, false, false},
    {"go", cmd_go, false, false, true},
    {"stop", cmd_stop, true, true, false},
    {"ponderhit", cmd_ponderhit, true, true, false},
    {"debug", cmd_ignore, true, true, false},    /* accepted, no debug output exists */
    {"register", cmd_ignore, true, true, false}, /* nothing to register */
};

/* Whether a go has nothing to search (mate or stalemate): it answers at
 * once, without loading a network. */
static bool go_without_moves(const cf_uci *u) {
  cf_game_reason reason;
  return cf_game_outcome(&u->game, &reason) != CF_RESULT_ONGOING &&
         (reason == CF_REASON_CHECKMATE || reason == CF_REASON_STALEMATE);
}

/* Runs the queue's head if it can run now; false when it waits for a
 * network load. */
static bool run_head(cf_uci *u, pending *p) {
  const command *c = p->cmd;
  const bool go = c->run == cmd_go;
  if (!c->during_search) finish_search(u, false);
  /* isready during a search answers at once (unless a load is under way:
   * a go stopped during it was answered without the network); a go
   * stopped while it waited, or with no move to search, needs no network. */
  const bool wants_net = c->needs_net && !(c->run == cmd_isready && u->thread_live && !u->loader) &&
                         !(go && (p->stopped || go_without_moves(u)));
  if (wants_net) {
    if (go && !p->tried) {
      u->failed_key[0] = 0; /* a failed file is tried again: it may be there now */
      p->tried = true;
    }
    if (start_load(u) == NET_LOADING) return false;
  }
  u->cmd_at = p->at;
  u->cmd_stopped = go && p->stopped;
  c->run(u, p->args);
  u->cmd_stopped = false;
  return true;
}

/* Runs the queued commands, in order, until one must wait for a load.
 * Under cmd_mu. */
static void pump(cf_uci *u) {
  while (u->queue && !u->closing) {
    pending *p = u->queue;
    if (!run_head(u, p)) break;
    u->queue = p->next;
    if (!u->queue) u->queue_tail = NULL;
    free(p);
  }
}

static void drop_queue(cf_uci *u) {
  while (u->queue) {
    pending *p = u->queue;
    u->queue = p->next;
    free(p);
  }
  u->queue_tail = NULL;
}

/* Queues a command (its arguments copied) and runs what can run. */
static void enqueue(cf_uci *u, const command *c, const char *args, double at) {
  size_t n = strlen(args) + 1;
  pending *p = malloc(sizeof *p + n);
  if (!p) {
    emit(u, "info string error: out of memory");
    return;
  }
  *p = (pending){.cmd = c, .at = at, .is_go = c->run == cmd_go};
  memcpy(p->args, args, n);
  if (u->queue_tail) u->queue_tail->next = p;
  else u->queue = p;
  u->queue_tail = p;
  pump(u);
}

bool cf_uci_feed_n(cf_uci *u, const char *line, size_t len) {
  if (!line) len = 0;
  cf_uci_log_line(u->log, CF_UCI_LOG_IN, line, len); /* before its replies */
  const char *nul = len ? memchr(line, 0, len) : NULL;
  if (nul) {
    /* Read as a C string the line would end at the NUL and the rest would
     * be dropped without a word: the whole line is refused instead. */
    emit(u, "info string error: input line has a NUL byte (byte %zu of %zu); line ignored",
         (size_t)(nul - line) + 1, len);
    return true;
  }
  const double at = cf_agent_now();
  char *copy = malloc(len + 1);
  if (!copy) {
    emit(u, "info string error: out of memory");
    return true;
  }
  if (len) memcpy(copy, line, len);
  copy[len] = 0;
  char *s = trim(copy), *args = s;
  while (*args && !isspace((unsigned char)*args)) args++;
  if (*args) *args++ = 0;
  bool go_on = true;
  pthread_mutex_lock(&u->cmd_mu);
  if (!*s) {
    /* empty line */
  } else if (strcmp(s, "quit") == 0) {
    /* Promptly, even during a load: a load about to end (a file refused
     * at once, a small net) may end first, so a script's `isready` then
     * `quit` still gets its readyok; a slower one is let go
     * (cf_uci_free). */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += QUIT_GRACE_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    while (u->loader && pthread_cond_timedwait(&u->idle_cv, &u->cmd_mu, &until) == 0) {
    }
    drop_queue(u);
    finish_search(u, true);
    go_on = false;
  } else {
    size_t i = 0, n = sizeof commands / sizeof commands[0];
    while (i < n && strcmp(s, commands[i].name) != 0) i++;
    if (i == n) {
      /* At most 64 bytes of it; emit escapes what is not clean text. */
      emit(u, "info string error: unknown command '%.64s'", s);
    } else if (commands[i].at_once) {
      if (!commands[i].during_search) finish_search(u, false);
      commands[i].run(u, args);
      pump(u); /* a stopped go that waited answers now */
    } else {
      enqueue(u, &commands[i], args, at);
    }
  }
  /* Without background loading, a load this line started ends before the
   * line is done with (as if the load ran on this thread). */
  while (go_on && !u->background_load && u->loader) pthread_cond_wait(&u->idle_cv, &u->cmd_mu);
  pthread_mutex_unlock(&u->cmd_mu);
  free(copy);
  return go_on;
}

bool cf_uci_feed(cf_uci *u, const char *line) {
  return cf_uci_feed_n(u, line, line ? strlen(line) : 0);
}

/* ---- life cycle -------------------------------------------------------- */

/* The search parameters the options say. */
static void search_params(const cf_uci *u, cf_search_params *p) {
  cf_search_params_default(p);
  p->cpuct = (float)atof(u->value[CF_OPT_CPUCT]);
  p->cpuct_factor = (float)atof(u->value[CF_OPT_CPUCT_FACTOR]);
  p->cpuct_base = (float)atof(u->value[CF_OPT_CPUCT_BASE]);
  p->fpu_absolute = strcmp(u->value[CF_OPT_FPU_STRATEGY], "absolute") == 0;
  p->fpu_value = (float)atof(u->value[CF_OPT_FPU_VALUE]);
  p->policy_temperature = (float)atof(u->value[CF_OPT_POLICY_TEMPERATURE]);
  p->draw_score = (float)atof(u->value[CF_OPT_DRAW_SCORE]);
  p->two_fold_draws = option_on(u, CF_OPT_TWO_FOLD_DRAWS);
  p->minibatch_size = atoi(u->value[CF_OPT_MINIBATCH_SIZE]);
  p->nn_cache_size = atol(u->value[CF_OPT_NN_CACHE_SIZE]);
  p->smart_pruning_factor = (float)atof(u->value[CF_OPT_SMART_PRUNING_FACTOR]);
  p->ram_limit_mb = atol(u->value[CF_OPT_RAM_LIMIT_MB]);
}

/* More threads than cores is allowed (the GUI may know better, or share
 * the machine on purpose), with a word about it. */
static void warn_threads(cf_uci *u) {
  const long threads = atol(u->value[CF_OPT_THREADS]);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores > 0 && threads > cores)
    emit(u, "info string warning: Threads %ld is more than the %ld CPU cores online; the "
            "backend's threads will compete for them", threads, cores);
}

/* LogFile was set: the log switches to it. A file that cannot be opened
 * is not a bad option value (the engine goes on, unlogged): an error line,
 * and the option reads empty, as logging is off. */
static void switch_log(cf_uci *u) {
  cf_error err = {0};
  if (cf_uci_log_open(u->log, u->value[CF_OPT_LOG_FILE], &err) == CF_OK) return;
  u->value[CF_OPT_LOG_FILE][0] = 0;
  emit(u, "info string error: %s; logging is off", err.msg);
}

static cf_status set_option(cf_uci *u, cf_uci_option_id id, const char *value, cf_error *err) {
  const cf_uci_option_desc *o = cf_uci_option_at(id);
  if (!o) return cf_error_set(err, CF_ERR_ARG, "no option %d", (int)id);
  char v[CF_UCI_VALUE_MAX], old[CF_UCI_VALUE_MAX];
  CF_TRY(cf_uci_option_check(o, value, v, err));
  memcpy(old, u->value[id], sizeof old);
  memcpy(u->value[id], v, sizeof v);
  cf_search_params p;
  search_params(u, &p);
  cf_status st = cf_search_set_params(u->search, &p, err);
  if (st != CF_OK) {
    memcpy(u->value[id], old, sizeof old); /* keep the old value */
    return st;
  }
  u->tm.move_overhead_ms = atol(u->value[CF_OPT_MOVE_OVERHEAD]);
  /* Setting WeightsFile (even to the same value: the file may have
   * appeared or been fixed) or the limit tries a failed load again. */
  if (id == CF_OPT_WEIGHTS_FILE || id == CF_OPT_WEIGHTS_MAX_MB) u->failed_key[0] = 0;
  if (id == CF_OPT_THREADS) warn_threads(u);
  if (id == CF_OPT_LOG_FILE) switch_log(u);
  return CF_OK;
}

cf_status cf_uci_set_option(cf_uci *u, cf_uci_option_id id, const char *value, cf_error *err) {
  pthread_mutex_lock(&u->cmd_mu);
  cf_status st = set_option(u, id, value, err);
  pthread_mutex_unlock(&u->cmd_mu);
  return st;
}

const char *cf_uci_get_option(const cf_uci *u, cf_uci_option_id id) {
  return id >= 0 && id < CF_OPT_COUNT ? u->value[id] : NULL;
}

cf_status cf_uci_create(const cf_uci_config *cfg, cf_uci_write_fn write, void *user,
                        cf_uci **out, cf_error *err) {
  *out = NULL;
  cf_uci *u = calloc(1, sizeof *u);
  if (!u) return cf_error_set(err, CF_ERR_NOMEM, "uci: out of memory");
  u->write = write;
  u->user = user;
  u->max_batch = cfg && cfg->max_batch > 0 ? cfg->max_batch : DEFAULT_MAX_BATCH;
  u->background_load = cfg && cfg->background_load;
  pthread_mutex_init(&u->cmd_mu, NULL);
  pthread_cond_init(&u->idle_cv, NULL);
  for (int i = 0; cfg && cfg->search_dirs && cfg->search_dirs[i] && i < MAX_SEARCH_DIRS; i++) {
    u->search_dirs[i] = strdup(cfg->search_dirs[i]);
    if (!u->search_dirs[i]) {
      cf_uci_free(u);
      return cf_error_set(err, CF_ERR_NOMEM, "uci: out of memory");
    }
  }
  for (int i = 0; i < CF_OPT_COUNT; i++)
    snprintf(u->value[i], CF_UCI_VALUE_MAX, "%s", cf_uci_option_at((cf_uci_option_id)i)->def);
  pthread_mutex_init(&u->out_mu, NULL);
  pthread_mutex_init(&u->mu, NULL);
  pthread_cond_init(&u->cv, NULL);
  atomic_init(&u->stop, false);
  if (cf_uci_log_create(&u->log, err) != CF_OK) {
    cf_uci_free(u);
    return err ? err->status : CF_ERR_NOMEM;
  }
  cf_search_params p;
  search_params(u, &p);
  cf_status st = cf_search_create(&p, &u->search, err);
  if (st != CF_OK) {
    cf_uci_free(u);
    return st;
  }
  cf_time_manager_init(&u->tm, atol(u->value[CF_OPT_MOVE_OVERHEAD]));
  st = cf_game_init(&u->game, NULL, err);
  if (st != CF_OK) {
    cf_uci_free(u);
    return st;
  }
  *out = u;
  return CF_OK;
}

void cf_uci_free(cf_uci *u) {
  if (!u) return;
  /* A load under way is let go, not waited for (quit must be prompt): it
   * finishes on its own thread and frees what it built. */
  pthread_mutex_lock(&u->cmd_mu);
  u->closing = true;
  cf_engine_loader *l = u->loader;
  u->loader = NULL;
  drop_queue(u);
  pthread_mutex_unlock(&u->cmd_mu);
  cf_engine_loader_release(l); /* not under cmd_mu: a load ending now takes it */
  finish_search(u, true);
  /* The Syzygy tables are the process's (one prober) and stay loaded: the
   * next SyzygyPath replaces them. (Unloading here would also print a
   * spurious "munmap:" line per table: Fathom reports a successful unmap
   * as an error.) */
  cf_net_free(u->net);
  cf_search_free(u->search);
  cf_game_free(&u->game);
  cf_uci_log_free(u->log);
  for (int i = 0; i < MAX_SEARCH_DIRS; i++) free(u->search_dirs[i]);
  pthread_mutex_destroy(&u->out_mu);
  pthread_mutex_destroy(&u->cmd_mu);
  pthread_cond_destroy(&u->idle_cv);
  pthread_mutex_destroy(&u->mu);
  pthread_cond_destroy(&u->cv);
  free(u);
}
