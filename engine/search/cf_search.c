/* cf_search.c: the search's life cycle and its main loop: keep or drop the
 * tree, run batches until a stop rule says stop (cf_search_stop.c), report
 * progress (cf_search_pace.c), pick the move. */
#include "engine/search/cf_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "backends/cf_backend.h"
#include "chess/cf_movegen.h"
#include "common/cf_clock.h"
#include "engine/search/cf_search_internal.h"

cf_status cf_search_create(const cf_search_params *params, cf_search **out, cf_error *err) {
  *out = NULL;
  cf_search_params p;
  if (params) p = *params;
  else cf_search_params_default(&p);
  CF_TRY(cf_search_params_check(&p, err));
  cf_search *s = calloc(1, sizeof *s);
  if (!s) return cf_error_set(err, CF_ERR_NOMEM, "search: out of memory");
  s->params = p;
  /* Before a run: nothing rescaled, nothing reported differently. */
  s->wdl = (cf_wdl_rescale){1.0f, 0.0f};
  s->contempt_side = CF_CONTEMPT_DISABLE;
  s->key_format = -1; /* no run yet: cf_search_cached_eval has no input to key */
  *out = s;
  return CF_OK;
}

static void drop_tree(cf_search *s) {
  cf_node_free_subtree(&s->pool, s->root);
  s->root = NULL;
  s->n_moves = 0;
}

void cf_search_reset(cf_search *s) {
  if (!s) return;
  drop_tree(s);
  cf_nn_cache_clear(s->cache);
}

void cf_search_reset_tree(cf_search *s) {
  if (s) drop_tree(s);
}

void cf_search_free(cf_search *s) {
  if (!s) return;
  drop_tree(s);
  cf_node_pool_free(&s->pool);
  cf_nn_cache_free(s->cache);
  free(s->moves);
  for (int i = 0; i < CF_SEARCH_MAX_IN_FLIGHT; i++) {
    free(s->slots[i].leaves);
    free(s->slots[i].requests);
    free(s->slots[i].outputs);
    free(s->slots[i].collided);
    free(s->slots[i].settled);
  }
  free(s);
}

cf_status cf_search_set_params(cf_search *s, const cf_search_params *params, cf_error *err) {
  CF_TRY(cf_search_params_check(params, err));
  s->params = *params;
  return CF_OK;
}

const cf_search_params *cf_search_get_params(const cf_search *s) { return &s->params; }

/* ---- the tree across moves ---------------------------------------------- */

/* Keeps the subtree of the moves played since the last run when game
 * continues it; otherwise starts a new tree. */
static cf_status prepare_root(cf_search *s, const cf_game *game, cf_error *err) {
  cf_snode *node = s->root;
  const int played = game->count - 1;
  bool continues = node && cf_position_same(&game->plies[0].pos, &s->start) && played >= s->n_moves;
  for (int k = 0; continues && k < s->n_moves; k++)
    continues = game->plies[k + 1].move == s->moves[k];
  if (!continues) {
    drop_tree(s);
    node = NULL;
  }
  for (int k = s->n_moves; node && k < played; k++) {
    cf_move m = game->plies[k + 1].move;
    cf_snode *next = NULL;
    for (int i = 0; i < node->n_edges; i++)
      if (node->edges[i].move == m) {
        next = node->edges[i].child;
        node->edges[i].child = NULL; /* kept; the rest of node goes */
      }
    cf_node_free_subtree(&s->pool, node);
    node = next;
    if (node) node->parent = NULL;
  }
  /* A node that ended the game, or drew by a repetition inside the old
   * tree, means something else as a root; a subtree holding such draws may
   * count repetitions that now reach back before the root. Start afresh. */
  if (node && (node->flags || cf_node_has_twofold(node))) {
    cf_node_free_subtree(&s->pool, node);
    node = NULL;
  }
  s->root = node;
  if (!s->root) {
    s->root = cf_node_new(&s->pool, NULL, 0);
    if (!s->root) return cf_error_set(err, CF_ERR_NOMEM, "search: out of memory");
  }
  s->root->parent = NULL;
  /* Remember the game this root stands for. */
  if (played > s->cap_moves) {
    cf_move *grown = realloc(s->moves, (size_t)played * sizeof *grown);
    if (!grown) {
      drop_tree(s);
      return cf_error_set(err, CF_ERR_NOMEM, "search: out of memory");
    }
    s->moves = grown;
    s->cap_moves = played;
  }
  s->start = game->plies[0].pos;
  for (int k = 0; k < played; k++) s->moves[k] = game->plies[k + 1].move;
  s->n_moves = played;
  return CF_OK;
}

/* Room for a batch of `minibatch` positions and its collisions. */
static bool prepare_slot(cf_batch *b, int minibatch, int collisions) {
  if (b->cap_leaves < minibatch) {
    free(b->leaves);
    free(b->requests);
    free(b->outputs);
    free(b->settled);
    b->leaves = malloc((size_t)minibatch * sizeof *b->leaves);
    b->requests = malloc((size_t)minibatch * sizeof *b->requests);
    b->outputs = malloc((size_t)minibatch * sizeof *b->outputs);
    b->settled = malloc((size_t)minibatch * sizeof *b->settled);
    b->cap_leaves = b->leaves && b->requests && b->outputs && b->settled ? minibatch : 0;
    if (!b->cap_leaves) return false;
  }
  if (b->cap_collided < collisions) {
    free(b->collided);
    b->collided = malloc((size_t)collisions * sizeof *b->collided);
    b->cap_collided = b->collided ? collisions : 0;
    if (!b->collided) return false;
  }
  return true;
}

/* Batch slots (one, or batches_in_flight when the run may pipeline) and
 * the NN cache at its size. */
static cf_status prepare_buffers(cf_search *s, int minibatch, bool pipelined, cf_error *err) {
  const int collisions = cf_search_max_collisions(&s->params, minibatch);
  const int room = cf_search_batch_room(&s->params, minibatch);
  s->n_slots = pipelined && s->params.batches_in_flight > 1 ? s->params.batches_in_flight : 1;
  for (int i = 0; i < s->n_slots; i++)
    if (!prepare_slot(&s->slots[i], room, collisions))
      return cf_error_set(err, CF_ERR_NOMEM, "search: out of memory for a batch");
  if (cf_nn_cache_capacity(s->cache) != s->params.nn_cache_size) {
    cf_nn_cache_free(s->cache);
    s->cache = NULL;
    if (s->params.nn_cache_size > 0) {
      s->cache = cf_nn_cache_new(s->params.nn_cache_size);
      if (!s->cache)
        return cf_error_set(err, CF_ERR_NOMEM, "search: out of memory for an NNCacheSize of %ld",
                            s->params.nn_cache_size);
    }
  }
  return CF_OK;
}

/* ---- one step of a run ---------------------------------------------------- */

/* The speed a batch of n leaves showed, for the pace of the next batches
 * (cf_search_pace.c) and smart pruning's estimate. */
static void note_speed(cf_search *s, long n, double seconds, double now) {
  if (n <= 0) return;
  s->sec_per_eval = seconds / (double)n;
  if (s->first_eval_time <= 0) s->first_eval_time = now;
}

/* A batch gathered, evaluated and backed up, one at a time. */
static cf_status step(cf_search *s, int want, cf_error *err) {
  const long evals_before = s->evals;
  const double t0 = cf_clock_now();
  const cf_status st = cf_search_batch(s, want, err);
  const double now = cf_clock_now();
  note_speed(s, s->evals - evals_before, now - t0, now);
  return st;
}

/* The oldest batch in the network comes back and is backed up (or taken
 * back, when its pass failed). */
static cf_status complete_oldest(cf_search *s, cf_error *err) {
  cf_batch *b = &s->slots[s->oldest];
  const int n = b->n_leaves;
  const double cpu0 = cf_clock_thread_cpu();
  cf_status st = cf_net_stream_wait(s->stream, err);
  s->net_cpu += cf_clock_thread_cpu() - cpu0;
  const double now = cf_clock_now();
  /* its own time on the device: from its start, or from when the one
   * before it came back */
  const double began = b->submitted > s->last_done ? b->submitted : s->last_done;
  s->last_done = now;
  s->oldest = (s->oldest + 1) % s->n_slots;
  s->n_pending--;
  s->pending_leaves -= n;
  st = cf_search_finish(s, b, st, err);
  if (st == CF_OK) note_speed(s, n, now - began, now);
  return st;
}

/* Every batch still in the network comes back; the first failure (st, or
 * one of theirs) is the result. */
static cf_status drain(cf_search *s, cf_status st, cf_error *err) {
  while (s->n_pending > 0) {
    cf_error later = {0};
    const cf_status got = complete_oldest(s, st == CF_OK ? err : &later);
    if (st == CF_OK) st = got;
  }
  return st;
}

/* With batches_in_flight > 1: while fewer than that are in the network, a
 * batch is gathered (its walks steered off the leaves still waiting, by
 * their visits in flight) and queued; the oldest comes back when the
 * pipeline is full or nothing new could be gathered. */
static cf_status pipelined_step(cf_search *s, int want, cf_error *err) {
  bool queued = false;
  if (s->n_pending < s->n_slots) {
    cf_batch *b = &s->slots[(s->oldest + s->n_pending) % s->n_slots];
    const int n = cf_search_gather(s, b, want, err);
    cf_status st = n < 0 ? CF_ERR_NOMEM : CF_OK;
    if (n > 0) {
      const double cpu0 = cf_clock_thread_cpu();
      st = cf_net_stream_submit(s->stream, n, b->requests, b->outputs, err);
      s->net_cpu += cf_clock_thread_cpu() - cpu0;
    }
    if (n > 0 && st == CF_OK) {
      b->submitted = cf_clock_now();
      s->n_pending++;
      s->pending_leaves += b->n_leaves;
      queued = true;
    } else {
      st = cf_search_finish(s, b, st, st == CF_OK ? err : NULL); /* its collisions go */
      if (st != CF_OK) return st;
    }
  }
  if (s->n_pending > 0 && (s->n_pending == s->n_slots || !queued)) return complete_oldest(s, err);
  return CF_OK;
}

/* ---- the run ------------------------------------------------------------ */

cf_status cf_search_begin(cf_search *s, cf_net *net, cf_game *game, const cf_search_limits *limits,
                          bool pipelined, cf_search_result *out, bool *done, cf_error *err) {
  memset(out, 0, sizeof *out);
  *done = false;
  /* searchmoves naming no legal move means all moves (as the UCI agents
   * read it), so the root always has something to search. */
  cf_search_limits *lim = &s->run_limits;
  *lim = limits ? *limits : (cf_search_limits){0};
  if (lim->allowed && lim->n_allowed > 0) {
    bool any = false;
    for (int i = 0; i < lim->n_allowed && !any; i++)
      any = cf_move_is_legal(cf_game_position(game), lim->allowed[i]);
    if (!any) lim->allowed = NULL, lim->n_allowed = 0;
  }
  cf_search_tb_root(s, game, lim);
  s->limits = lim;
  s->playouts = s->evals = s->cache_hits = s->batches = s->collisions = s->collision_visits = 0;
  s->prefetched = 0;
  s->terminal_visits = s->cum_depth = s->leaves_evaluated = 0;
  s->net_cpu = 0;
  s->max_depth = 0;
  s->start_time = cf_clock_now();
  s->first_eval_time = 0;

  cf_movelist legal;
  cf_generate_legal(cf_game_position(game), &legal);
  const cf_net_info *ni = cf_net_get_info(net);
  s->minibatch = cf_search_minibatch(&s->params, ni->backend);
  s->moves_left = ni->has_moves_left;
  cf_status st = prepare_buffers(s, s->minibatch, pipelined, err);
  if (st == CF_OK) st = prepare_root(s, game, err);
  if (st != CF_OK) {
    s->limits = NULL;
    return st;
  }
  s->reused = s->root->n;
  /* A root kept from the last move was expanded without noise (it was not
   * the root then): it gets its noise now, as a fresh root would. */
  if (s->root->edges) cf_search_noise_root(s, true);
  if (legal.count == 0) { /* mate or stalemate: nothing to search */
    cf_search_fill_info(s, &out->info);
    out->info.best = CF_MOVE_NONE;
    const bool mated = cf_position_in_check(cf_game_position(game));
    out->info.q = mated ? -1.0f : cf_search_draw_score(s, 0);
    out->info.wdl[0] = 0;
    out->info.wdl[1] = mated ? 0.0f : 1.0f;
    out->info.wdl[2] = mated ? 1.0f : 0.0f;
    s->limits = NULL;
    *done = true;
    return CF_OK;
  }
  s->net = net;
  s->key_format = cf_net_get_info(net)->input_format;
  s->key_fill = cf_net_get_info(net)->history_fill;
  s->game = game;
  s->root_ply = game->count - 1;
  s->n_pending = 0;
  s->pending_leaves = 0;
  s->last_done = 0;
  if (s->n_slots > 1 && (st = cf_net_stream_create(net, s->n_slots, &s->stream, err)) != CF_OK) {
    s->net = NULL;
    s->game = NULL;
    s->limits = NULL;
    return st;
  }
  s->root_black = cf_game_position(game)->side == CF_BLACK;
  s->owe_batch = lim->one_minibatch;
  cf_search_wdl_start(s, lim->go_infinite);
  return CF_OK;
}

cf_search_stop cf_search_next_stop(cf_search *s, double now, cf_search_stats *st) {
  cf_search_limits *lim = &s->run_limits;
  if (lim->live_deadline) {
    const double late = atomic_load(lim->live_deadline);
    if (late > 0) {
      lim->deadline = late;
      lim->infinite = false;
    }
  }
  cf_search_stats_fill(s, now, st);
  return cf_search_stop_of(st);
}

void cf_search_end(cf_search *s, cf_search_stop stop, cf_search_result *out) {
  out->stopped = stop == CF_STOP_FLAG || stop == CF_STOP_DEADLINE || stop == CF_STOP_RAM;
  out->ram_limited = stop == CF_STOP_RAM;
  cf_net_stream_free(s->stream);
  s->stream = NULL;
  cf_search_fill_info(s, &out->info);
  /* The expected reply: the best move's own best move. */
  cf_move pv[2];
  out->ponder = cf_search_pv(s, out->info.best, pv, 2) == 2 ? pv[1] : CF_MOVE_NONE;
  s->net = NULL;
  s->game = NULL;
  s->limits = NULL;
}

cf_status cf_search_run(cf_search *s, cf_net *net, cf_game *game, const cf_search_limits *limits,
                        cf_search_info_fn on_info, void *user, cf_search_result *out,
                        cf_error *err) {
  bool done;
  cf_status st = cf_search_begin(s, net, game, limits, true, out, &done, err);
  if (st != CF_OK || done) return st;
  const cf_search_limits *lim = &s->run_limits;
  cf_info_throttle throttle;
  cf_info_throttle_init(&throttle, s->start_time);
  cf_search_info info;
  cf_search_stop stop = CF_STOP_NONE;
  cf_search_stats stats;
  for (;;) {
    stop = cf_search_next_stop(s, cf_clock_now(), &stats);
    if (stop != CF_STOP_NONE && s->n_pending > 0) {
      /* The batches in the network come back first; then the rules again. */
      if ((st = drain(s, CF_OK, err)) != CF_OK) break;
      continue;
    }
    if (stop == CF_STOP_SOLVED && lim->infinite && lim->stop) {
      /* Solved: nothing more to learn. A held search (infinite, ponder)
       * waits for its stop without spinning. */
      struct timespec nap = {0, 1000000};
      nanosleep(&nap, NULL);
      if (lim->poll) lim->poll(lim->poll_user);
      continue;
    }
    if (stop != CF_STOP_NONE) break;
    const bool expanded = s->root->edges != NULL;
    const int want = cf_pace_batch_target(&stats, s->minibatch);
    st = s->stream ? pipelined_step(s, want, err) : step(s, want, err);
    if (st != CF_OK) break;
    cf_search_pace_nps(s, lim->stop);
    if (lim->poll) lim->poll(lim->poll_user);
    if (expanded) s->owe_batch = false; /* the owed batch below the root is done */
    if (on_info) {
      cf_search_fill_info(s, &info);
      if (cf_info_throttle_due(&throttle, &info, cf_clock_now())) on_info(user, s, &info);
    }
  }
  st = drain(s, st, err);
  cf_search_end(s, st == CF_OK ? stop : CF_STOP_NONE, out);
  return st;
}
