/* cf_agent_search.c: the `search` agent: Lc0-style PUCT tree search
 * (engine/search/cf_search.h). With a cf_search in the request (the UCI
 * engine keeps one per game) the tree and the NN cache carry over between
 * moves; without one, each call searches from scratch with its own. */
#include <string.h>

#include "engine/cf_agent_search.h"
#include "engine/search/cf_search.h"

/* The NN cache of a one-off search (no session): big enough for the
 * transpositions of one search, small enough to create per call. */
#define ONE_OFF_CACHE 65536

void cf_agent_search_limits(const cf_agent_request *req, cf_search_limits *lim) {
  /* With no limit at all (a bare `go`, a library call without nodes or
   * time) the search stops at CF_SEARCH_DEFAULT_VISITS rather than never;
   * `go infinite` is the way to search until stopped. */
  const bool unlimited = req->max_evals <= 0 && req->deadline <= 0 && req->depth <= 0 &&
                         !req->infinite;
  const bool mate_only = unlimited && req->mate > 0;
  *lim = (cf_search_limits){
      .visits = unlimited && !mate_only ? CF_SEARCH_DEFAULT_VISITS : req->max_evals,
      .deadline = req->deadline,
      .depth = req->depth,
      .stop = req->stop,
      .infinite = req->infinite || mate_only,
      .live_deadline = req->live_deadline,
      .allowed = req->allowed,
      .n_allowed = req->n_allowed,
      .one_minibatch = req->one_minibatch,
      .mate = req->mate,
      .go_infinite = req->go_infinite,
      .poll = req->poll,
      .poll_user = req->poll_user,
  };
}

void cf_agent_search_result(const cf_search *s, const cf_search_result *r, cf_agent_result *out) {
  memset(out, 0, sizeof *out);
  out->best = r->info.best;
  out->ponder = r->ponder;
  out->q = r->info.q;
  memcpy(out->wdl, r->info.wdl, sizeof out->wdl);
  out->mate = r->info.mate;
  out->evals = r->info.evals;
  out->nodes = r->info.visits;
  out->playouts = r->info.playouts;
  out->depth = r->info.depth;
  out->seldepth = r->info.seldepth;
  out->hashfull = r->info.hashfull;
  out->root_q = r->info.root_q;
  out->root_m = r->info.root_m;
  memcpy(out->root_wdl, r->info.root_wdl, sizeof out->root_wdl);
  out->tb_hits = r->info.tb_hits;
  out->stopped = r->stopped;
  out->pv_len = cf_search_pv(s, r->info.best, out->pv, CF_AGENT_PV_MAX);
}

static cf_status choose(const cf_agent_request *req, cf_agent_result *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  if (!req || !req->net || !req->game) return cf_error_set(err, CF_ERR_ARG, "agent: no network or game");
  cf_search *s = req->search;
  cf_search *own = NULL;
  if (!s) {
    cf_search_params p;
    cf_search_params_default(&p);
    p.nn_cache_size = ONE_OFF_CACHE;
    if (req->policy_temperature > 0) p.policy_temperature = req->policy_temperature;
    CF_TRY(cf_search_create(&p, &own, err));
    s = own;
  }
  cf_search_limits lim;
  cf_agent_search_limits(req, &lim);
  cf_search_result r;
  cf_status st = cf_search_run(s, req->net, req->game, &lim, req->on_info, req->info_user, &r, err);
  cf_agent_search_result(s, &r, out);
  cf_search_free(own);
  return st;
}

const cf_agent_desc cf_agent_search_desc = {
    .name = "search",
    .summary = "Lc0-style PUCT tree search over the network (the engine's default)",
    .caps = CF_AGENT_BUILDS_TREE | CF_AGENT_KEEPS_STATE | CF_AGENT_USES_CLOCK_BUDGET,
    .choose = choose,
};
