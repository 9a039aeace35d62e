/* bench_estimate.c: see bench_estimate.h. */
#include "tools/bench/bench_estimate.h"

#include <math.h>
#include <stdio.h>

#include "chess/cf_movegen.h"
#include "tools/bench/bench_clock.h"
#include "tools/bench/bench_inputs.h"

double bench_plan_mean_legal(const bench_suite *suite) {
  double sum = 0;
  for (int i = 0; i < suite->count; i++) {
    cf_movelist list;
    sum += cf_generate_legal(cf_game_position(&suite->entries[i].game), &list);
  }
  return suite->count > 0 ? sum / suite->count : 0;
}

double bench_estimate_call(const bench_probe *p, int b) {
  if (b <= 1 || p->max_batch <= 1) return p->call_1 * (b > 1 ? b : 1);
  double slope = (p->call_max - p->call_1) / (p->max_batch - 1);
  double t = p->call_1 + slope * (b - 1);
  return t > p->call_1 ? t : p->call_1;
}

double bench_estimate_backend(const bench_plan *plan, const bench_probe *probe) {
  const double moves = plan->positions + 1.0; /* with the warm-up move */
  const int maxb = plan->max_batch > 0 ? plan->max_batch : 1;
  double total = probe->create;
  if (plan->policy) total += moves * bench_estimate_call(probe, 1);
  if (plan->value) {
    /* the root, then the children in batches of up to the net's limit */
    const double legal = plan->mean_legal > 0 ? plan->mean_legal : 1;
    const double passes = ceil(legal / maxb);
    const int per_pass = (int)ceil(legal / passes);
    total += moves * (bench_estimate_call(probe, 1) + passes * bench_estimate_call(probe, per_pass));
  }
  if (plan->search) {
    const int mb = plan->minibatch > 0 ? plan->minibatch : 1;
    total += moves * ceil((double)plan->search_nodes / mb) * bench_estimate_call(probe, mb);
  }
  for (int i = 0; i < plan->n_batches; i++) {
    const double call = bench_estimate_call(probe, plan->batches[i]);
    const double timed = plan->min_calls * call > plan->min_time ? plan->min_calls * call
                                                                 : plan->min_time + call;
    total += call + timed; /* its warm-up call, then the measurement */
  }
  return total;
}

cf_status bench_estimate_probe(const cf_weights *w, const char *name, const cf_kv *backend_options,
                               const bench_suite *suite, int max_batch, bench_probe *out,
                               cf_error *err) {
  *out = (bench_probe){.max_batch = max_batch > 0 ? max_batch : 1};
  cf_net_options opts = {.backend = name, .backend_kv = backend_options,
                         .max_batch = out->max_batch};
  cf_net *net = NULL;
  double t0 = bench_now();
  CF_TRY(cf_net_create(w, &opts, &net, err));
  out->create = bench_now() - t0;
  bench_inputs in = {0};
  cf_status st = bench_inputs_create(suite, net, out->max_batch, &in, err);
  if (st == CF_OK) st = cf_net_eval(net, 1, in.requests, in.outputs, err); /* warm-up */
  if (st == CF_OK) {
    t0 = bench_now();
    st = cf_net_eval(net, 1, in.requests, in.outputs, err);
    out->call_1 = bench_now() - t0;
  }
  if (st == CF_OK && out->max_batch > 1) {
    t0 = bench_now();
    st = cf_net_eval(net, out->max_batch, in.requests, in.outputs, err);
    out->call_max = bench_now() - t0;
  } else {
    out->call_max = out->call_1;
  }
  bench_inputs_free(&in);
  cf_net_free(net);
  return st;
}

void bench_estimate_text(double seconds, char *out, size_t n) {
  /* the form of the other progress lines' ETAs (puzzles, train.py) */
  if (!(seconds >= 0)) seconds = 0;
  long s = lround(seconds);
  if (s < 1) s = 1;
  if (s < 3600) snprintf(out, n, "%ldm%02lds", s / 60, s % 60);
  else {
    long m = lround(seconds / 60);
    snprintf(out, n, "%ldh%02ldm", m / 60, m % 60);
  }
}
