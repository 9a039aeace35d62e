/* cf_uci_state.h: the responder's state, which the files of the UCI room
 * share (not for use outside engine/uci/). Each part names the file that
 * owns it: that file changes it and resets it; each file's entry points are
 * in its own header.
 *
 *   cf_uci.c          core: create/free, options, feeding a line, quit
 *   cf_uci_commands.c the commands (uci, isready, setoption, position, go, ...)
 *   cf_uci_queue.c    commands waiting for a network load, run in order
 *   cf_uci_load.c     the network load: the key, start, take, report
 *   cf_uci_search.c   the search worker thread
 *   cf_uci_clock.c    the move's clock: budget, game ply, time trouble
 *   cf_uci_options.c  the option table, the values and setting one
 *   cf_uci_info.c     info and bestmove lines
 *
 * Locks: cmd_mu is held while a command runs (on the input thread, or on
 * the loader's when a load ends); mu guards the search's hold/release and
 * clock against stop/ponderhit; out_mu orders the lines written. */
#ifndef CF_UCI_STATE_H
#define CF_UCI_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "chess/cf_game.h"
#include "common/cf_kv.h"
#include "engine/cf_agent.h"
#include "engine/cf_engine_loader.h"
#include "engine/search/cf_search.h"
#include "engine/search/cf_time_manager.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_go.h"
#include "engine/uci/cf_uci_log.h"

#define CF_UCI_MAX_SEARCH_DIRS 16
#define CF_UCI_NET_KEY_MAX (5 * CF_UCI_VALUE_MAX)
#define CF_UCI_HELD_MAX 8
/* The precision the engine runs its network in when BackendOptions names
 * none (docs/PRECISION.md "precision=auto"). */
#define CF_UCI_DEFAULT_PRECISION "auto"

/* The clock of every agent's move (cf_uci_clock.c owns it): Lc0's time
 * manager, this move's budget and deadline, and what an answer costs. */
typedef struct cf_uci_clock {
  cf_time_manager tm;
  double budget_ms; /* a clock budget whose unused part is saved; < 0: none */
  double start;     /* when this move's clock started (go was read, or ponderhit) */
  double deadline;  /* when the agent must stop; 0 = no deadline */
  _Atomic double live_deadline; /* set by ponderhit: the pondering agent's deadline */
  /* Time trouble: when the clock, less MoveOverheadMs, cannot pay for one
   * more answer from the network, the move is made without it
   * (cf_instant_move.h). answer_ms is the cost of a network answer as
   * measured here (go to bestmove), a decaying maximum so that one slow
   * answer is remembered for a few moves. */
  double answer_ms;
  /* A positive budget owes the search one minibatch (cf_search_limits);
   * the warning that MoveOverheadMs was cut to half a budget is given once
   * a game (until ucinewgame). */
  bool one_minibatch;
  bool overhead_warned;
} cf_uci_clock;

/* What the options set before the first command had to say (a warning
 * about Threads, a log file that cannot be opened): held until the first
 * command, and after uciok when that is uci, so that a GUI reads id and
 * the options first (cf_uci_note; cf_uci_info.c owns it). */
typedef struct cf_uci_notes {
  bool greeted;
  char held[CF_UCI_HELD_MAX][512];
  int n_held;
  int dropped; /* lines past CF_UCI_HELD_MAX */
} cf_uci_notes;

typedef struct cf_uci_command {
  const char *name;
  void (*run)(cf_uci *u, char *args);
  bool during_search; /* runs alongside a search instead of ending it first */
  bool at_once;       /* runs when read, even while others wait for a load */
  bool needs_net;     /* waits for the network the options name */
  bool is_go;         /* go: stop and ponderhit reach it while it waits */
  bool ready_check;   /* isready: answered at once during a search */
} cf_uci_command;

/* A command that came in and has not run yet: commands run in the order
 * they came, and isready and go wait at the head while a network loads. */
typedef struct cf_uci_pending {
  struct cf_uci_pending *next;
  const cf_uci_command *cmd;
  double at;      /* when it was read: a go's clock starts here */
  bool tried;     /* a go cleared the failed load once already */
  bool stopped;   /* a go that stop (or quit) came for while it waited */
  bool ponder;    /* a go ponder (cf_uci_go_ponders) */
  bool ponderhit; /* ponderhit came while it waited: a timed go from `at` */
  char args[];
} cf_uci_pending;

/* How the running command came: when it was read, and what happened to it
 * while it waited in the queue. */
typedef struct cf_uci_cmd_state {
  double at;
  bool stopped;   /* a go stopped while it waited */
  bool ponderhit; /* a go ponder whose ponderhit came while it waited */
} cf_uci_cmd_state;

struct cf_uci {
  cf_uci_write_fn write;
  void *user;
  bool say_at_search;  /* cf_uci_config.say_at_search */
  cf_uci_notes said;   /* what cf_uci_say holds until the next go (under out_mu) */
  pthread_mutex_t out_mu; /* one line at a time */
  cf_uci_value opt[CF_OPT_COUNT]; /* parsed once, when set */
  char *search_dirs[CF_UCI_MAX_SEARCH_DIRS + 1];
  int max_batch;

  cf_game game; /* the position set by `position` (start position until then) */

  /* The network and what it was built from (weights, backend, options). */
  cf_net *net;
  char net_key[CF_UCI_NET_KEY_MAX];
  char failed_key[CF_UCI_NET_KEY_MAX]; /* the last key that failed to load */
  char failed_msg[CF_ERROR_MSG_MAX];
  /* BackendOptions parsed once, when it is set (cf_uci_load.c owns it):
   * the list every net key and load starts from; NULL, with
   * backend_kv_err saying why, when the text does not parse (the load
   * reports it; the option keeps its value). */
  cf_kv *backend_kv;
  cf_error backend_kv_err;
  /* The note that MovesLeft* options do nothing on a network without a
   * moves-left head was given (once a process). */
  bool moves_left_said;

  /* Loading runs on a thread of its own (cf_engine_loader.h), so the
   * input is read meanwhile; commands that must wait for it are queued. */
  pthread_mutex_t cmd_mu;
  pthread_cond_t idle_cv; /* a load ended */
  cf_engine_loader *loader; /* the load under way; NULL when none */
  char loading_key[CF_UCI_NET_KEY_MAX];
  bool background_load; /* cf_uci_config: feed returns during a load */
  bool closing;         /* cf_uci_free began: a load that ends is dropped */
  long quit_wait_ms;    /* cf_uci_config */
  cf_uci_pending *queue, *queue_tail;
  cf_uci_cmd_state cmd; /* the running command's */

  /* The search runs on the engine's one worker thread, made at the first
   * go and ended by cf_uci_free (starting a thread per go cost more than a
   * short search). The worker owns game, net and go while a search runs;
   * the feeding thread touches only the fields under mu and the stop flag.
   * search_live: a search was started and not yet waited for (read and
   * written by the feeding side only). */
  pthread_t worker;
  bool worker_live;  /* the worker thread exists */
  bool search_live;
  bool job_posted;   /* under mu: a search to run, or running; cleared when done */
  bool worker_quit;  /* under mu: cf_uci_free ends the worker */
  pthread_cond_t job_cv;  /* under mu: a job was posted, or quit */
  pthread_cond_t done_cv; /* under mu: a job is done */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool hold;      /* infinite / ponder: bestmove waits for release */
  bool released;  /* stop or ponderhit came */
  /* cf_uci_config.inline_search: searches run in the feeding call; a held
   * one's answer waits in answer/answer_ok until its release (search_live
   * is true until then). */
  bool inline_search;
  void (*poll)(void *user); /* cf_uci_config.poll (inline_search only) */
  void *poll_user;
  bool answer_ok;
  cf_agent_result answer;
  atomic_bool stop;
  cf_uci_go go;
  /* CF_REASON_CHECKMATE or CF_REASON_STALEMATE when go's root has no legal
   * move: the "search" reports the game's result and answers no move
   * (cmd_go sets it; cf_uci_search.c reads it); else CF_REASON_NONE. */
  cf_game_reason game_over;
  const cf_agent_desc *agent;
  double start;    /* when the agent started (after any network load): info's time */

  /* The state kept across moves (tree, NN cache) for agents that keep it. */
  cf_search *search;
  cf_uci_clock clock; /* cf_uci_clock.c */

  cf_uci_log *log; /* LogFile: every line in and out (cf_uci_log.h) */

  cf_uci_notes notes; /* cf_uci_info.c */

  uint64_t rng; /* the temperature's draws (Seed) */
  char syzygy_loaded[CF_UCI_VALUE_MAX]; /* the SyzygyPath last loaded (cf_uci_syzygy.h) */
};

#endif /* CF_UCI_STATE_H */
