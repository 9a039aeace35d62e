/* bench_estimate.h: how long a `cformer bench --backend all` run will
 * take, said before it starts (every backend over the whole suite can take
 * hours on a big net: the person should know before waiting, or narrow
 * the run with --backend, --agents, --positions).
 *
 * Each backend is probed: its net is created (timed), one evaluation at
 * batch 1 warms it up, then one at batch 1 and one at the run's largest
 * batch are timed. A call of b positions is taken to cost the straight
 * line through those two points, and the run's stages are added up from
 * what they do: the policy agent one evaluation per move, the value agent
 * the root and every legal child in batches, the search agent its visits
 * in minibatches, the batch sweep --min-calls calls or --min-time per
 * size, each agent with its warm-up move. Rough by design (the search's
 * batches are often smaller than its minibatch, caches answer some
 * leaves, a loaded machine is slower): a guide, not a promise. */
#ifndef BENCH_ESTIMATE_H
#define BENCH_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "net/cf_net.h"
#include "tools/bench/bench_suite.h"
#include "weights/cf_weights.h"

/* What the run will do on each backend. */
typedef struct bench_plan {
  int positions;         /* suite positions */
  double mean_legal;     /* legal moves per suite position, on average */
  bool policy, value, search; /* the agents run */
  int search_nodes;      /* --search-nodes */
  int minibatch;         /* the search's minibatch */
  int max_batch;         /* the net's batch limit (the largest swept batch) */
  const int *batches;    /* the sweep's batch sizes */
  int n_batches;
  double min_time;       /* --min-time */
  int min_calls;         /* --min-calls */
} bench_plan;

/* One backend's probe (seconds). */
typedef struct bench_probe {
  double create;   /* creating the net */
  double call_1;   /* one evaluation at batch 1, warm */
  double call_max; /* one call at max_batch */
  int max_batch;
} bench_probe;

/* The suite's mean number of legal moves per position. */
double bench_plan_mean_legal(const bench_suite *suite);

/* Seconds of one call of b positions, by the probe's straight line
 * (never below the batch-1 time). */
double bench_estimate_call(const bench_probe *p, int b);

/* Seconds of the plan on the probed backend (net creation included). */
double bench_estimate_backend(const bench_plan *plan, const bench_probe *probe);

/* Probes backend `name` with the net built from w (max_batch slots,
 * backend_options as the run passes them; NULL: none). */
cf_status bench_estimate_probe(const cf_weights *w, const char *name, const cf_kv *backend_options,
                               const bench_suite *suite, int max_batch, bench_probe *out,
                               cf_error *err);

/* A duration as the progress lines' ETAs write it: "0m40s", "3m20s",
 * "2h05m". */
void bench_estimate_text(double seconds, char *out, size_t n);

#endif /* BENCH_ESTIMATE_H */
