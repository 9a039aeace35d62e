/* bench_report.h: everything one `cformer bench` run measured, as plain data.
 * The runner fills it; the writers (table, JSON, SVG) only read it, so each
 * output form is one small file and the tests can feed the writers a report
 * built by hand. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdbool.h>

#include "common/cf_status.h"
#include "tools/bench/bench_clock.h"
#include "tools/bench/bench_matmul_peak.h"
#include "tools/bench/bench_sgemm.h"

#define BENCH_SCHEMA_VERSION 2
#define BENCH_MAX_BACKENDS 16
#define BENCH_MAX_BATCHES 16
#define BENCH_NAME_MAX 64
#define BENCH_MAX_COST_PARTS 12

typedef struct bench_cost_part {
  const char *name; /* a static string */
  double macs;
} bench_cost_part;

/* The network's shape and cost per evaluation (spec section 8). */
typedef struct bench_net {
  char source[256];     /* the --weights path or the --arch text */
  char arch[128];       /* "8x256x8x256 ..." human summary */
  int layers, d_model, heads, dff;
  double params;        /* weights count */
  double paper_macs;    /* MACs per evaluation by the paper's rule */
  double full_flops;    /* FLOPs per evaluation, everything, 2 per MAC */
  int n_parts;          /* the full count's MACs by part (tools/netcost/cf_cost.h) */
  bench_cost_part parts[BENCH_MAX_COST_PARTS];
} bench_net;

/* The search agent's own figures (bench_search.h): a fixed number of
 * visits per move, smart pruning off, a fresh tree per position. */
typedef struct bench_search_run {
  int visits_target;            /* --search-nodes */
  int minibatch;                /* MinibatchSize used */
  long long visits;             /* root visits over the suite */
  int visits_min, visits_max;   /* fewest / most in one move */
  int solved;                   /* moves ended before the target: the root was proven */
  long long cache_hits;         /* leaves answered by the NN cache */
  long long batches;            /* network calls */
  long long collisions;         /* gathering collisions */
  double visits_per_second;     /* nodes/s: visits / total move time */
  double cache_hit_rate;        /* cache_hits / (evals + cache_hits) */
  double mean_batch;            /* evals / batches */
  double tree_bytes_per_visit;  /* the tree's bytes at the end of each move, summed / visits */
  double nodes_per_visit;       /* the tree's nodes at the end of each move, summed / visits */
  /* The search's own CPU time: the searching thread's CPU time over each
   * move less its CPU time inside the network's calls (cf_search_counters),
   * summed; what the network costs on any thread is never in it. */
  double search_cpu_seconds;
  double net_call_cpu_seconds;  /* the searching thread's CPU time inside network calls */
  double search_cpu_per_visit;  /* search_cpu_seconds / visits */
  /* From the same backend's batch sweep (bench_search_efficiency): */
  int reference_batch;          /* the swept batch size nearest mean_batch */
  double reference_evals_per_second; /* plain cf_net_eval at reference_batch: batch / mean call time */
  double efficiency;            /* the search's evals/s / reference_evals_per_second */
  double minibatch_evals_per_second; /* plain cf_net_eval at minibatch: batch / mean call time */
  double efficiency_at_minibatch;    /* the search's evals/s / minibatch_evals_per_second */
} bench_search_run;

/* One agent on one backend over the suite: cost and time per move. */
typedef struct bench_agent_run {
  char agent[BENCH_NAME_MAX]; /* "policy", "value", "search" */
  int positions;
  long long evals;            /* evaluations over the whole suite */
  double evals_per_move;      /* evals / positions */
  int evals_min, evals_max;   /* fewest / most in one move */
  double flops_per_move;      /* evals_per_move * full_flops */
  double paper_flops_per_move;/* evals_per_move * paper_macs: the paper's per-move figure */
  bench_stats move_seconds;   /* wall time of each move */
  double warmup_seconds;      /* the untimed move before them (one-time setup included) */
  double evals_per_second;    /* evals / total move time */
  char signature[17];         /* this agent's moves over the suite */
  bool has_search;            /* the search agent: `search` below is filled */
  bench_search_run search;
} bench_agent_run;

/* Throughput at one batch size. */
typedef struct bench_batch_run {
  int batch;
  bench_stats eval_seconds;   /* wall time of one cf_net_eval of `batch` positions */
  double evals_per_second;    /* batch / median */
  double gflops;              /* evals_per_second * full_flops / 1e9 */
} bench_batch_run;

typedef struct bench_backend_run {
  char name[BENCH_NAME_MAX];
  char variant[192]; /* the backend's code path (cf_backend_variant): the CPU
                                   backends' kernel set, "avx512", "avx2", "portable";
                                   "" = a backend with only one */
  bool skipped;
  char skip_reason[CF_ERROR_MSG_MAX];
  char signature[17];         /* over every agent's moves */
  int n_agents;
  bench_agent_run agents[4]; /* one per agent measured (bench_cmd.c MAX_AGENTS) */
  int n_batches;
  /* the --batches sweep in order, plus the search's minibatch size when
   * the search agent ran and the list lacked it */
  bench_batch_run batches[BENCH_MAX_BATCHES + 1];
} bench_backend_run;

typedef struct bench_report {
  char version[32];           /* cformer version */
  bool cost_only;
  bench_net net;
  char suite[256];            /* the position file */
  int suite_positions;        /* positions used */
  bench_sgemm sgemm;
  /* bf16 and int8 (bench_peak_precision_at order): the yardsticks of runs
   * at those precisions (bench_yardstick.h) */
  bench_matmul_peak peaks[BENCH_PEAK_PRECISIONS];
  int cpus;                   /* processors online */
  double load_average;        /* 1-minute load average when the run started; < 0 unknown */
  char backend_options[128];  /* --backend-opts as given ("" = none: the backends' defaults) */
  char signature[17];         /* the first backend's signature (the headline) */
  int n_backends;
  bench_backend_run backends[BENCH_MAX_BACKENDS];
} bench_report;

#endif /* BENCH_REPORT_H */
