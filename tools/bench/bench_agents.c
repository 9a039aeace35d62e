/* bench_agents.c: see bench_agents.h. Signature items per position, in
 * suite order: the agent's name, the position id, the chosen move (UCI) and
 * its Q quantised (bench_signature.h). */
#include "tools/bench/bench_agents.h"

#include <stdio.h>
#include <stdlib.h>

#include "chess/cf_move_uci.h"
#include "tools/bench/bench_clock.h"

cf_status bench_agent_measure(const cf_agent_desc *agent, cf_net *net, bench_suite *suite,
                              double paper_macs, double full_flops, bench_signature *backend_sig,
                              bench_progress *progress, bench_agent_run *out, cf_error *err) {
  *out = (bench_agent_run){.positions = suite->count};
  snprintf(out->agent, sizeof out->agent, "%s", agent->name);
  double *seconds = malloc((size_t)suite->count * sizeof *seconds), total = 0;
  if (!seconds) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  bench_signature sig;
  bench_signature_init(&sig);
  char label[96];
  snprintf(label, sizeof label, "%s agent, position", agent->name);
  /* One untimed move first: the first calls on a net pay one-time setup
   * (the backend's kernels for a batch size, thread pools, the first touch
   * of the weights), which is not what a move costs. */
  {
    cf_agent_request req = {.net = net, .game = &suite->entries[0].game};
    cf_agent_result res;
    double t0 = bench_now();
    cf_status st = agent->choose(&req, &res, err);
    out->warmup_seconds = bench_now() - t0;
    if (st != CF_OK) {
      cf_error_prefix(err, "%s agent's warm-up at suite position %s", agent->name,
                      suite->entries[0].id);
      free(seconds);
      return st;
    }
    bench_progress_stage(progress, "  warm-up: one untimed %s move took %.3f s", agent->name,
                         out->warmup_seconds);
  }
  for (int i = 0; i < suite->count; i++) {
    cf_agent_request req = {.net = net, .game = &suite->entries[i].game};
    cf_agent_result res;
    double t0 = bench_now();
    cf_status st = agent->choose(&req, &res, err);
    seconds[i] = bench_now() - t0;
    if (st != CF_OK) {
      cf_error_prefix(err, "%s agent at suite position %s", agent->name, suite->entries[i].id);
      free(seconds);
      return st;
    }
    total += seconds[i];
    out->evals += res.evals;
    if (i == 0 || res.evals < out->evals_min) out->evals_min = (int)res.evals;
    if (i == 0 || res.evals > out->evals_max) out->evals_max = (int)res.evals;
    char uci[CF_UCI_MOVE_MAX];
    cf_move_write_uci(res.best, cf_game_position(&suite->entries[i].game)->chess960, uci);
    bench_signature *sigs[2] = {&sig, backend_sig};
    for (int k = 0; k < 2; k++) {
      if (!sigs[k]) continue;
      bench_signature_text(sigs[k], agent->name);
      bench_signature_text(sigs[k], suite->entries[i].id);
      bench_signature_text(sigs[k], uci);
      bench_signature_quantised(sigs[k], res.q);
    }
    bench_progress_step(progress, label, i + 1, suite->count);
  }
  out->evals_per_move = (double)out->evals / suite->count;
  out->flops_per_move = out->evals_per_move * full_flops;
  out->paper_flops_per_move = out->evals_per_move * paper_macs; /* Table II's per-move rule */
  out->evals_per_second = total > 0 ? (double)out->evals / total : 0;
  out->move_seconds = bench_stats_of(seconds, (size_t)suite->count);
  bench_signature_hex(&sig, out->signature);
  free(seconds);
  return CF_OK;
}
