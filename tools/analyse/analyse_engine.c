/* analyse_engine.c: batching positions into network calls, and the agent
 * per position (analyse_engine.h). */
#include "common/cf_clock.h"
#include "tools/analyse/analyse_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cf_agent_search.h"
#include "engine/cf_net_input.h"
#include "engine/search/cf_search.h"
#include "engine/search/cf_search_group.h"

/* A position waiting for its network call. */
typedef struct pending {
  cf_net_position position;
  cf_move legal[CF_MAX_MOVES];
  cf_policy_move moves[CF_MAX_MOVES];
  float logits[CF_MAX_MOVES];
} pending;

struct analyse_engine {
  cf_net *net;
  analyse_engine_options o;
  analyse_emit_fn emit;
  void *emit_ctx;
  int input_format;
  int n; /* pending positions */
  pending *slots;
  analyse_record *records;
  cf_net_request *req;
  cf_net_output *out;
  cf_search *search; /* the search agent's, reset before each position */
  /* Grouped: the search agent at a node limit searches the positions of a
   * batch at once, their leaves sharing network calls
   * (cf_search_group.h); one search and a copy of the game per slot. */
  bool grouped;
  cf_search **searches;
  cf_game *games;
  cf_search_job *jobs;
  long evals;
};

/* The search agent's parameters in analysis. */
static void analysis_params(const analyse_engine_options *o, cf_search_params *p) {
  cf_search_params_default(p);
  p->nn_cache_size = 65536; /* as a one-off search of the agent */
  /* A node-limited search without smart pruning (which reads the clock)
   * builds the same tree every time: records do not depend on timing. */
  if (o->movetime_ms <= 0) p->smart_pruning_factor = 0;
}

static cf_status create_searches(analyse_engine *e, cf_error *err) {
  cf_search_params p;
  analysis_params(&e->o, &p);
  if (!e->grouped) return cf_search_create(&p, &e->search, err);
  const size_t b = (size_t)e->o.batch;
  e->searches = calloc(b, sizeof *e->searches);
  e->games = calloc(b, sizeof *e->games);
  e->jobs = calloc(b, sizeof *e->jobs);
  if (!e->searches || !e->games || !e->jobs)
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory for %zu searches", b);
  for (size_t i = 0; i < b; i++) CF_TRY(cf_search_create(&p, &e->searches[i], err));
  return CF_OK;
}

cf_status analyse_engine_create(cf_net *net, const analyse_engine_options *opts,
                                analyse_emit_fn emit, void *emit_ctx, analyse_engine **out,
                                cf_error *err) {
  *out = NULL;
  analyse_engine *e = calloc(1, sizeof *e);
  if (!e) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  e->net = net;
  e->o = *opts;
  if (e->o.batch < 1) e->o.batch = 1;
  /* an agent that builds a tree and keeps it in a cf_search (the search
   * agent) gets its own, asked by capability, not by pointer; at a node
   * limit a batch of positions is searched at once, else each as it comes */
  const bool tree = cf_agent_has(e->o.agent, CF_AGENT_BUILDS_TREE | CF_AGENT_KEEPS_STATE);
  e->grouped = tree && e->o.movetime_ms <= 0 && e->o.batch > 1;
  if (e->o.agent && !e->grouped) e->o.batch = 1;
  e->emit = emit;
  e->emit_ctx = emit_ctx;
  e->input_format = cf_net_get_info(net)->input_format;
  const size_t b = (size_t)e->o.batch;
  e->slots = malloc(b * sizeof *e->slots);
  e->records = malloc(b * sizeof *e->records);
  e->req = calloc(b, sizeof *e->req);
  e->out = calloc(b, sizeof *e->out);
  if (!e->slots || !e->records || !e->req || !e->out) {
    analyse_engine_free(e);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory for a batch of %zu positions", b);
  }
  if (tree) {
    cf_status st = create_searches(e, err);
    if (st != CF_OK) {
      analyse_engine_free(e);
      return st;
    }
  }
  *out = e;
  return CF_OK;
}

/* The network's outputs into the record: W/D/L, Q, moves left, top-k; a
 * finished game's exact result instead (analyse_terminal). */
static void fill_net(analyse_record *r, const pending *p, const cf_net_output *o, int top_k) {
  if (r->terminal != ANALYSE_PLAYING) {
    const bool mated = r->terminal == ANALYSE_CHECKMATE;
    r->wdl[0] = 0;
    r->wdl[1] = mated ? 0.0f : 1.0f;
    r->wdl[2] = mated ? 1.0f : 0.0f;
    r->q = mated ? -1.0f : 0.0f;
    r->moves_left = 0;
    r->n_top = 0;
    return;
  }
  memcpy(r->wdl, o->wdl, sizeof r->wdl);
  r->q = o->q;
  r->moves_left = o->moves_left;
  float prob[CF_MAX_MOVES];
  cf_policy_softmax(p->logits, r->n_legal, 1.0f, prob);
  bool taken[CF_MAX_MOVES] = {false};
  r->n_top = r->n_legal < top_k ? r->n_legal : top_k;
  for (int k = 0; k < r->n_top; k++) { /* selection: k is small */
    int best = -1;
    for (int i = 0; i < r->n_legal; i++)
      if (!taken[i] && (best < 0 || prob[i] > prob[best])) best = i;
    taken[best] = true;
    r->top[k] = p->legal[best];
    r->top_p[k] = prob[best];
  }
}

static cf_status evaluate(analyse_engine *e, cf_error *err) {
  if (e->n == 0) return CF_OK;
  for (int i = 0; i < e->n; i++) {
    pending *p = &e->slots[i];
    e->req[i] = (cf_net_request){.position = &p->position, .moves = p->moves,
                                 .n_moves = e->records[i].n_legal};
    memset(&e->out[i], 0, sizeof e->out[i]);
    e->out[i].policy[CF_POLICY_VANILLA] = p->logits;
  }
  CF_TRY(cf_net_eval(e->net, e->n, e->req, e->out, err));
  e->evals += e->n;
  for (int i = 0; i < e->n; i++) fill_net(&e->records[i], &e->slots[i], &e->out[i], e->o.top_k);
  return CF_OK;
}

/* The search agent's lines: root moves best first, each with its PV. */
static void search_lines(analyse_engine *e, const cf_search *search, analyse_record *r,
                         const cf_agent_result *res) {
  cf_search_move_stats stats[CF_MAX_MOVES];
  const int n = cf_search_root_stats(search, stats, CF_MAX_MOVES);
  r->n_root = n;
  for (int i = 0; i < n; i++) r->root[i] = (analyse_root_visits){stats[i].move, stats[i].n};
  r->n_lines = n < e->o.multipv ? n : e->o.multipv;
  for (int k = 0; k < r->n_lines; k++) {
    analyse_line *l = &r->lines[k];
    const cf_search_move_stats *m = &stats[k];
    l->move = m->move;
    l->visits = m->n;
    if (k == 0) { /* the best line carries the search's own figures */
      l->q = res->q;
      memcpy(l->wdl, res->wdl, sizeof l->wdl);
      l->mate = res->mate;
    } else if (m->n > 0) {
      l->q = m->q;
      l->wdl[0] = (1 - m->d + m->wl) / 2;
      l->wdl[1] = m->d;
      l->wdl[2] = (1 - m->d - m->wl) / 2;
      l->mate = m->mate;
    } else { /* unvisited: the root's value, as Lc0 shows it */
      l->q = res->q;
      memcpy(l->wdl, res->wdl, sizeof l->wdl);
      l->mate = 0;
    }
    l->pv_len = cf_search_pv(search, m->move, l->pv, CF_AGENT_PV_MAX);
  }
}

/* A one-ply agent's lines: its ranking, each move with its value and the
 * reply its child's policy expects. */
static void one_ply_lines(analyse_engine *e, analyse_record *r, const cf_agent_result *res) {
  int n = res->n_moves < e->o.multipv ? res->n_moves : e->o.multipv;
  if (n < 1 && res->best != CF_MOVE_NONE) n = 1;
  r->n_lines = n;
  for (int k = 0; k < n; k++) {
    analyse_line *l = &r->lines[k];
    cf_move reply;
    if (k == 0) { /* the best line carries the result's own figures */
      l->move = res->best;
      l->q = res->q;
      memcpy(l->wdl, res->wdl, sizeof l->wdl);
      l->mate = res->mate;
      reply = res->ponder;
    } else {
      const cf_agent_move_stats *m = &res->moves[k];
      l->move = m->move;
      l->q = m->q;
      memcpy(l->wdl, m->wdl, sizeof l->wdl);
      l->mate = m->proven == 1;
      reply = m->reply;
    }
    l->visits = -1;
    l->pv[0] = l->move;
    l->pv_len = 1;
    if (reply != CF_MOVE_NONE) l->pv[l->pv_len++] = reply;
  }
}

/* The agent's answer into the record. */
static void agent_record(analyse_engine *e, const cf_search *search, analyse_record *r,
                         const cf_agent_result *res) {
  e->evals += res->evals;
  r->searched = true;
  r->nodes = res->nodes;
  r->evals = res->evals;
  r->depth = res->depth;
  r->n_root = 0;
  r->n_lines = 0;
  if (res->best == CF_MOVE_NONE) return; /* no legal move */
  if (search) search_lines(e, search, r, res);
  else one_ply_lines(e, r, res);
}

static cf_status run_agent(analyse_engine *e, analyse_record *r, cf_game *game, cf_error *err) {
  if (e->search) cf_search_reset(e->search);
  cf_agent_request req = {.net = e->net, .game = game, .max_evals = e->o.nodes,
                          .search = e->search};
  if (e->o.movetime_ms > 0) req.deadline = cf_clock_now() + (double)e->o.movetime_ms / 1000.0;
  cf_agent_result res;
  CF_TRY(e->o.agent->choose(&req, &res, err));
  agent_record(e, e->search, r, &res);
  return CF_OK;
}

/* The pending positions searched at once, as the agent would search each
 * (same limits, same answer): one network call a round for all. */
static cf_status run_group(analyse_engine *e, cf_error *err) {
  const cf_agent_request req = {.net = e->net, .max_evals = e->o.nodes};
  for (int i = 0; i < e->n; i++) {
    cf_search_reset(e->searches[i]);
    e->jobs[i] = (cf_search_job){.search = e->searches[i], .game = &e->games[i]};
    cf_agent_search_limits(&req, &e->jobs[i].limits);
  }
  const cf_status st = cf_search_run_group(e->net, e->jobs, e->n, NULL, err);
  if (st != CF_OK) return st;
  for (int i = 0; i < e->n; i++) {
    cf_agent_result res;
    cf_agent_search_result(e->searches[i], &e->jobs[i].result, &res);
    agent_record(e, e->searches[i], &e->records[i], &res);
  }
  return CF_OK;
}

static void drop_games(analyse_engine *e) {
  for (int i = 0; e->games && i < e->n; i++) cf_game_free(&e->games[i]);
}

cf_status analyse_engine_flush(analyse_engine *e, cf_error *err) {
  cf_status st = evaluate(e, err);
  if (st == CF_OK && e->grouped && e->n > 0) st = run_group(e, err);
  if (st == CF_OK)
    for (int i = 0; i < e->n; i++) e->emit(e->emit_ctx, &e->records[i]);
  drop_games(e);
  e->n = 0;
  return st;
}

cf_status analyse_engine_add(analyse_engine *e, const analyse_unit *unit, int ply, cf_game *game,
                             cf_error *err) {
  pending *p = &e->slots[e->n];
  analyse_record *r = &e->records[e->n];
  const cf_position *pos = cf_game_position(game);
  r->unit = unit;
  r->ply = ply;
  r->pos = *pos;
  cf_position_to_fen(pos, r->fen);
  r->played = ply < unit->pgn.n_moves ? unit->pgn.moves[ply] : CF_MOVE_NONE;
  r->searched = false;
  r->n_lines = r->n_root = 0;
  r->nodes = r->evals = 0;
  r->n_legal = cf_engine_legal_policy_moves(pos, p->legal, p->moves);
  r->terminal = r->n_legal > 0              ? ANALYSE_PLAYING
                : cf_position_in_check(pos) ? ANALYSE_CHECKMATE
                                            : ANALYSE_STALEMATE;
  cf_engine_net_position(game, e->input_format, &p->position);
  if (e->grouped) CF_TRY(cf_game_copy(&e->games[e->n], game, err));
  e->n++;
  if (e->o.agent && !e->grouped) {
    CF_TRY(evaluate(e, err));
    e->n = 0;
    CF_TRY(run_agent(e, r, game, err));
    e->emit(e->emit_ctx, r);
    return CF_OK;
  }
  if (e->n == e->o.batch) return analyse_engine_flush(e, err);
  return CF_OK;
}

long analyse_engine_evals(const analyse_engine *e) { return e->evals; }

void analyse_engine_free(analyse_engine *e) {
  if (!e) return;
  drop_games(e);
  cf_search_free(e->search);
  for (int i = 0; e->searches && i < e->o.batch; i++) cf_search_free(e->searches[i]);
  free(e->searches);
  free(e->games);
  free(e->jobs);
  free(e->slots);
  free(e->records);
  free(e->req);
  free(e->out);
  free(e);
}
