/* bench_search.c: see bench_search.h. Signature items per position, as for
 * the other agents (bench_agents.c): "search", the position id, the chosen
 * move (UCI) and its Q quantised. Each search is limited by visits alone,
 * so its batches are never cut for time and one thread repeats it exactly
 * (engine/search/cf_search.c). */
#include "tools/bench/bench_search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chess/cf_move_uci.h"
#include "common/cf_clock.h"
#include "engine/search/cf_search.h"
#include "tools/bench/bench_clock.h"

#define AGENT_NAME "search"

cf_status bench_search_measure(cf_net *net, bench_suite *suite, int visits, int minibatch,
                               double paper_macs, double full_flops, bench_signature *backend_sig,
                               bench_progress *progress, bench_agent_run *out, cf_error *err) {
  *out = (bench_agent_run){.positions = suite->count, .has_search = true};
  snprintf(out->agent, sizeof out->agent, "%s", AGENT_NAME);
  bench_search_run *sr = &out->search;
  sr->visits_target = visits;
  sr->minibatch = minibatch;
  cf_search_params params;
  cf_search_params_default(&params);
  params.smart_pruning_factor = 0; /* exactly `visits` visits per move */
  params.minibatch_size = minibatch;
  cf_search *s = NULL;
  CF_TRY(cf_search_create(&params, &s, err));
  double *seconds = malloc((size_t)suite->count * sizeof *seconds), total = 0;
  if (!seconds) {
    cf_search_free(s);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  }
  bench_signature sig;
  bench_signature_init(&sig);
  double tree_bytes = 0, tree_nodes = 0; /* summed over the moves, at their ends */
  cf_status st = CF_OK;
  /* One untimed move first (as bench_agents.c): one-time setup is not
   * what a move costs. Its tree is dropped by the first timed move's reset. */
  {
    cf_search_limits lim = {.visits = visits};
    cf_search_result res;
    double t0 = bench_now();
    st = cf_search_run(s, net, &suite->entries[0].game, &lim, NULL, NULL, &res, err);
    out->warmup_seconds = bench_now() - t0;
    if (st != CF_OK) {
      cf_error_prefix(err, "search agent's warm-up at suite position %s", suite->entries[0].id);
      cf_search_free(s);
      free(seconds);
      return st;
    }
    bench_progress_stage(progress, "  warm-up: one untimed " AGENT_NAME " move took %.3f s",
                         out->warmup_seconds);
  }
  for (int i = 0; i < suite->count; i++) {
    cf_game *game = &suite->entries[i].game;
    cf_search_reset(s); /* a fresh tree and cache: positions are independent */
    cf_search_limits lim = {.visits = visits};
    cf_search_result res;
    const double cpu0 = cf_clock_thread_cpu();
    double t0 = bench_now();
    st = cf_search_run(s, net, game, &lim, NULL, NULL, &res, err);
    seconds[i] = bench_now() - t0;
    const double cpu = cf_clock_thread_cpu() - cpu0;
    if (st != CF_OK) {
      cf_error_prefix(err, "search agent at suite position %s", suite->entries[i].id);
      break;
    }
    cf_search_counters c;
    cf_search_get_counters(s, &c);
    const cf_search_info *info = &res.info;
    total += seconds[i];
    out->evals += info->evals;
    if (i == 0 || info->evals < out->evals_min) out->evals_min = (int)info->evals;
    if (i == 0 || info->evals > out->evals_max) out->evals_max = (int)info->evals;
    sr->visits += info->visits;
    if (i == 0 || info->visits < sr->visits_min) sr->visits_min = (int)info->visits;
    if (i == 0 || info->visits > sr->visits_max) sr->visits_max = (int)info->visits;
    sr->solved += info->visits < visits;
    sr->cache_hits += info->cache_hits;
    sr->batches += info->batches;
    sr->collisions += c.collisions;
    sr->search_cpu_seconds += cpu - c.net_cpu_seconds;
    sr->net_call_cpu_seconds += c.net_cpu_seconds;
    tree_bytes += (double)info->tree_bytes;
    tree_nodes += (double)c.nodes_allocated;
    char uci[CF_UCI_MOVE_MAX];
    cf_move_write_uci(info->best, cf_game_position(game)->chess960, uci);
    bench_signature *sigs[2] = {&sig, backend_sig};
    for (int k = 0; k < 2; k++) {
      if (!sigs[k]) continue;
      bench_signature_text(sigs[k], AGENT_NAME);
      bench_signature_text(sigs[k], suite->entries[i].id);
      bench_signature_text(sigs[k], uci);
      bench_signature_quantised(sigs[k], info->q);
    }
    bench_progress_step(progress, AGENT_NAME " agent, position", i + 1, suite->count);
  }
  cf_search_free(s);
  if (st != CF_OK) {
    free(seconds);
    return st;
  }
  out->evals_per_move = (double)out->evals / suite->count;
  out->flops_per_move = out->evals_per_move * full_flops;
  out->paper_flops_per_move = out->evals_per_move * paper_macs;
  out->evals_per_second = total > 0 ? (double)out->evals / total : 0;
  out->move_seconds = bench_stats_of(seconds, (size_t)suite->count);
  bench_signature_hex(&sig, out->signature);
  sr->visits_per_second = total > 0 ? (double)sr->visits / total : 0;
  sr->cache_hit_rate = out->evals + sr->cache_hits > 0
                           ? (double)sr->cache_hits / (double)(out->evals + sr->cache_hits)
                           : 0;
  sr->mean_batch = sr->batches > 0 ? (double)out->evals / (double)sr->batches : 0;
  /* weighted by visits: a move the search solved in 2 visits would
   * otherwise weigh as much as a full one with a slab's bytes over 2 */
  sr->tree_bytes_per_visit = sr->visits > 0 ? tree_bytes / (double)sr->visits : 0;
  sr->nodes_per_visit = sr->visits > 0 ? tree_nodes / (double)sr->visits : 0;
  sr->search_cpu_per_visit = sr->visits > 0 ? sr->search_cpu_seconds / (double)sr->visits : 0;
  free(seconds);
  return CF_OK;
}

/* Plain evaluations/s of a swept batch size as the search's own rate is
 * taken, work over total time: batch / mean call time (the sweep's
 * evals_per_second is batch / median, robust to outliers the search's
 * total is not spared). */
static double mean_rate(const bench_batch_run *b) {
  return b->eval_seconds.mean > 0 ? b->batch / b->eval_seconds.mean : 0;
}

void bench_search_efficiency(bench_search_run *s, double search_evals_per_second,
                             const bench_batch_run *batches, int n_batches) {
  const bench_batch_run *near = NULL, *mini = NULL;
  for (int i = 0; i < n_batches; i++) {
    const bench_batch_run *b = &batches[i];
    if (b->batch == s->minibatch) mini = b;
    if (!near) {
      near = b;
      continue;
    }
    double d = fabs(b->batch - s->mean_batch), dn = fabs(near->batch - s->mean_batch);
    if (d < dn || (d == dn && b->batch > near->batch)) near = b;
  }
  s->reference_batch = near ? near->batch : 0;
  s->reference_evals_per_second = near ? mean_rate(near) : 0;
  s->efficiency = s->reference_evals_per_second > 0
                      ? search_evals_per_second / s->reference_evals_per_second
                      : NAN;
  s->minibatch_evals_per_second = mini ? mean_rate(mini) : 0;
  s->efficiency_at_minibatch = s->minibatch_evals_per_second > 0
                                   ? search_evals_per_second / s->minibatch_evals_per_second
                                   : NAN;
}
