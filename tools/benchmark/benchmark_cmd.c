/* benchmark_cmd.c: `cformer benchmark`, Lc0's `lc0 benchmark`: the search
 * agent on a set of positions (by default Lc0's 34) with a node and/or time
 * limit per position, printing what Lc0 prints, so scripts that read Lc0's
 * output read this one (docs/BENCH.md):
 *
 *   Position: I/N FEN
 *   Benchmark time T ms, N nodes, S nps, move M     (as the search reports)
 *   bestmove M
 *   ...
 *   ===========================
 *   Total time (ms) : T
 *   Nodes searched  : N
 *   Nodes/second    : S
 *
 * As in Lc0, each position gets a fresh tree while the NN cache (200000
 * entries) is kept across positions, and the movetime limit (default
 * 10000 ms) applies alongside --nodes unless set to -1; smart pruning is
 * off, so a node limit is searched in full. */
#include <math.h>
#include <stdio.h>

#include "chess/cf_move_uci.h"
#include "common/cf_clock.h"
#include "common/cf_kv.h"
#include "engine/cf_engine_weights.h"
#include "engine/search/cf_search.h"
#include "tools/benchmark/benchmark_positions.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"

#define PROG "cformer benchmark"
#define USAGE                                                                             \
  "usage: cformer benchmark [--nodes N] [--movetime MS] [--num-positions N] [--fen FEN]\n"  \
  "                         [--weights FILE] [--backend NAME] [...]\n\n"                     \
  "Lc0's `benchmark`: searches Lc0's benchmark positions and prints each search's\n"        \
  "progress, then the total time, nodes and nodes/s in Lc0's layout (docs/BENCH.md).\n\n"

/* Lc0's benchmark NN cache size: the cache outlives each position's tree. */
#define BENCHMARK_NN_CACHE 200000

typedef struct run_state {
  bool chess960;
  long printed; /* playouts of the last line printed, -1 before the first */
} run_state;

/* Lc0's progress line, from the search's info. */
static void on_info(void *user, const cf_search *s, const cf_search_info *info) {
  (void)s;
  run_state *rs = user;
  rs->printed = info->playouts;
  const long ms = lround(info->seconds * 1000);
  const long nps = info->seconds > 0 ? lround(info->playouts / info->seconds) : 0;
  printf("Benchmark time %ld ms, %ld nodes, %ld nps", ms, info->playouts, nps);
  if (info->best != CF_MOVE_NONE) {
    char uci[CF_UCI_MOVE_MAX];
    cf_move_write_uci(info->best, rs->chess960, uci);
    printf(", move %s", uci);
  }
  printf("\n");
  fflush(stdout);
}

static cf_status open_net(const char *weights, const char *backend, const char *backend_opts,
                          int threads, const cf_weights_load_options *load, cf_net **net,
                          cf_error *err) {
  cf_kv *kv = NULL;
  CF_TRY(cf_cli_backend_options(backend_opts, threads, &kv, err));
  cf_engine_weights_spec spec = {
      .weights = weights, .net = {.backend = backend, .backend_kv = kv, .max_batch = 256},
      .load = *load};
  cf_engine_weights_info info;
  const cf_status st = cf_engine_load_net(&spec, net, &info, err);
  cf_kv_free(kv);
  return st;
}

/* One position: its lines, its time (ms) and nodes added to the totals. */
static cf_status search_one(cf_search *s, cf_net *net, const char *text, long nodes,
                            long movetime, long *total_ms, long *total_nodes, cf_error *err) {
  cf_game game;
  CF_TRY(benchmark_game_from_text(text, &game, err));
  run_state rs = {.chess960 = cf_game_position(&game)->chess960, .printed = -1};
  cf_search_reset_tree(s); /* Lc0: a fresh tree per position, the cache kept */
  const double t0 = cf_clock_now();
  cf_search_limits lim = {.visits = nodes > 0 ? nodes : 0,
                          .deadline = movetime >= 0 ? t0 + movetime / 1000.0 : 0};
  cf_search_result res;
  const cf_status st = cf_search_run(s, net, &game, &lim, on_info, &rs, &res, err);
  const double t1 = cf_clock_now();
  if (st == CF_OK) {
    /* the final state, as Lc0 prints it before bestmove, unless the
     * search's last report already said it */
    if (res.info.playouts != rs.printed) on_info(&rs, s, &res.info);
    char uci[CF_UCI_MOVE_MAX] = "(none)";
    if (res.info.best != CF_MOVE_NONE) cf_move_write_uci(res.info.best, rs.chess960, uci);
    printf("bestmove %s\n", uci);
    *total_ms += lround((t1 - t0) * 1000);
    *total_nodes += res.info.playouts;
  }
  cf_game_free(&game);
  return st;
}

int cf_cmd_benchmark(int argc, char **argv) {
  const char *weights = CF_CLI_WEIGHTS_BUILT_IN, *backend = "auto", *backend_opts = NULL;
  const char *fen = "";
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  int threads = 0, num_positions = BENCHMARK_POSITION_COUNT, minibatch = 0;
  long nodes = -1, movetime = 10000;
  cf_cli_flag flags[] = {
      CF_CLI_NET_FLAGS(&weights, &backend, &backend_opts, &load),
      {.name = "threads", .letter = 't', .kind = CF_CLI_INT, .dest = &threads, .imin = 0,
       .imax = 1024, .help = "the network's lanes (0 = the backend's default)"},
      {.name = "minibatch-size", .kind = CF_CLI_INT, .dest = &minibatch, .imin = 0, .imax = 1024,
       .help = "the search's MinibatchSize (0 = the engine's default)"},
      {.name = "nodes", .kind = CF_CLI_LONG, .dest = &nodes, .imin = -1, .imax = 999999999,
       .help = "nodes per position (-1 = no node limit, the default)"},
      {.name = "movetime", .kind = CF_CLI_LONG, .dest = &movetime, .imin = -1, .imax = 999999999,
       .arg = "MS", .help = "time per position in ms (default 10000; -1 = no time limit)"},
      {.name = "fen", .kind = CF_CLI_STRING, .dest = &fen, .arg = "FEN",
       .help = "search this position only (\"FEN\" or \"FEN moves M1 M2 ...\")"},
      {.name = "num-positions", .kind = CF_CLI_INT, .dest = &num_positions, .imin = 1,
       .imax = BENCHMARK_POSITION_COUNT,
       .help = "how many of the 34 benchmark positions to search (default 34)"},
  };
  cf_cli_spec spec = {.prog = PROG, .version = "cformer " CF_VERSION, .usage = USAGE,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
  if (nodes == 0) return cf_cli_usage_error(&spec, "--nodes 0: give N >= 1, or -1 for no limit");
  if (nodes < 0 && movetime < 0)
    return cf_cli_usage_error(&spec, "--nodes and --movetime are both -1: the search would not end");
  cf_error err = {0};
  if (*fen) { /* checked before the network loads: a bad FEN is a usage error */
    cf_game g;
    if (benchmark_game_from_text(fen, &g, &err) != CF_OK)
      return cf_cli_usage_error(&spec, "--fen: %s", err.msg);
    cf_game_free(&g);
  }
  cf_net *net = NULL;
  cf_status st = open_net(weights, backend, backend_opts, threads, &load, &net, &err);
  if (st != CF_OK) {
    fprintf(stderr, "%s: %s\n", PROG, err.msg);
    return cf_cli_net_failure_status(st);
  }
  cf_search_params params;
  cf_search_params_default(&params);
  params.nn_cache_size = BENCHMARK_NN_CACHE;
  /* Lc0's benchmark stops on nodes and time only, never on smart pruning */
  params.smart_pruning_factor = 0;
  if (minibatch > 0) params.minibatch_size = minibatch;
  cf_search *s = NULL;
  st = cf_search_create(&params, &s, &err);
  const int n = *fen ? 1 : num_positions;
  long total_ms = 0, total_nodes = 0;
  for (int i = 0; st == CF_OK && i < n; i++) {
    const char *text = *fen ? fen : benchmark_positions[i];
    printf("\nPosition: %d/%d %s\n", i + 1, n, text);
    fflush(stdout);
    st = search_one(s, net, text, nodes, movetime, &total_ms, &total_nodes, &err);
  }
  cf_search_free(s);
  cf_net_free(net);
  if (st != CF_OK) return cf_cli_fail(PROG, "%s", err.msg);
  /* Lc0's rate: +1 ms keeps a 0 ms run finite */
  printf("\n===========================\n"
         "Total time (ms) : %ld\n"
         "Nodes searched  : %ld\n"
         "Nodes/second    : %ld\n",
         total_ms, total_nodes, lround(1000.0 * (double)total_nodes / (double)(total_ms + 1)));
  return CF_CLI_EXIT_OK;
}
