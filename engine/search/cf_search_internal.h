/* cf_search_internal.h: the tree, the search state and what the search's
 * files share. Internal to engine/search/.
 *
 * Perspective: a node's values (wl, d, m, proven) are from the side that
 * made the move INTO the node, i.e. the side to move at its parent. So the
 * parent reads a child's wl directly as the Q of that move, and every step
 * up the tree flips the sign of wl. */
#ifndef CF_SEARCH_INTERNAL_H
#define CF_SEARCH_INTERNAL_H

#include <math.h>

#include "engine/search/cf_nn_cache.h"
#include "engine/search/cf_search.h"
#include "engine/search/cf_search_stats.h"
#include "engine/search/cf_search_wdl.h"
#include "net/cf_net.h"
#include "net/cf_net_stream.h"

#define CF_UNPROVEN 2

enum {
  CF_NODE_TERMINAL = 1, /* the game is over here (mate, draw by rule) */
  CF_NODE_TWOFOLD = 2,  /* a draw because the position repeats inside the tree */
  CF_NODE_TABLEBASE = 4, /* scored by the Syzygy tables (cf_search_tablebase.c) */
};

/* A tablebase win or loss is proven at this many plies plus the moves-left
 * estimate, so that its mate score reads as Lc0 prints one (mate 101 and
 * up) and a real mate always ranks before it. */
#define CF_TB_PROOF_PLIES 200

typedef struct cf_snode cf_snode;

typedef struct cf_sedge {
  cf_move move;
  float p;         /* prior */
  cf_snode *child; /* NULL until first visited */
} cf_sedge;

struct cf_snode {
  cf_snode *parent;  /* NULL at the root */
  cf_sedge *edges;   /* n_edges, NULL until the node is expanded */
  double wl;         /* mean of W - L over the visits */
  float d, m;        /* mean draw probability and moves left (plies) */
  float v;           /* the network's own W - L for this node, NAN if never evaluated */
  uint32_t n;        /* completed visits */
  /* Visits on their way to the network in this batch, and those its
   * collisions stand for (cf_search_gather.c): they steer the batch's next
   * walks like visits, and go when it ends. */
  uint32_t in_flight;
  uint16_t n_edges;
  uint16_t edge_index;  /* index of the edge that leads here from the parent */
  int8_t proven;        /* +1 won, 0 drawn, -1 lost, CF_UNPROVEN */
  uint8_t flags;        /* CF_NODE_* */
  int16_t proven_plies; /* plies from here to the end when proven */
};

/* Nodes come from slabs; freed nodes go to a free list. */
typedef struct cf_node_pool {
  cf_snode **slabs;
  int n_slabs, cap_slabs;
  int used_in_last; /* nodes handed out from the newest slab */
  cf_snode *free_list; /* linked through ->parent */
  long live;        /* nodes handed out and not freed */
  size_t bytes;     /* slabs + edge arrays */
} cf_node_pool;

/* A collision of the current batch: the node a walk ended on, already
 * waiting, and the visits in flight it added to each node of its path
 * from `marked` (the node, or with LcZeroGather its parent) up. */
typedef struct cf_collision {
  cf_snode *node;
  uint32_t visits;
  cf_snode *marked;
} cf_collision;

/* One leaf waiting for the network in the current batch, or a position
 * prefetched for the NN cache alone (MaxPrefetch: node NULL). */
typedef struct cf_leaf {
  cf_snode *node;
  uint64_t key; /* NN cache key */
  int n_moves;
  cf_move moves[CF_MAX_MOVES];
  cf_policy_move policy_moves[CF_MAX_MOVES];
  float logits[CF_MAX_MOVES];
  cf_planes planes;
  int transform;
  bool black_to_move;
  int depth;
} cf_leaf;

/* A leaf settled without the network (terminal, proven, cached) whose
 * backup waits for its batch: OutOfOrderEval off (cf_search_gather.c). */
typedef struct cf_settled {
  cf_snode *node;
  double wl;
  float d, m;
  bool proof; /* newly proven: its proof goes up after the backup */
} cf_settled;

/* One batch on its way through the network: its leaves, then the
 * positions prefetched for the cache (leaves[n_leaves] on), what
 * cf_net_eval reads and writes for both, its collisions, whose marks go
 * when it is backed up (cf_search_finish), and its in-order settled leaves. */
typedef struct cf_batch {
  cf_leaf *leaves;
  cf_net_request *requests;
  cf_net_output *outputs;
  cf_collision *collided;
  cf_settled *settled; /* cap_leaves of them */
  int cap_leaves, cap_collided;
  int n_leaves, n_coll, n_settled, n_prefetched;
  double submitted; /* when its pass was queued (a pipelined run) */
} cf_batch;

/* The most batches a run keeps in the network at once (batches_in_flight). */
#define CF_SEARCH_MAX_IN_FLIGHT CF_NET_STREAM_MAX

/* How one walk from the root ended (cf_search_gather.c). */
typedef enum cf_walk_result {
  CF_WALK_LEAF,      /* on a new leaf for the network */
  CF_WALK_SETTLED,   /* backed up on the way: terminal, proven, cached */
  CF_WALK_COLLISION, /* on a leaf already waiting for the network */
  CF_WALK_NO_MEMORY,
} cf_walk_result;

struct cf_search {
  cf_search_params params;
  cf_node_pool pool;
  cf_snode *root;
  /* The game the tree's root stands for: start position and moves. */
  cf_position start;
  cf_move *moves;
  int n_moves, cap_moves;
  cf_nn_cache *cache;
  long cache_capacity; /* the size it was made with */
  /* Batch storage: one slot per batch in flight (slots[0] alone without a
   * pipeline); a pipelined run sends its passes through stream, oldest
   * first, and the leaves of its batches in the network are pending_leaves. */
  cf_batch slots[CF_SEARCH_MAX_IN_FLIGHT];
  int n_slots;
  cf_net_stream *stream;
  int oldest, n_pending; /* the slot of the oldest batch in the network; how many are */
  long pending_leaves;
  double last_done; /* when the last pipelined pass came back */
  /* Per run. */
  cf_net *net;
  /* The last run's network's input format and history fill (kept after
   * the run for cf_search_cached_eval's key); key_format < 0 before any. */
  int key_format;
  cf_history_fill key_fill;
  cf_game *game;        /* pushed and popped along paths; the root position at rest */
  int root_ply;         /* game->count - 1 at the root */
  bool root_black;      /* the side to move at the root is black */
  const cf_search_limits *limits; /* &run_limits during a run, else NULL */
  cf_search_limits run_limits;     /* the run's limits as the run applies them */
  int minibatch;                   /* the run's MinibatchSize (cf_search_minibatch) */
  long playouts, evals, cache_hits, batches, collisions, terminal_visits, reused;
  long collision_visits; /* the visits this run's collisions stood for */
  long prefetched;       /* positions this run evaluated for the cache alone (MaxPrefetch) */
  /* This run's CPU time of the searching thread inside the network's calls
   * (evaluate, submit, wait): the rest of the thread's time is the
   * search's own work (cf_search_counters.net_cpu_seconds). */
  double net_cpu;
  long cum_depth;
  int max_depth;
  long leaves_evaluated;
  double start_time, first_eval_time;
  /* Seconds per network evaluation measured by the last batch, kept across
   * runs: a run on a reused tree starts without a root evaluation to time,
   * and its first batch must fit the stop latency too. 0 = never measured. */
  double sec_per_eval;
  bool owe_batch; /* cf_search_limits.one_minibatch: a batch below the root is still owed */
  bool moves_left; /* the network has a moves-left head: its utility steers selection */
  /* Tablebases (cf_search_tablebase.c), per run: probe new nodes (not when
   * DTZ already ranked the root, as Lc0), and the probes that answered. */
  bool tb_in_tree;
  long tb_hits;
  cf_movelist tb_root_moves; /* the root moves the tables keep */
  /* Dirichlet noise (cf_search_noise.c): the generator's state, set by
   * cf_search_seed and carried across runs so a game repeats from its seed. */
  uint64_t noise_rng;
  const cf_snode *noised; /* the last root that got its noise */
  /* The root's result by the tables, for the side to move there (+1, 0,
   * -1), when tb_root_known: the score reported is it. */
  bool tb_root_known;
  int tb_root_result;
  /* WDL rescaling and contempt (cf_search_wdl.c), per run: the model's
   * change, the colour favoured (CF_CONTEMPT_*), and whether network
   * values change at all. */
  cf_wdl_rescale wdl;
  int contempt_side;
  bool wdl_on;
};

/* ---- tree (cf_search_tree.c) ---- */
cf_snode *cf_node_new(cf_node_pool *pool, cf_snode *parent, int edge_index);
/* Frees node and everything below it. */
void cf_node_free_subtree(cf_node_pool *pool, cf_snode *node);
bool cf_node_alloc_edges(cf_node_pool *pool, cf_snode *node, int n);
void cf_node_pool_free(cf_node_pool *pool);
/* True if any node below (and including) node is a twofold draw. */
bool cf_node_has_twofold(const cf_snode *node);

/* ---- PUCT (cf_search_puct.c) ---- */
/* Whether searchmoves (allowed, n_allowed; NULL/0 = all) lets m be searched. */
bool cf_search_allowed(cf_move m, const cf_move *allowed, int n_allowed);
/* at_root: the root's own parameters with RootHasOwnCpuctParams. */
float cf_search_cpuct(const cf_search_params *p, uint32_t n, bool at_root);
/* First-play urgency of node's unvisited children, from the side to move at
 * node (the root's, FpuStrategyAtRoot and FpuValueAtRoot, at a node
 * without a parent). */
float cf_search_fpu(const cf_search_params *p, const cf_snode *node, float draw_score);
/* Q of edge e of node for the side to move at node. */
float cf_search_edge_q(const cf_sedge *e, float fpu, float draw_score);
/* The edge selection picks (max Q + U, n counting visits in flight and
 * collision marks); allowed may restrict it (root). -1 if none. */
int cf_search_select(const cf_search_params *p, const cf_snode *node, float draw_score,
                     const cf_move *allowed, int n_allowed);
/* Lc0's moves-left utility (cf_search_moves_left.c): what selection adds
 * to q, the Q of child for the side to move at parent, for a shorter win
 * or a longer loss; 0 for an unvisited child or while |parent's W - L| is
 * at most MovesLeftThreshold. Only for a network with a moves-left head. */
float cf_search_moves_left_utility(const cf_search_params *p, const cf_snode *parent,
                                   const cf_snode *child, float q);
/* The edge's Q plus, with moves_left, its moves-left utility: what
 * selection adds the exploration term to. */
float cf_search_edge_utility(const cf_search_params *p, const cf_snode *node, const cf_sedge *e,
                             float fpu, float draw_score, bool moves_left);
/* The chosen edge (index `best`, prior p, value q, `started` visits) and
 * its strongest rival (score `rival`, the first edge of that score at
 * `rival_index`), for the visits it keeps winning in a row. */
typedef struct cf_run_edges {
  float u_coeff, p, q, rival;
  uint32_t started;
  int best, rival_index;
} cf_run_edges;
/* How many visits in a row the chosen edge takes, the next one included
 * (>= 1; UINT32_MAX when its Q alone keeps it ahead): the run
 * cf_search_select_run reports. *probes, when not NULL, counts the scores
 * it computed (a few dozen at most, however far the first estimate is). */
uint32_t cf_search_run_length(const cf_run_edges *r, int *probes);
/* cf_search_select_run with the moves-left utility when moves_left (the
 * network has the head). */
int cf_search_select_full(const cf_search_params *p, const cf_snode *node, float draw_score,
                          const cf_move *allowed, int n_allowed, bool moves_left, uint32_t *run);
/* cf_search_select, and *run: how many visits in a row the chosen edge
 * would take, the next one included, before the second best edge's score
 * passed it (>= 1; UINT32_MAX when its Q alone keeps it ahead). A
 * collision below that edge stands for that many visits. */
int cf_search_select_run(const cf_search_params *p, const cf_snode *node, float draw_score,
                         const cf_move *allowed, int n_allowed, uint32_t *run);
/* Orders two edges for the move to play (the order below); > 0 when a is better. */
int cf_search_compare_edges(const cf_sedge *a, const cf_sedge *b, float draw_score);
/* Best child for the move to play: proven win (shortest) first, then
 * visits, then Q, then prior; proven losses last. -1 if no edges. */
int cf_search_best_edge(const cf_snode *node, float draw_score, const cf_move *allowed,
                        int n_allowed);
/* Recomputes node's proven state from its children after one of them
 * changed; returns whether node's state changed. */
bool cf_search_update_proof(cf_snode *node);

/* ---- Dirichlet noise (cf_search_noise.c) ---- */
/* Mixes noise into the root's priors when noise_epsilon > 0 and the root
 * has edges: p = (1 - eps) p + eps eta, eta ~ Dirichlet(alpha). Called as
 * the root is expanded (always) and at the start of a run on a kept root
 * (once_only: skipped when this root has had its noise). */
void cf_search_noise_root(cf_search *s, bool once_only);

/* ---- tablebases (cf_search_tablebase.c) ---- */
/* Lc0's root filter: with no searchmoves and the root in the tables, *lim
 * is restricted to the moves that keep the best result. Decides whether
 * the tree is probed this run. */
void cf_search_tb_root(cf_search *s, const cf_game *game, cf_search_limits *lim);
/* Scores new node x (the current position of s->game) from the tables
 * when Lc0 would: proven, exact. False if it is not probed. */
bool cf_search_tb_classify(cf_search *s, cf_snode *x);

/* ---- gathering and evaluation (cf_search_gather.c) ---- */
/* Gathers up to `want` leaves into b, then the positions MaxPrefetch adds
 * (requests and outputs ready for cf_net_eval); terminal and cached leaves
 * are backed up on the way. Returns the positions for the network
 * (b->n_leaves of them leaves), or -1 out of memory (err set; b must
 * still be finished). */
int cf_search_gather(cf_search *s, cf_batch *b, int want, cf_error *err);
/* Fills leaf with the network input, legal moves and cache key of s's
 * current position, for node x `depth` plies below the root (NULL: a
 * prefetched position). */
void cf_search_leaf_input(const cf_search *s, cf_snode *x, int depth, cf_leaf *leaf);
/* ---- prefetch (cf_search_prefetch.c) ---- */
/* The positions a batch may hold: the minibatch, or MaxPrefetch when
 * prefetching makes it more. */
int cf_search_batch_room(const cf_search_params *p, int minibatch);
/* Lc0's MaxPrefetch: adds to b, after its leaves, up to MaxPrefetch less
 * its leaves positions the search is likely to visit soon, for the NN
 * cache alone (b->n_prefetched). Only with LcZeroGather, a cache, and
 * leaves in b. */
void cf_search_prefetch(cf_search *s, cf_batch *b);
/* The NN cache's key of g's current position (Lc0's CacheHistoryLength:
 * history_length earlier positions, 0 to 7, are part of it). At 7
 * (CF_CACHE_KEY_INPUT, cformer's default) the key is input, the network's
 * encoded input of the position, with the position itself (its legal
 * moves): exactly what decides the network's answer, so no earlier
 * position the network does not read (a canonical format's cut history)
 * splits an entry. input may be NULL below 7. */
#define CF_CACHE_KEY_INPUT 7
uint64_t cf_search_cache_key(const cf_game *g, int history_length, const cf_planes *input);
/* Backs up b's leaves from their outputs when evaluated is CF_OK (else
 * takes their walks back) and takes back its collisions; b is empty
 * after. Returns evaluated, or CF_ERR_NOMEM when the tree could not grow. */
cf_status cf_search_finish(cf_search *s, cf_batch *b, cf_status evaluated, cf_error *err);
/* A whole batch in slot 0: gather up to `want` leaves, evaluate them with
 * one cf_net_eval call, back everything up. */
cf_status cf_search_batch(cf_search *s, int want, cf_error *err);
/* ---- collisions (cf_search_collisions.c) ---- */
/* Whether a collision stands for several visits (multi-visit collisions,
 * as Lc0's): fill_batches or LcZeroGather. */
bool cf_search_fills_batches(const cf_search_params *p);
/* Collision events a batch of `want` leaves may have: MaxCollisionEvents
 * with multi-visit collisions; without, want or MaxCollisionEvents if fewer. */
int cf_search_max_collisions(const cf_search_params *p, int want);
/* The collision visits a batch may spend on a tree of `nodes` visits (with
 * fill_batches): Lc0's MaxCollisionVisits scaling, 1 up to
 * MaxCollisionVisitsScalingStart visits, then growing as the power
 * MaxCollisionVisitsScalingPower of the way to MaxCollisionVisits at
 * MaxCollisionVisitsScalingEnd. */
long cf_search_collision_budget(const cf_search_params *p, long nodes);
/* The collision visits a batch of `want` leaves may spend
 * (cf_search_collisions.c). */
long cf_search_batch_collision_budget(const cf_search *s, int want);
/* A walk, its own visit in flight on its path, collided at x, standing
 * for `visits`: they are put in flight on the path (cf_collision). */
cf_collision cf_search_collide(const cf_search_params *p, cf_snode *x, uint32_t visits);
/* With LcZeroGather, `visits` more for x after a walk's visit ended
 * there: in flight from x's parent up. */
cf_collision cf_search_collide_after(cf_snode *x, uint32_t visits);
/* Takes a collision's visits in flight back. */
void cf_search_cancel_collision(const cf_collision *c);

/* ---- more of the gathering (cf_search_gather.c) ---- */
/* Marks a new node x, `depth` plies below the root, whose position (the
 * current one of s->game) ends the game or repeats inside the tree
 * (TwoFoldDraws): proven, exact value. False if the game goes on there. */
bool cf_search_classify_terminal(cf_search *s, cf_snode *x, int depth);
/* Adds a visit of value (wl, d, m), from node's view, from node up. */
void cf_search_backup(cf_search *s, cf_snode *node, double wl, float d, float m);
/* DrawScore for the side to move at a node `depth` plies below the root. */
float cf_search_draw_score(const cf_search *s, int depth);

/* Mate in this many moves (> 0) or mated in -this (< 0) after the move to
 * child, as proven; 0 when not proven. */
int cf_search_mate_of(const cf_snode *child);

/* The root's info (score, W/D/L, PV, depth) as a progress line or the
 * result reports it (cf_search_report.c). */
void cf_search_fill_info(const cf_search *s, cf_search_info *info);

/* ---- WDL rescaling and contempt (cf_search_wdl.c) ---- */
/* Sets the run's rescale from the parameters and the root (after
 * s->root_black). */
void cf_search_wdl_start(cf_search *s, bool go_infinite);
/* Rescales a network value (wl, d) of a node `depth` plies below the root,
 * from the side that moved into it, before it is backed up. */
void cf_search_wdl_leaf(const cf_search *s, int depth, float *wl, float *d);

/* ---- the stop and pace rules' snapshot (cf_search_stats.c) ----
 * The rules are pure functions of a cf_search_stats (cf_search_stats.h);
 * the loop fills one from s once per step and asks them. */
/* The snapshot of s at now: s->limits (none when NULL), the root, the run. */
void cf_search_stats_fill(const cf_search *s, double now, cf_search_stats *st);

/* ---- a run in phases (cf_search.c): cf_search_run, and the group's ---- */
/* Starts a run as cf_search_run does (limits copied, tree kept or
 * dropped, buffers at the minibatch). *done: nothing to search (no legal
 * move; out is filled). pipelined: the run may keep batches_in_flight
 * batches in a stream; without it one batch at a time in slot 0. */
cf_status cf_search_begin(cf_search *s, cf_net *net, cf_game *game, const cf_search_limits *limits,
                          bool pipelined, cf_search_result *out, bool *done, cf_error *err);
/* The rule that ends the run now (a ponderhit's deadline applied first),
 * and *st, the snapshot it was decided on, for the loop's pace rules. */
cf_search_stop cf_search_next_stop(cf_search *s, double now, cf_search_stats *st);
/* Ends a run that began (no batch may be in the network): out from the
 * tree, and what ended it (CF_STOP_NONE after an error). */
void cf_search_end(cf_search *s, cf_search_stop stop, cf_search_result *out);

/* ---- pace (cf_search_pace.c) ---- */
/* Waits cf_pace_nps_wait's time, a millisecond at a time, until the
 * stop flag or the deadline. */
void cf_search_pace_nps(const cf_search *s, const atomic_bool *stop);
/* When a progress line is due: the best move, depth or seldepth changed,
 * or INFO_INTERVAL_S passed since the last one. */
typedef struct cf_info_throttle {
  double last;
  cf_move best;
  int depth, seldepth;
} cf_info_throttle;
void cf_info_throttle_init(cf_info_throttle *t, double now);
/* True (and remembers info and now) when info is worth reporting. */
bool cf_info_throttle_due(cf_info_throttle *t, const cf_search_info *info, double now);

#endif /* CF_SEARCH_INTERNAL_H */
