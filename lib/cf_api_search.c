/* cf_api_search.c: libcformer's tree search with every root move reported,
 * and the stop flag another thread sets (cformer.h). Uses only the search's
 * public interface (engine/search/cf_search.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_move_uci.h"
#include "engine/cf_agent.h"
#include "engine/search/cf_search.h"
#include "lib/cf_api_internal.h"

/* The NN cache of a one-off search, as the search agent's. */
#define ONE_OFF_CACHE 65536

struct cformer_stop {
  atomic_bool flag;
};

cformer_status cformer_stop_create(cformer_stop **out, cformer_error *err) {
  if (!out) return cf_api_arg(err, "cformer_stop_create: out is NULL");
  *out = malloc(sizeof **out);
  if (!*out) {
    cf_error e;
    cf_error_set(&e, CF_ERR_NOMEM, "out of memory");
    return cf_api_fail(err, CF_ERR_NOMEM, &e);
  }
  atomic_init(&(*out)->flag, false);
  return cf_api_ok(err);
}

void cformer_stop_request(cformer_stop *stop) {
  if (stop) atomic_store(&stop->flag, true);
}

void cformer_stop_clear(cformer_stop *stop) {
  if (stop) atomic_store(&stop->flag, false);
}

int cformer_stop_requested(const cformer_stop *stop) {
  return stop && atomic_load(&((cformer_stop *)stop)->flag);
}

void cformer_stop_free(cformer_stop *stop) { free(stop); }

/* One root move's public record from the search's statistics. */
static void fill_move(const cf_search *s, const cf_search_move_stats *m, int chess960,
                      cformer_root_move *out) {
  cf_move_write_uci(m->move, chess960, out->move);
  out->visits = (long)m->n;
  out->prior = m->p;
  out->mate = m->mate;
  if (m->n > 0) {
    out->q = m->wl;
    out->wdl[0] = (1.0f + m->wl - m->d) / 2.0f;
    out->wdl[1] = m->d;
    out->wdl[2] = (1.0f - m->wl - m->d) / 2.0f;
  } else {
    out->q = out->wdl[0] = out->wdl[1] = out->wdl[2] = NAN;
  }
  cf_move pv[CFORMER_PV_MAX];
  out->pv_len = cf_search_pv(s, m->move, pv, CFORMER_PV_MAX);
  for (int k = 0; k < out->pv_len; k++) cf_move_write_uci(pv[k], chess960, out->pv[k]);
}

static void fill_result(const cf_search *s, const cf_search_result *r, int chess960,
                        cformer_search_result *out) {
  memset(out, 0, sizeof *out);
  strcpy(out->move, "0000");
  if (r->info.best != CF_MOVE_NONE) cf_move_write_uci(r->info.best, chess960, out->move);
  if (r->ponder != CF_MOVE_NONE) cf_move_write_uci(r->ponder, chess960, out->ponder);
  out->q = r->info.q;
  memcpy(out->wdl, r->info.wdl, sizeof out->wdl);
  out->mate = r->info.mate;
  out->visits = r->info.visits;
  out->evaluations = r->info.evals;
  out->depth = r->info.depth;
  out->seldepth = r->info.seldepth;
  out->seconds = r->info.seconds;
  out->stopped = r->stopped;
  cf_search_move_stats stats[CFORMER_MAX_MOVES];
  out->n_moves = cf_search_root_stats(s, stats, CFORMER_MAX_MOVES);
  for (int i = 0; i < out->n_moves; i++) fill_move(s, &stats[i], chess960, &out->moves[i]);
}

cformer_status cformer_search(cformer_net *net, const cformer_position *position,
                              const cformer_search_options *opts, cformer_search_result *out,
                              cformer_error *err) {
  if (!net || !out) return cf_api_arg(err, "cformer_search: net or out is NULL");
  cformer_search_options o = opts ? *opts : (cformer_search_options){0};
  if (o.nodes < 0 || !(o.movetime >= 0) || isinf(o.movetime) || !(o.temperature >= 0) ||
      isinf(o.temperature))
    return cf_api_arg(err, "cformer_search: nodes, movetime and temperature must be >= 0");
  if (o.infinite && !o.stop)
    return cf_api_arg(err, "cformer_search: an infinite search needs a stop flag");
  cf_error e = {0};
  cf_game game;
  cf_status st = cf_api_replay(position, 0, &game, &e);
  if (st != CF_OK) return cf_api_fail(err, st, &e);
  cf_search_params p;
  cf_search_params_default(&p);
  p.nn_cache_size = ONE_OFF_CACHE;
  if (o.temperature > 0) p.policy_temperature = o.temperature;
  cf_search *s = NULL;
  st = cf_search_create(&p, &s, &e);
  if (st == CF_OK) {
    const bool unlimited = o.nodes <= 0 && o.movetime <= 0 && !o.infinite;
    cf_search_limits lim = {
        .visits = unlimited ? CF_SEARCH_DEFAULT_VISITS : o.nodes,
        .deadline = o.movetime > 0 ? cf_agent_now() + o.movetime : 0,
        .stop = o.stop ? &o.stop->flag : NULL,
        .infinite = o.infinite != 0,
    };
    cf_search_result r;
    st = cf_search_run(s, net->net, &game, &lim, NULL, NULL, &r, &e);
    if (st == CF_OK) fill_result(s, &r, cf_game_position(&game)->chess960, out);
  }
  cf_search_free(s);
  cf_game_free(&game);
  return st == CF_OK ? cf_api_ok(err) : cf_api_fail(err, st, &e);
}
