/* bench_cmd.c: `cformer bench`, what a net costs and how fast this machine
 * runs it (issue 8; docs/BENCH.md).
 *
 *     cformer bench (--weights NET | --arch cf-6m|cf-240m|LxD[xH[xF]])
 *                   [--backend NAME|all] [--backend-opts OPTS] [--threads N] [--batches LIST]
 *                   [--agents LIST] [--search-nodes N] [--minibatch N]
 *                   [--positions N] [--suite FILE] [--min-time S] [--min-calls N]
 *                   [--seed N] [--json] [--svg FILE] [--cost-only] [--no-sgemm] [--quiet]
 *                   [--syzygy-paths DIRS]
 *
 * Stages: cost model -> weights -> suite -> matmul peaks (f32 sgemm, bf16,
 * int8) -> for each backend:
 * the agents over the suite (time per move, evaluations, signature; the
 * search agent also nodes/s, cache hits, batch sizes, tree memory), then
 * the batch sweep (with the search's minibatch size in it), then the
 * search's efficiency against that sweep. Progress goes to stderr, the
 * report to stdout. Flags: tools/cli/cf_cli.h; exit status 2 for a bad
 * command line (a backend refusing --backend-opts included), 1 when the
 * network, the suite, a backend or the output fails. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/cf_backend.h"
#include "engine/cf_agent.h"
#include "engine/search/cf_search.h"
#include "engine/syzygy/cf_syzygy.h"
#include "tools/bench/bench_agents.h"
#include "tools/bench/bench_arch.h"
#include "tools/bench/bench_estimate.h"
#include "tools/bench/bench_inputs.h"
#include "tools/bench/bench_json.h"
#include "tools/bench/bench_peak_cache.h"
#include "tools/bench/bench_progress.h"
#include "tools/bench/bench_search.h"
#include "tools/bench/bench_svg.h"
#include "tools/bench/bench_table.h"
#include "tools/bench/bench_throughput.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/data/cf_data_path.h"
#include "tools/netcost/cf_cost.h"
#include "tools/random_net/cf_weights_random.h"

#define PROG "cformer bench" /* cf_cli_fail's prefix */

#ifndef CF_VERSION
#define CF_VERSION "unknown"
#endif

#define MAX_BATCH 4096
#define MAX_AGENTS 4
#define DEFAULT_BATCHES "1,2,4,8,16,32,64"
/* The search agent's visits per move: the default, and the fewest that
 * still make batches worth timing (the first batch is the root alone). */
#define DEFAULT_SEARCH_NODES 200
#define MIN_SEARCH_NODES 10
#define MAX_SEARCH_NODES 1000000
/* Seconds the sgemm peak is measured for, per thread count; the bf16 and
 * int8 peaks take as long per shape, method and thread count. */
#define SGEMM_MIN_SECONDS 0.3
/* cf_search's MinibatchSize range (engine/search/cf_search.c). */
#define MAX_MINIBATCH 1024

typedef struct bench_args {
  const char *weights, *arch, *backend, *backend_opts, *suite, *svg;
  const char *syzygy; /* --syzygy-paths: tables the search agent probes (what they cost) */
  cf_kv *kv; /* --backend-opts with --threads, parsed: what every run reads */
  char options[sizeof ((bench_report *)0)->backend_options]; /* its rendering, for the report */
  int threads;
  int batches[BENCH_MAX_BATCHES], n_batches;
  const cf_agent_desc *agents[MAX_AGENTS];
  int n_agents;
  int positions, min_calls;
  int search_nodes; /* the search agent's visits per move */
  int minibatch;    /* its MinibatchSize; 0 = the backend's default */
  double min_time;
  uint64_t seed;
  bool json, cost_only, no_sgemm, quiet;
  bool remeasure_peaks; /* measure the peaks even when cached */
  double peak_seconds;  /* per peak measurement (hidden; tests make it short) */
  cf_weights_load_options load; /* --weights-max-mb */
} bench_args;

static bool parse_int(const char *text, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

/* Empties the list *count counts, then calls take(a, item, ...) for each
 * comma-separated item of text, in order: false (why set) at the first it
 * refuses, for a text too long, or for no item ("expected at least one
 * WHAT"). */
typedef bool (*list_item_fn)(bench_args *a, const char *item, char *why, size_t why_size);
static bool set_list(bench_args *a, const char *text, list_item_fn take, int *count,
                     const char *what, char *why, size_t why_size) {
  char copy[256], *save = NULL;
  if (strlen(text) >= sizeof copy) return snprintf(why, why_size, "list too long"), false;
  snprintf(copy, sizeof copy, "%s", text);
  *count = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (!take(a, tok, why, why_size)) return false;
  if (*count == 0) return snprintf(why, why_size, "expected at least one %s", what), false;
  return true;
}

static bool add_batch(bench_args *a, const char *tok, char *why, size_t why_size) {
  if (a->n_batches == BENCH_MAX_BATCHES)
    return snprintf(why, why_size, "at most %d batch sizes", BENCH_MAX_BATCHES), false;
  if (!parse_int(tok, 1, MAX_BATCH, &a->batches[a->n_batches]))
    return snprintf(why, why_size, "bad batch size '%s' (expected 1 to %d)", tok, MAX_BATCH),
           false;
  a->n_batches++;
  return true;
}

/* --batches LIST (ctx: the bench_args). */
static bool set_batches(void *ctx, const char *text, char *why, size_t why_size) {
  bench_args *a = ctx;
  return set_list(a, text, add_batch, &a->n_batches, "batch size", why, why_size);
}

static bool add_agent(bench_args *a, const char *tok, char *why, size_t why_size) {
  const cf_agent_desc *d = cf_agent_find(tok);
  if (!d) {
    size_t at = (size_t)snprintf(why, why_size, "unknown agent '%s' (expected", tok);
    for (int i = 0; i < cf_agent_count() && at < why_size; i++)
      at += (size_t)snprintf(why + at, why_size - at, " %s", cf_agent_at(i)->name);
    if (at < why_size) snprintf(why + at, why_size - at, ")");
    return false;
  }
  for (int i = 0; i < a->n_agents; i++)
    if (strcmp(a->agents[i]->name, d->name) == 0)
      return snprintf(why, why_size, "agent '%s' given twice", tok), false;
  if (a->n_agents == MAX_AGENTS) return snprintf(why, why_size, "at most %d agents", MAX_AGENTS), false;
  a->agents[a->n_agents++] = d;
  return true;
}

/* --agents LIST (ctx: the bench_args). */
static bool set_agents(void *ctx, const char *text, char *why, size_t why_size) {
  bench_args *a = ctx;
  return set_list(a, text, add_agent, &a->n_agents, "agent", why, why_size);
}

/* --arch SPEC: the shape must build (without building any weights). */
static bool check_arch(void *ctx, const char *text, char *why, size_t why_size) {
  (void)ctx;
  cf_random_spec spec;
  cf_net_arch arch;
  size_t params;
  cf_error err = {0};
  if (bench_arch_parse(text, 1, &spec, &err) == CF_OK &&
      cf_random_spec_arch(&spec, &arch, &params, &err) == CF_OK)
    return true;
  /* bench_arch_parse says "bad --arch 'TEXT': why"; the parser names both */
  const char *msg = err.msg, *colon = strstr(msg, "': ");
  if (strncmp(msg, "bad --arch '", 12) == 0 && colon) msg = colon + 3;
  snprintf(why, why_size, "%s", msg);
  return false;
}

#define USAGE_TEXT                                                                            \
  "usage: cformer bench (--weights NET | --arch cf-6m|cf-240m|LxD[xH[xF]]) [options]\n\n"     \
  "Measures a network's cost and speed as the Chessformer paper compares agents:\n"          \
  "FLOPs per evaluation (paper rule and full count); evaluations, FLOPs and time per\n"      \
  "move for each agent over a fixed suite of real-game positions; evaluations/s and\n"      \
  "GFLOP/s per backend and batch size next to this machine's matmul peak in the\n"          \
  "run's precision (f32 sgemm; bf16 or int8 with --backend-opts precision=...).\n"          \
  "Prints a table (or JSON), a bench signature that changes when behaviour\n"               \
  "changes, and optionally an SVG chart of time per move against FLOPs per move.\n"         \
  "docs/BENCH.md.\n\n"

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, bench_args *a) {
  *a = (bench_args){.suite = NULL, .min_time = 0.5, .min_calls = 3, .seed = 1,
                    .search_nodes = DEFAULT_SEARCH_NODES, .load = CF_CLI_WEIGHTS_LOAD};
  char why[128];
  set_batches(a, DEFAULT_BATCHES, why, sizeof why);
  for (int i = 0; i < cf_agent_count() && i < MAX_AGENTS; i++)
    a->agents[a->n_agents++] = cf_agent_at(i);
  char backend_help[256], batches_help[256], agents_help[256], nodes_help[160], mb_help[200];
  size_t at = (size_t)snprintf(backend_help, sizeof backend_help,
                               "a backend, or 'all' for every available one (default: the\n"
                               "best available); registered:");
  for (int i = 0; i < cf_backend_count() && at < sizeof backend_help; i++)
    if (cf_backend_at(i)->priority >= 0)
      at += (size_t)snprintf(backend_help + at, sizeof backend_help - at, " %s",
                             cf_backend_at(i)->name);
  snprintf(batches_help, sizeof batches_help,
           "batch sizes to sweep, comma separated (default %s);\n"
           "the search agent's minibatch size is added when missing;\n"
           "the largest is the net's batch limit (the value agent's)",
           DEFAULT_BATCHES);
  at = (size_t)snprintf(agents_help, sizeof agents_help,
                        "agents to time, comma separated (default: all of");
  for (int i = 0; i < cf_agent_count() && at < sizeof agents_help; i++)
    at += (size_t)snprintf(agents_help + at, sizeof agents_help - at, " %s", cf_agent_at(i)->name);
  if (at < sizeof agents_help) snprintf(agents_help + at, sizeof agents_help - at, ")");
  snprintf(nodes_help, sizeof nodes_help,
           "the search agent's visits per move, %d to %d (default %d);\n"
           "smart pruning off, a fresh tree per position",
           MIN_SEARCH_NODES, MAX_SEARCH_NODES, DEFAULT_SEARCH_NODES);
  snprintf(mb_help, sizeof mb_help,
           "the search agent's MinibatchSize, 1 to %d (default: the\n"
           "backend's, e.g. %d on CPU backends)",
           MAX_MINIBATCH, cf_search_default_minibatch("onednn"));
  cf_cli_flag flags[] = {
      {.name = "weights", .letter = 'w', .kind = CF_CLI_STRING, .dest = &a->weights, .arg = "NET",
       .help = "network file (.pb.gz), or <built in>"},
      CF_CLI_WEIGHTS_MAX_MB_FLAG(&a->load),
      {.name = "arch", .kind = CF_CLI_STRING, .dest = &a->arch, .arg = "SPEC", .set = check_arch,
       .help = "random weights of a shape instead (deterministic): cf-6m,\n"
               "cf-240m, or LxD[xH[xF]] = layers x width [x heads (D/32)\n"
               "[x FFN width (D)]] in the CF-6M style, e.g. 4x128"},
      {.name = "backend", .letter = 'b', .kind = CF_CLI_STRING, .dest = &a->backend, .arg = "NAME",
       .set = cf_cli_check_backend, .ctx = a, .help = backend_help},
      {.name = "backend-opts", .letter = 'o', .kind = CF_CLI_STRING, .dest = &a->backend_opts,
       .arg = "OPTS",
       .help = "backend options for every backend run, key=value,...\n"
               "(e.g. threads=2; default: none, the backends' defaults)"},
      {.name = "threads", .letter = 't', .kind = CF_CLI_INT, .dest = &a->threads, .imin = 1,
       .imax = 128,
       .help = "threads evaluating each batch: lanes=N unless --backend-opts\nsets lanes or threads"},
      {.name = "batches", .kind = CF_CLI_STRING, .arg = "LIST", .set = set_batches, .ctx = a,
       .help = batches_help},
      {.name = "agents", .kind = CF_CLI_STRING, .arg = "LIST", .set = set_agents, .ctx = a,
       .help = agents_help},
      {.name = "search-nodes", .kind = CF_CLI_INT, .dest = &a->search_nodes,
       .imin = MIN_SEARCH_NODES, .imax = MAX_SEARCH_NODES, .help = nodes_help},
      {.name = "minibatch", .kind = CF_CLI_INT, .dest = &a->minibatch, .imin = 1,
       .imax = MAX_MINIBATCH, .help = mb_help},
      {.name = "positions", .kind = CF_CLI_INT, .dest = &a->positions, .imin = 1, .imax = 1000000,
       .help = "use the first N suite positions (default: all)"},
      {.name = "suite", .kind = CF_CLI_STRING, .dest = &a->suite, .arg = "FILE",
       .help = "position suite, lines id|fen|moves (default: the shipped one)"},
      {.name = "min-time", .kind = CF_CLI_DOUBLE, .dest = &a->min_time, .arg = "S", .dmin = 0,
       .dmax = 3600, .help = "seconds per batch size measurement, 0 to 3600 (default 0.5)"},
      {.name = "min-calls", .kind = CF_CLI_INT, .dest = &a->min_calls, .imin = 1, .imax = 1000000,
       .help = "calls per batch size measurement, at least (default 3)"},
      {.name = "seed", .kind = CF_CLI_U64, .dest = &a->seed,
       .help = "seed of --arch random weights (default 1)"},
      {.name = "json", .kind = CF_CLI_BOOL, .dest = &a->json,
       .help = "print the report as JSON (schema: docs/BENCH.md)"},
      {.name = "svg", .kind = CF_CLI_STRING, .dest = &a->svg, .arg = "FILE",
       .help = "also write the chart to FILE"},
      {.name = "cost-only", .kind = CF_CLI_BOOL, .dest = &a->cost_only,
       .help = "print the cost model alone, at once (no timing)"},
      {.name = "no-sgemm", .kind = CF_CLI_BOOL, .dest = &a->no_sgemm,
       .help = "skip measuring the matmul peaks (f32 sgemm, bf16, int8)"},
      {.name = "remeasure-peaks", .kind = CF_CLI_BOOL, .dest = &a->remeasure_peaks,
       .help = "measure the matmul peaks again instead of reading this machine's\n"
               "cached ones (kept per machine and build in $HOME/.cache/cformer)"},
      {.name = "peak-seconds", .kind = CF_CLI_DOUBLE, .dest = &a->peak_seconds, .dmin = 0.001,
       .dmax = 60, .attrs = CF_CLI_HIDDEN},
      {.name = "syzygy-paths", .letter = 's', .kind = CF_CLI_STRING, .dest = &a->syzygy,
       .arg = "DIRS",
       .help = "Syzygy tables for the search agent (directories separated by ':',\n"
               "as the engine's SyzygyPath), to measure what probing costs"},
      {.name = "quiet", .kind = CF_CLI_BOOL, .dest = &a->quiet,
       .help = "no progress output on stderr"},
  };
  cf_cli_spec spec = {.prog = "cformer bench", .version = "cformer " CF_VERSION,
                      .usage = USAGE_TEXT, .flags = flags,
                      .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
  if (!a->weights == !a->arch)
    return cf_cli_usage_error(&spec, "give exactly one of --weights NET and --arch SPEC");
  if (a->cost_only && a->svg)
    return cf_cli_usage_error(&spec, "--svg charts measured times; it does not go with --cost-only");
  if (a->backend && strcmp(a->backend, "auto") == 0) a->backend = NULL;
  /* The options every run reads (--backend-opts with --threads set on
   * it), parsed once, and as the report records them. */
  cf_error err = {0};
  if (cf_cli_backend_options(a->backend_opts, a->threads, &a->kv, &err) != CF_OK)
    return cf_cli_usage_error(&spec, "%s", err.msg);
  char *text = cf_kv_render(a->kv);
  const bool fits = text && strlen(text) < sizeof a->options;
  if (fits) snprintf(a->options, sizeof a->options, "%s", text);
  free(text);
  if (!fits) {
    cf_kv_free(a->kv);
    return cf_cli_usage_error(&spec, "--backend-opts too long (at most %zu characters)",
                              sizeof a->options - 1);
  }
  if (!a->options[0]) a->backend_opts = NULL; /* none: the backends' defaults */
  else a->backend_opts = a->options;
  return -1;
}

/* The cost model of the net (from its shape alone for --arch). */
static cf_status describe_net(const bench_args *a, const cf_weights *w, bench_net *net,
                              cf_error *err) {
  cf_net_arch arch;
  size_t params = 0;
  cf_cost cost;
  if (w) {
    arch = w->arch;
    params = w->param_count;
    CF_TRY(cf_cost_from_weights(w, &cost, err));
  } else {
    cf_random_spec spec;
    CF_TRY(bench_arch_parse(a->arch, a->seed, &spec, err));
    CF_TRY(cf_random_spec_arch(&spec, &arch, &params, err));
    CF_TRY(cf_cost_from_arch(&arch, &cost, err));
  }
  snprintf(net->source, sizeof net->source, "%s", a->weights ? a->weights : a->arch);
  bench_arch_summary(&arch, net->arch, sizeof net->arch);
  net->layers = arch.layers;
  net->d_model = arch.d;
  net->heads = arch.heads;
  net->dff = arch.dff;
  net->params = (double)params;
  net->paper_macs = (double)cost.paper_macs;
  net->full_flops = (double)cost.full_flops;
  const struct {
    const char *name;
    uint64_t macs;
  } parts[] = {{"embedding", cost.parts.embedding},
               {"projections", cost.parts.projections},
               {"ffn", cost.parts.ffn},
               {"attention", cost.parts.attention},
               {"rpe", cost.parts.rpe},
               {"smolgen", cost.parts.smolgen},
               {"policy_embedding", cost.parts.policy_embedding},
               {"policy_head", cost.parts.policy_head},
               {"value_head", cost.parts.value_head},
               {"moves_left", cost.parts.moves_left}};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0] && i < BENCH_MAX_COST_PARTS; i++)
    net->parts[net->n_parts++] = (bench_cost_part){parts[i].name, (double)parts[i].macs};
  return CF_OK;
}

static cf_status make_weights(const bench_args *a, bench_progress *progress, cf_weights **w,
                              cf_error *err) {
  if (a->weights) {
    bench_progress_stage(progress, "loading %s", a->weights);
    return cf_cli_load_weights(a->weights, &a->load, w, err);
  }
  cf_random_spec spec;
  CF_TRY(bench_arch_parse(a->arch, a->seed, &spec, err));
  bench_progress_stage(progress, "building random weights for %s (seed %llu)", a->arch,
                       (unsigned long long)a->seed);
  return cf_weights_random(&spec, w, err);
}

static bool runs_search(const bench_args *a) {
  for (int i = 0; i < a->n_agents; i++)
    if (cf_agent_has(a->agents[i], CF_AGENT_BUILDS_TREE)) return true;
  return false;
}

/* One backend's batch sweep: --batches in order, then the search's
 * minibatch size when the search agent runs and the list lacks it (so its
 * efficiency has a plain figure at its own batch size). Returns the count;
 * *largest: the biggest, the net's batch limit. */
static int backend_batches(const bench_args *a, int minibatch, int out[BENCH_MAX_BATCHES + 1],
                           int *largest) {
  int n = 0;
  bool has = false;
  *largest = 1;
  for (int i = 0; i < a->n_batches; i++) {
    out[n++] = a->batches[i];
    has |= a->batches[i] == minibatch;
  }
  if (runs_search(a) && !has) out[n++] = minibatch;
  for (int i = 0; i < n; i++)
    if (out[i] > *largest) *largest = out[i];
  return n;
}

/* Agents and batch sweep on one backend; a backend that cannot run the net
 * is recorded as skipped, not an error (unless skip_ok is false: the one
 * backend asked for, with --backend-opts that it refused). */
static cf_status run_backend(const bench_args *a, const cf_weights *w, const char *name,
                             bool skip_ok, bench_suite *suite, const bench_net *cost,
                             bench_progress *progress, bench_backend_run *out, cf_error *err) {
  snprintf(out->name, sizeof out->name, "%s", name);
  const int minibatch = a->minibatch > 0 ? a->minibatch : cf_search_default_minibatch(name);
  int batches[BENCH_MAX_BATCHES + 1], largest;
  const int n_batches = backend_batches(a, minibatch, batches, &largest);
  cf_net_options opts = {.backend = name, .backend_kv = a->kv,
                         .max_batch = largest};
  cf_net *net = NULL;
  cf_error why = {0};
  bench_progress_stage(progress, "%s: creating the net (max batch %d%s%s)", name, opts.max_batch,
                       a->backend_opts ? ", options " : "", a->backend_opts ? a->backend_opts : "");
  if (cf_net_create(w, &opts, &net, &why) != CF_OK) {
    if (!skip_ok) return cf_error_set(err, why.status, "%s", why.msg);
    out->skipped = true;
    snprintf(out->skip_reason, sizeof out->skip_reason, "%s", why.msg);
    bench_progress_stage(progress, "%s: skipped: %s", name, why.msg);
    return CF_OK;
  }
  const char *variant = cf_net_get_info(net)->backend_variant;
  snprintf(out->variant, sizeof out->variant, "%s", variant ? variant : "");
  if (variant) bench_progress_stage(progress, "%s: %s kernels", name, variant);
  bench_signature sig;
  bench_signature_init(&sig);
  cf_status st = CF_OK;
  for (int i = 0; i < a->n_agents && st == CF_OK; i++) {
    const cf_agent_desc *agent = a->agents[i];
    bench_agent_run *run = &out->agents[out->n_agents];
    if (cf_agent_has(agent, CF_AGENT_BUILDS_TREE)) {
      bench_progress_stage(progress, "%s: search agent over %d positions (%d visits, minibatch %d)",
                           name, suite->count, a->search_nodes, minibatch);
      st = bench_search_measure(net, suite, a->search_nodes, minibatch, cost->paper_macs,
                                cost->full_flops, &sig, progress, run, err);
    } else {
      bench_progress_stage(progress, "%s: %s agent over %d positions", name, agent->name,
                           suite->count);
      st = bench_agent_measure(agent, net, suite, cost->paper_macs, cost->full_flops, &sig,
                               progress, run, err);
    }
    if (st == CF_OK) out->n_agents++;
  }
  bench_signature_hex(&sig, out->signature);
  bench_inputs in = {0};
  if (st == CF_OK) st = bench_inputs_create(suite, net, largest, &in, err);
  for (int i = 0; i < n_batches && st == CF_OK; i++) {
    bench_progress_stage(progress, "%s: batch %d (%d of %d)", name, batches[i], i + 1, n_batches);
    st = bench_throughput_measure(net, &in, batches[i], a->min_time, a->min_calls,
                                  cost->full_flops, &out->batches[out->n_batches], err);
    if (st == CF_OK) out->n_batches++;
  }
  for (int i = 0; i < out->n_agents && st == CF_OK; i++)
    if (out->agents[i].has_search)
      bench_search_efficiency(&out->agents[i].search, out->agents[i].evals_per_second,
                              out->batches, out->n_batches);
  bench_inputs_free(&in);
  cf_net_free(net);
  if (st != CF_OK) cf_error_prefix(err, "backend %s", name);
  return st;
}

/* Whether the agent of that name runs (agents are told apart by name or
 * capability, never by descriptor pointer). */
static bool runs_agent(const bench_args *a, const char *name) {
  for (int i = 0; i < a->n_agents; i++)
    if (strcmp(a->agents[i]->name, name) == 0) return true;
  return false;
}

/* --backend all: probes each available backend and says, before the run,
 * about how long it will take (bench_estimate.h). Progress output only:
 * nothing of it goes into the report. */
static void announce_estimate(const bench_args *a, const cf_weights *w, const bench_suite *suite,
                              int d_model, bench_progress *progress) {
  if (!progress->enabled || !a->backend || strcmp(a->backend, "all") != 0) return;
  bench_plan plan = {.positions = suite->count, .mean_legal = bench_plan_mean_legal(suite),
                     .policy = runs_agent(a, cf_agent_policy_desc.name),
                     .value = runs_agent(a, cf_agent_value_desc.name), .search = runs_search(a),
                     .search_nodes = a->search_nodes, .min_time = a->min_time,
                     .min_calls = a->min_calls};
  char path[4096], key[2048], why[1400];
  bench_peaks cached;
  bench_peak_cache_key(key, sizeof key);
  const bool peaks_cached = !a->no_sgemm && !a->remeasure_peaks &&
                            bench_peak_cache_path(d_model, path, sizeof path) &&
                            bench_peak_cache_read(path, key, &cached, why, sizeof why) ==
                                BENCH_PEAKS_CACHED;
  double total = a->no_sgemm || peaks_cached ? 0 : 2 * SGEMM_MIN_SECONDS;
  for (int i = 0; i < BENCH_PEAK_PRECISIONS && !a->no_sgemm && !peaks_cached; i++)
    total += bench_matmul_peak_seconds(bench_peak_precision_at(i), d_model, SGEMM_MIN_SECONDS);
  char parts[1024] = "", one[32];
  size_t at = 0;
  int n = 0;
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || (d->probe && !d->probe())) continue; /* as run_backends skips */
    int batches[BENCH_MAX_BATCHES + 1], largest;
    plan.minibatch = a->minibatch > 0 ? a->minibatch : cf_search_default_minibatch(d->name);
    plan.n_batches = backend_batches(a, plan.minibatch, batches, &largest);
    plan.batches = batches;
    plan.max_batch = largest;
    bench_progress_stage(progress, "estimating the run's time: probing %s", d->name);
    bench_probe probe;
    cf_error err = {0};
    if (bench_estimate_probe(w, d->name, a->kv, suite, largest, &probe, &err) != CF_OK) {
      at += (size_t)snprintf(parts + at, at < sizeof parts ? sizeof parts - at : 0,
                             "%s%s will be skipped", n++ ? ", " : "", d->name);
      continue;
    }
    const double s = bench_estimate_backend(&plan, &probe);
    total += s;
    bench_estimate_text(s, one, sizeof one);
    at += (size_t)snprintf(parts + at, at < sizeof parts ? sizeof parts - at : 0, "%s%s %s",
                           n++ ? ", " : "", d->name, one);
  }
  bench_estimate_text(total, one, sizeof one);
  bench_progress_stage(progress, "estimate: about %s in all (%s); starting", one, parts);
}

static cf_status run_backends(const bench_args *a, const cf_weights *w, bench_suite *suite,
                              bench_progress *progress, bench_report *r, cf_error *err) {
  if (a->backend && strcmp(a->backend, "all") == 0) {
    for (int i = 0; i < cf_backend_count() && r->n_backends < BENCH_MAX_BACKENDS; i++) {
      const cf_backend_desc *d = cf_backend_at(i);
      if (d->priority < 0) continue; /* test doubles: not a machine's speed */
      bench_backend_run *b = &r->backends[r->n_backends++];
      if (d->probe && !d->probe()) {
        snprintf(b->name, sizeof b->name, "%s", d->name);
        b->skipped = true;
        snprintf(b->skip_reason, sizeof b->skip_reason, "not available on this machine");
        continue;
      }
      CF_TRY(run_backend(a, w, d->name, true, suite, &r->net, progress, b, err));
    }
  } else {
    const cf_backend_desc *d = a->backend ? cf_backend_find(a->backend) : cf_backend_default();
    if (!d) return cf_error_set(err, CF_ERR_BACKEND, "no backend available");
    if (d->probe && !d->probe())
      return cf_error_set(err, CF_ERR_BACKEND, "backend %s is not available on this machine",
                          d->name);
    CF_TRY(run_backend(a, w, d->name, !a->backend_opts, suite, &r->net, progress,
                       &r->backends[r->n_backends++], err));
  }
  snprintf(r->signature, sizeof r->signature, "%s", "none");
  for (int i = 0; i < r->n_backends; i++)
    if (!r->backends[i].skipped) {
      snprintf(r->signature, sizeof r->signature, "%s", r->backends[i].signature);
      break;
    }
  return CF_OK;
}

/* The yardsticks: the f32 sgemm peak, then the bf16 and int8 matmul peaks
 * (square, and the net's projections at batch BENCH_PEAK_BATCH), measured
 * here. */
static void measure_peaks_now(const bench_args *a, bench_progress *progress, bench_peaks *out,
                              int d) {
  const double seconds = a->peak_seconds > 0 ? a->peak_seconds : SGEMM_MIN_SECONDS;
  const int rows = 64 * BENCH_PEAK_BATCH;
  bench_progress_stage(progress, "measuring the f32 sgemm peak (1024x1024x1024)");
  out->sgemm = bench_sgemm_measure(1024, seconds);
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++) {
    const cf_precision p = bench_peak_precision_at(i);
    if (bench_matmul_peak_seconds(p, d, seconds) > 0)
      bench_progress_stage(progress,
                           "measuring the %s matmul peak (1024x1024x1024, %dx%dx%d, %dx%dx%d)",
                           cf_precision_name(p), rows, d, 3 * d, rows, d, d);
    out->peaks[i] = bench_matmul_peak_measure(p, 1024, d, seconds);
  }
  out->measured_at = time(NULL);
}

/* The peaks from this machine's and build's cache (bench_peak_cache.h), or
 * measured and cached; a stale or corrupt cache is named in one line and
 * measured again. --remeasure-peaks measures and rewrites. */
static void measure_peaks(const bench_args *a, bench_progress *progress, bench_report *r) {
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++)
    r->peaks[i] = bench_matmul_peak_skipped(bench_peak_precision_at(i), "--no-sgemm");
  if (a->no_sgemm) {
    snprintf(r->sgemm.note, sizeof r->sgemm.note, "not measured (--no-sgemm)");
    return;
  }
  const int d = r->net.d_model;
  char path[4096], key[2048], why[1400];
  bench_peak_cache_key(key, sizeof key);
  const bool cache = bench_peak_cache_path(d, path, sizeof path);
  bench_peaks peaks;
  bench_peak_cache_status st =
      cache && !a->remeasure_peaks ? bench_peak_cache_read(path, key, &peaks, why, sizeof why)
                                   : BENCH_PEAKS_MISSING;
  if (st == BENCH_PEAKS_CACHED) {
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&peaks.measured_at));
    bench_progress_stage(progress, "matmul peaks from %s (measured %s; --remeasure-peaks "
                         "measures again)", path, when);
  } else {
    if (st == BENCH_PEAKS_STALE || st == BENCH_PEAKS_CORRUPT)
      fprintf(stderr, "cformer bench: cached peaks %s: measuring again\n", why);
    measure_peaks_now(a, progress, &peaks, d);
    cf_error err = {0};
    if (cache && bench_peak_cache_write(path, key, &peaks, &err) != CF_OK)
      fprintf(stderr, "cformer bench: the peaks are not cached: %s\n", err.msg);
  }
  r->sgemm = peaks.sgemm;
  memcpy(r->peaks, peaks.peaks, sizeof r->peaks);
}

/* CPUs and load: a busy machine's times include waiting for a CPU, so the
 * report says how busy it was (Linux /proc/loadavg; unknown elsewhere). */
static void read_machine(bench_report *r) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  r->cpus = cpus > 0 ? (int)cpus : 0;
  r->load_average = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &r->load_average) != 1) r->load_average = -1;
    fclose(f);
  }
}

static int write_report(const bench_args *a, const bench_report *r) {
  if (a->json) {
    char *text = bench_json_text(r);
    if (!text) return cf_cli_fail(PROG, "out of memory writing JSON");
    fputs(text, stdout);
    free(text);
  } else {
    bench_table_write(stdout, r);
  }
  if (a->svg) {
    FILE *f = fopen(a->svg, "w");
    if (!f) return cf_cli_fail(PROG, "cannot write chart '%s': %s", a->svg, strerror(errno));
    bench_svg_write(f, r);
    if (fclose(f) != 0) return cf_cli_fail(PROG, "cannot write chart '%s'", a->svg);
  }
  return fflush(stdout) == 0 ? 0 : 1;
}

static int bench(bench_args a);

int cf_cmd_bench(int argc, char **argv) {
  bench_args a;
  int st = parse_args(argc, argv, &a);
  if (st >= 0) return st;
  st = bench(a);
  cf_kv_free(a.kv);
  return st;
}

/* The run, once the arguments are accepted. */
static int bench(bench_args a) {
  static bench_report r; /* large (per-backend tables): not on the stack */
  memset(&r, 0, sizeof r);
  snprintf(r.version, sizeof r.version, "%s", CF_VERSION);
  snprintf(r.backend_options, sizeof r.backend_options, "%s", a.backend_opts ? a.backend_opts : "");
  bench_progress progress;
  bench_progress_init(&progress, !a.quiet && !a.cost_only);
  cf_error err = {0};
  cf_weights *w = NULL;
  if (a.weights || !a.cost_only) {
    if (make_weights(&a, &progress, &w, &err) != CF_OK) return cf_cli_fail(PROG, "%s", err.msg);
  }
  if (describe_net(&a, w, &r.net, &err) != CF_OK) {
    cf_weights_free(w);
    return cf_cli_fail(PROG, "%s", err.msg);
  }
  if (a.cost_only) {
    cf_weights_free(w);
    r.cost_only = true;
    return write_report(&a, &r);
  }
  if (a.syzygy) {
    cf_syzygy_report tb;
    if (cf_syzygy_load(a.syzygy, &tb) != CF_OK) {
      cf_weights_free(w);
      return cf_cli_fail(PROG, "--syzygy-paths: %s", tb.errors[0]);
    }
    bench_progress_stage(&progress, "Syzygy: %d WDL and %d DTZ tables, up to %d pieces",
                         tb.wdl_tables, tb.dtz_tables, tb.max_pieces);
  }
  char shipped_suite[4096];
  if (!a.suite) {
    if (cf_data_find(CF_DATA_BENCH_SUITE, shipped_suite, sizeof shipped_suite, &err) != CF_OK) {
      cf_weights_free(w);
      return cf_cli_fail(PROG, "%s (or pass --suite FILE)", err.msg);
    }
    a.suite = shipped_suite;
  }
  bench_suite suite;
  if (bench_suite_load(a.suite, a.positions, &suite, &err) != CF_OK) {
    cf_weights_free(w);
    return cf_cli_fail(PROG, "%s", err.msg);
  }
  snprintf(r.suite, sizeof r.suite, "%.*s", (int)sizeof r.suite - 1, a.suite);
  r.suite_positions = suite.count;
  read_machine(&r);
  announce_estimate(&a, w, &suite, r.net.d_model, &progress);
  measure_peaks(&a, &progress, &r);
  cf_status rs = run_backends(&a, w, &suite, &progress, &r, &err);
  bench_progress_done(&progress);
  bench_suite_free(&suite);
  cf_weights_free(w);
  if (rs != CF_OK) {
    cf_cli_fail(PROG, "%s", err.msg);
    return cf_cli_net_failure_status(err.status);
  }
  /* the table ends with it; with --json, show it to the person too */
  if (a.json && !a.quiet) fprintf(stderr, "bench signature: %s\n", r.signature);
  return write_report(&a, &r);
}
