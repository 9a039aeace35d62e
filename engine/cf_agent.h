/* cf_agent.h: agents choose a move for the current position of a game with
 * the network. They are one-shot (no tree): `policy` plays the move with the
 * highest policy logit after one evaluation; `value` evaluates every legal
 * child position and plays the move whose child is best for us.
 *
 *     const cf_agent_desc *a = cf_agent_find("value");
 *     cf_agent_request req = {.net = net, .game = &game, .stop = &stop_flag};
 *     cf_agent_result res;
 *     if (a->choose(&req, &res, &err) != CF_OK) ...;
 *     res.best, res.q, res.wdl, res.evals ...
 *
 * Agents are listed once in the registry (cf_agent_registry.c); the UCI
 * option `Agent` and `cformer bench` take their names from it. */
#ifndef CF_AGENT_H
#define CF_AGENT_H

#include <stdatomic.h>
#include <stdbool.h>

#include "chess/cf_game.h"
#include "chess/cf_move.h"
#include "common/cf_clock.h"
#include "common/cf_status.h"
#include "engine/search/cf_search.h"
#include "net/cf_net.h"

typedef struct cf_agent_request {
  cf_net *net;   /* the network (not used from two threads at once) */
  cf_game *game; /* the game; the current position is to move. Agents may
                    push and pop moves but leave it as they found it. */
  /* Candidate moves (UCI searchmoves); NULL or n_allowed == 0: all legal
   * moves. Moves not legal here are ignored. */
  const cf_move *allowed;
  int n_allowed;
  /* Most network position evaluations to spend (UCI `go nodes`); 0 = no
   * limit. The first evaluation (the root's policy) is always made. */
  long max_evals;
  /* Set by another thread to stop early (UCI `stop`, a deadline); NULL =
   * never. A stopped agent still returns the best move found so far. */
  const atomic_bool *stop;
  /* Stop once cf_clock_now() passes this (seconds); 0 = no deadline. */
  double deadline;
  float policy_temperature; /* softmax temperature for the reported policy; 0 = 1 */
  /* The search agent: stop when the average depth reaches this (0 = no
   * limit); `infinite` (go infinite / ponder) keeps it searching until
   * stopped; `search` carries its tree and NN cache between moves (NULL =
   * a fresh one per call); on_info receives progress (NULL = none). The
   * one-ply agents ignore these, except live_deadline, which the value
   * agent honours as a deadline once it is set. */
  int depth;
  bool infinite;
  const _Atomic double *live_deadline; /* see cf_search_limits */
  bool one_minibatch; /* a positive time budget: see cf_search_limits */
  /* `go mate N` (the search agent): stop at a proven mate in N or fewer;
   * alone, with no other limit, it searches until then (or stop), as Lc0. */
  int mate;
  /* UCI `go infinite` itself (not ponder): the search agent's contempt
   * favours nobody under ContemptMode play (cf_search_limits). */
  bool go_infinite;
  cf_search *search;
  cf_search_info_fn on_info;
  void *info_user;
  /* See cf_search_limits.poll: called between batches (the search and
   * value agents); NULL = none. */
  void (*poll)(void *user);
  void *poll_user;
} cf_agent_request;

/* Longest principal variation an agent reports. */
#define CF_AGENT_PV_MAX 64

/* A one-ply agent's view of one candidate move, for MultiPV and
 * VerboseMoveStats. All values from the mover's side. */
typedef struct cf_agent_move_stats {
  cf_move move;
  cf_move reply;   /* the child's top policy move (value agent); CF_MOVE_NONE if unknown */
  float p;         /* prior: softmax(logit / temperature) over the candidates */
  bool scored;     /* given a value of its own; otherwise q and wdl are the root's */
  bool by_net;     /* scored by the network (false: the game ends there) */
  int proven;      /* the game ends after the move: 1 we win, 0 draw; -2 not proven */
  float q, wdl[3];
  float moves_left; /* plies left after the move (the child's head); NAN if unknown */
} cf_agent_move_stats;

typedef struct cf_agent_result {
  cf_move best;     /* CF_MOVE_NONE when the position has no legal move */
  cf_move ponder;   /* the reply expected after best (value agent: the top policy move
                       of best's child); CF_MOVE_NONE when not known */
  float q;          /* expected score of best from the mover's view, -1..1 */
  float wdl[3];     /* win, draw, loss of best from the mover's view */
  int mate;         /* > 0: best mates in this many of our moves; 0 = none known */
  float policy;     /* softmax probability of best at the root */
  long evals;       /* network position evaluations spent */
  int n_legal;      /* candidate moves considered */
  int n_scored;     /* candidates given a value (value agent: evaluated or terminal) */
  bool stopped;     /* the stop flag or max_evals cut the work short */
  /* Tree search figures (0 for the one-ply agents): root visits, average
   * and maximum depth, NN cache fill (per mille), and the principal
   * variation starting with best. playouts: visits this search added. */
  long nodes, playouts;
  int depth, seldepth, hashfull;
  float root_q, root_wdl[3]; /* the root's own value (all its visits): shown for unvisited moves */
  float root_m;              /* the root's moves left (plies), NAN if unknown */
  long tb_hits; /* Syzygy probes that answered (search agent) */
  cf_move pv[CF_AGENT_PV_MAX];
  int pv_len;
  /* The one-ply agents' candidates in the order they rank them, best first
   * (moves[0].move == best): policy by prior; value by score, then unscored
   * ones by prior. The search leaves n_moves 0 (cf_search_root_stats). */
  int n_moves;
  cf_agent_move_stats moves[CF_MAX_MOVES];
} cf_agent_result;

/* What an agent is, so that callers ask it instead of comparing
 * descriptor pointers (cf_agent_desc.caps; a new agent sets what holds). */
typedef enum cf_agent_cap {
  /* Builds a search tree: max_evals and depth bound the tree, progress comes
   * through on_info and the final figures from the tree (nodes, pv,
   * cf_search_root_stats); without it, the agent looks one ply deep and
   * fills cf_agent_result.moves. */
  CF_AGENT_BUILDS_TREE = 1u << 0,
  /* Keeps state across moves in cf_agent_request.search (its tree and NN
   * cache); a caller that has one passes it. */
  CF_AGENT_KEEPS_STATE = 1u << 1,
  /* Spends the clock budget it is given (it searches until the deadline),
   * so the part of a budget it leaves unused is worth saving for later
   * moves; an agent without it finishes early by design. */
  CF_AGENT_USES_CLOCK_BUDGET = 1u << 2,
} cf_agent_cap;

typedef struct cf_agent_desc {
  const char *name;
  const char *summary;
  unsigned caps; /* cf_agent_cap flags */
  cf_status (*choose)(const cf_agent_request *req, cf_agent_result *out, cf_error *err);
} cf_agent_desc;

/* The registry. cf_agent_find returns NULL for an unknown name. */
int cf_agent_count(void);
const cf_agent_desc *cf_agent_at(int i);
const cf_agent_desc *cf_agent_find(const char *name);

/* Whether the agent has every capability in caps (cf_agent_cap). */
static inline bool cf_agent_has(const cf_agent_desc *a, unsigned caps) {
  return a && (a->caps & caps) == caps;
}

/* The agent the engine uses unless told otherwise. */
#define CF_AGENT_DEFAULT "search"

extern const cf_agent_desc cf_agent_policy_desc;
extern const cf_agent_desc cf_agent_value_desc;
extern const cf_agent_desc cf_agent_search_desc;

#endif /* CF_AGENT_H */
