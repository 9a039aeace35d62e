/* cf_uci_commands.c: what each UCI command does (uci, isready, setoption,
 * ucinewgame, position, go, stop, ponderhit) and the table that names them
 * with when they may run (during a search, while others wait for a load,
 * after the network). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/cf_clock.h"
#include "chess/cf_fen.h"
#include "engine/uci/cf_uci_clock.h"
#include "engine/uci/cf_uci_commands.h"
#include "engine/uci/cf_uci_ignored.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_load.h"
#include "engine/uci/cf_uci_queue.h"
#include "engine/uci/cf_uci_search.h"
#include "engine/uci/cf_uci_syzygy.h"
#include "engine/uci/cf_uci_text.h"

static void cmd_uci(cf_uci *u, char *args) {
  (void)args;
  cf_uci_emit(u, "id name cformer %s", CF_VERSION);
  cf_uci_emit(u, "id author the cformer authors");
  for (int i = 0; i < CF_OPT_COUNT; i++) {
    char line[2048];
    cf_uci_option_line(cf_uci_option_at((cf_uci_option_id)i), line, sizeof line);
    cf_uci_emit(u, "%s", line);
  }
  cf_uci_emit(u, "uciok");
  cf_uci_release_held(u); /* the setup's warnings, after uciok */
}

/* Comes after the network load it waited for (cf_uci_pump), so whatever the
 * load had to say is written before readyok. */
static void say_line(void *user, const char *line) { cf_uci_say(user, "%s", line); }

/* SyzygyPath's tables, when it changed; never under a running search. */
static void syzygy_sync(cf_uci *u) {
  if (u->search_live) return;
  cf_uci_syzygy_sync(u->opt[CF_OPT_SYZYGY_PATH].text, u->syzygy_loaded, sizeof u->syzygy_loaded,
                     say_line, u);
}

static void cmd_isready(cf_uci *u, char *args) {
  (void)args;
  syzygy_sync(u);
  cf_uci_emit(u, "readyok");
}

/* "name <Name> [value <Value>]": both may contain spaces. */
static void cmd_setoption(cf_uci *u, char *args) {
  args = cf_uci_trim(args);
  if (strncasecmp(args, "name", 4) != 0 || (args[4] && !isspace((unsigned char)args[4]))) {
    cf_uci_emit(u, "info string error: setoption: expected 'setoption name <name> [value <value>]'");
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
  name = cf_uci_trim(name);
  value = cf_uci_trim(value);
  cf_uci_option_id id;
  cf_error err = {0};
  const cf_uci_option_desc *ignored = cf_uci_ignored_by_name(name);
  if (ignored) { /* Lc0's thread tuning: taken, said to be ignored */
    if (cf_uci_set_ignored(u, ignored, value, &err) != CF_OK) cf_uci_emit(u, "info string error: %s", err.msg);
    return;
  }
  if (!cf_uci_option_by_name(name, &id)) {
    cf_uci_emit(u, "info string error: unknown option '%s'", name);
    return;
  }
  if (cf_uci_set_option_locked(u, id, value, &err) != CF_OK) cf_uci_emit(u, "info string error: %s", err.msg);
}

static void cmd_ucinewgame(cf_uci *u, char *args) {
  (void)args;
  cf_error err;
  cf_game g;
  if (cf_game_init(&g, NULL, &err) != CF_OK) {
    cf_uci_emit(u, "info string error: %s", err.msg);
    return;
  }
  cf_game_free(&u->game);
  u->game = g;
  cf_search_reset(u->search);
  cf_uci_clock_new_game(u);
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
        cf_uci_emit(u, "info string error: position: FEN too long");
        return;
      }
      if (at) fen[at++] = ' ';
      memcpy(fen + at, w, n + 1);
      at += n;
    }
    if (!at) {
      cf_uci_emit(u, "info string error: position: 'fen' needs a FEN");
      return;
    }
  } else {
    cf_uci_emit(u, "info string error: position: expected 'startpos' or 'fen <FEN>', got '%s'",
         w ? w : "");
    return;
  }
  if (w && strcmp(w, "moves") != 0) {
    cf_uci_emit(u, "info string error: position: expected 'moves', got '%s'", w);
    return;
  }
  cf_game g;
  cf_error err = {0};
  if (cf_game_init_fen(&g, fen, &err) != CF_OK) {
    cf_uci_emit(u, "info string error: position: invalid FEN '%s': %s", fen, err.msg);
    return;
  }
  int ply = 0;
  for (w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    ply++;
    if (cf_game_push_uci(&g, w, &err) != CF_OK) {
      cf_uci_emit(u, "info string error: position: move %d '%s' rejected (%s); position unchanged", ply,
           w, err.msg);
      cf_game_free(&g);
      return;
    }
  }
  cf_game_free(&u->game);
  u->game = g;
}

/* go's search on the worker; without a thread, an answer all the same. */
static void start_search(cf_uci *u) {
  if (cf_uci_start_search(u)) return;
  cf_uci_emit(u, "info string error: go: cannot start the search thread");
  cf_uci_emit(u, "bestmove 0000");
}

static void cmd_go(cf_uci *u, char *args) {
  /* When go was read: a network load it waited for counts against it. */
  const double go_at = u->cmd.at;
  cf_uci_release_said(u); /* what the loads and tables said since the last go */
  char warn[1024];
  cf_uci_go_parse(args, cf_game_position(&u->game), &u->go, warn, sizeof warn);
  if (warn[0]) cf_uci_emit(u, "info string error: go: %s", warn);
  /* ponderhit came while it waited: a timed go, its clock from then. */
  if (u->cmd.ponderhit) u->go.ponder = false;
  u->hold = u->go.infinite || u->go.ponder;
  u->released = false;
  atomic_store(&u->stop, false);
  u->agent = cf_agent_find(u->opt[CF_OPT_AGENT].text);
  /* Checkmate or stalemate: no network, no clock, nothing to search. The
   * game's result is the answer (a GUI analysing a finished game wants its
   * score), given on the worker as a search's is, so that a held go
   * (infinite, ponder) writes bestmove only after stop or ponderhit. */
  if (cf_uci_root_over(u, &u->game_over)) {
    if (u->cmd.stopped) u->released = true; /* its stop came while it waited */
    u->start = cf_clock_now();
    start_search(u);
    return;
  }
  /* Stopped while it waited in the queue. With the network loaded (the
   * load it waited behind has ended) it searches as a go with a stop right
   * behind it does: the root's evaluation, then the stop. While the load is
   * still under way it answers now, without the network, rather than after
   * the load. */
  const bool stop_at_once = u->cmd.stopped && cf_uci_net_ready(u);
  const bool early_stop = u->cmd.stopped && !stop_at_once;
  if (!early_stop && !cf_uci_net_ready(u)) {
    cf_uci_emit(u, "info string error: go: no network loaded: %s", u->failed_msg);
    cf_uci_emit(u, "bestmove 0000");
    return;
  }
  syzygy_sync(u);
  cf_uci_moves_left_note(u);
  u->start = cf_clock_now();
  /* The clock started when go was read, so time spent loading the network
   * here counts against the move. A held search (infinite, ponder) has no
   * deadline; ponderhit gives it one. */
  const bool time_trouble = cf_uci_clock_start(u, go_at, early_stop);
  if (early_stop || time_trouble) {
    /* Answered here, on the thread that runs the command: the move costs
     * microseconds, while waking the search thread can cost a scheduler slice
     * on a busy machine, and in time trouble every millisecond of the
     * round trip is off the clock. */
    cf_uci_play_instant(u, early_stop ? "stop came during the network load" : "time trouble");
    return;
  }
  if (stop_at_once) {
    atomic_store(&u->stop, true);
    u->released = true; /* a held go's stop has come too */
  }
  start_search(u);
}

static void cmd_stop(cf_uci *u, char *args) {
  (void)args;
  if (!u->search_live) {
    /* A go waiting for a network load answers at once (cf_uci_pump). */
    cf_uci_pending *p = cf_uci_queued_go(u);
    if (p) p->stopped = true;
    return;
  }
  pthread_mutex_lock(&u->mu);
  atomic_store(&u->stop, true);
  u->released = true;
  pthread_cond_broadcast(&u->cv);
  pthread_mutex_unlock(&u->mu);
  cf_uci_released(u);
}

/* The move to ponder on was played: the agent goes on as a timed one with
 * the time the clock of `go ponder` allows (the time manager's budget,
 * counted from now); with no clock to go by it plays at once. A one-ply
 * agent that finished while pondering answers at once. */
static void cmd_ponderhit(cf_uci *u, char *args) {
  (void)args;
  if (!u->search_live) {
    /* A go ponder still waiting for a network load becomes a timed go
     * whose clock starts now (cmd_go reads the flag). */
    cf_uci_pending *p = cf_uci_queued_go(u);
    if (p && p->ponder && !p->ponderhit) {
      p->ponderhit = true;
      p->at = cf_clock_now();
    }
    return;
  }
  pthread_mutex_lock(&u->mu);
  if (u->go.ponder) {
    const double now = cf_clock_now();
    u->clock.start = now;
    const double budget = cf_uci_move_budget(u);
    if (budget >= 0) atomic_store(&u->clock.live_deadline, now + budget / 1000.0);
    else atomic_store(&u->stop, true);
  }
  u->released = true;
  pthread_cond_broadcast(&u->cv);
  pthread_mutex_unlock(&u->mu);
  cf_uci_released(u);
}

static void cmd_ignore(cf_uci *u, char *args) {
  (void)u;
  (void)args;
}

/* quit is not here: it ends the feeding (cf_uci.c). */
static const cf_uci_command commands[] = {
    {.name = "uci", .run = cmd_uci, .during_search = true, .at_once = true},
    {.name = "isready", .run = cmd_isready, .during_search = true, .needs_net = true, .ready_check = true},
    {.name = "setoption", .run = cmd_setoption},
    {.name = "ucinewgame", .run = cmd_ucinewgame},
    {.name = "position", .run = cmd_position},
    {.name = "go", .run = cmd_go, .needs_net = true, .is_go = true},
    {.name = "stop", .run = cmd_stop, .during_search = true, .at_once = true},
    {.name = "ponderhit", .run = cmd_ponderhit, .during_search = true, .at_once = true},
    {.name = "debug", .run = cmd_ignore, .during_search = true, .at_once = true},    /* no debug output exists */
    {.name = "register", .run = cmd_ignore, .during_search = true, .at_once = true}, /* nothing to register */
};

const cf_uci_command *cf_uci_command_find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

void cf_uci_commands_reset(cf_uci *u) { u->syzygy_loaded[0] = 0; }
