/* backendbench_cmd.c: `cformer backendbench`, Lc0's `lc0 backendbench`:
 * the network alone (cf_net_eval, no search) on batches of one position
 * repeated, for every batch size from --start-batch-size to
 * --max-batch-size by --batch-step, one CSV row per size in Lc0's layout
 * (backendbench_stats.h, docs/BENCH.md).
 *
 * Each size makes --batches calls back to back; the first call's time is
 * its own column ("first"), the rest are the intervals between
 * consecutive call ends, as Lc0 takes them, so the first call's setup for
 * a new size stays out of the mean. Unlike Lc0, --threads gives the
 * network lanes (cformer's meaning everywhere) rather than concurrent
 * callers: a cf_net serves one caller at a time. */
#include <stdio.h>
#include <stdlib.h>

#include "common/cf_kv.h"
#include "engine/cf_engine_weights.h"
#include "tools/backendbench/backendbench_stats.h"
#include "tools/bench/bench_clock.h"
#include "tools/bench/bench_inputs.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"

#define PROG "cformer backendbench"
#define USAGE                                                                                  \
  "usage: cformer backendbench [--batches N] [--start-batch-size N] [--max-batch-size N]\n"      \
  "                            [--batch-step N] [--fen FEN] [--weights FILE] [...]\n\n"         \
  "Lc0's `backendbench`: times the network alone on batches of one position, one CSV\n"        \
  "row per batch size in Lc0's layout: nodes/s (mean, max, median, min), mean ms and\n"        \
  "its deviation (docs/BENCH.md).\n\n"

#define START_FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

typedef struct bb_options {
  int batches, start, max, step;
  bool header_once, clippy;
} bb_options;

/* One size: --batches calls; fills row. */
static cf_status measure(cf_net *net, bench_inputs *in, int size, int batches, double *seconds,
                         backendbench_row *row, cf_error *err) {
  double prev = bench_now();
  const double t0 = prev;
  double first = 0;
  for (int j = 0; j < batches; j++) {
    CF_TRY(cf_net_eval(net, size, in->requests, in->outputs, err));
    const double now = bench_now();
    if (j == 0)
      first = now - t0;
    else
      seconds[j - 1] = now - prev;
    prev = now;
  }
  backendbench_row_of(size, seconds, batches - 1, first, row);
  return CF_OK;
}

static cf_status run(cf_net *net, const cf_game *game, const bb_options *o, cf_error *err) {
  bench_suite_entry entry = {.id = "fen", .game = *game};
  const bench_suite suite = {.entries = &entry, .count = 1};
  bench_inputs in;
  CF_TRY(bench_inputs_create(&suite, net, o->max, &in, err));
  double *seconds = malloc((size_t)o->batches * sizeof *seconds);
  cf_status st = seconds ? CF_OK : cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  /* Two untimed calls at the largest size first, as Lc0: a GPU reaches its
   * clocks and a CPU backend its buffers before the first row. */
  for (int w = 0; st == CF_OK && w < 2; w++) st = cf_net_eval(net, o->max, in.requests, in.outputs, err);
  backendbench_clippy clippy;
  backendbench_clippy_init(&clippy);
  for (int size = o->start; st == CF_OK && size <= o->max; size += o->step) {
    backendbench_row row;
    st = measure(net, &in, size, o->batches, seconds, &row, err);
    if (st != CF_OK) break;
    /* Lc0 repeats the header every 32 rows unless asked for one */
    if (o->header_once ? size == o->start : (size - o->start) / o->step % 32 == 0)
      printf("%s\n", BACKENDBENCH_HEADER);
    backendbench_row_print(&row, stdout);
    fflush(stdout);
    if (o->clippy) backendbench_clippy_add(&clippy, &row);
  }
  if (st == CF_OK && o->clippy) backendbench_clippy_print(&clippy, stdout);
  free(seconds);
  bench_inputs_free(&in);
  return st;
}

int cf_cmd_backendbench(int argc, char **argv) {
  const char *weights = CF_CLI_WEIGHTS_BUILT_IN, *backend = "auto", *backend_opts = NULL;
  const char *fen = START_FEN;
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  int threads = 0;
  bb_options o = {.batches = 100, .start = 1, .max = 256, .step = 1};
  cf_cli_flag flags[] = {
      CF_CLI_NET_FLAGS(&weights, &backend, &backend_opts, &load),
      {.name = "threads", .letter = 't', .kind = CF_CLI_INT, .dest = &threads, .imin = 0,
       .imax = 1024, .help = "the network's lanes (0 = the backend's default)"},
      {.name = "batches", .kind = CF_CLI_INT, .dest = &o.batches, .imin = 2, .imax = 999999999,
       .help = "calls per batch size (default 100; the first is timed apart)"},
      {.name = "start-batch-size", .kind = CF_CLI_INT, .dest = &o.start, .imin = 1, .imax = 1024,
       .help = "first batch size (default 1)"},
      {.name = "max-batch-size", .kind = CF_CLI_INT, .dest = &o.max, .imin = 1, .imax = 1024,
       .help = "last batch size (default 256)"},
      {.name = "batch-step", .kind = CF_CLI_INT, .dest = &o.step, .imin = 1, .imax = 256,
       .help = "batch size increment (default 1)"},
      {.name = "header-only-once", .kind = CF_CLI_BOOL, .dest = &o.header_once,
       .help = "print the CSV header once, not every 32 rows"},
      {.name = "fen", .kind = CF_CLI_STRING, .dest = &fen, .arg = "FEN",
       .help = "the position evaluated (default the start position)"},
      {.name = "clippy", .kind = CF_CLI_BOOL, .dest = &o.clippy,
       .help = "at the end, recommend a MinibatchSize for three time controls"},
  };
  cf_cli_spec spec = {.prog = PROG, .version = "cformer " CF_VERSION, .usage = USAGE,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
  if (o.start > o.max)
    return cf_cli_usage_error(&spec, "--start-batch-size %d is above --max-batch-size %d",
                              o.start, o.max);
  cf_error err = {0};
  cf_game game;
  if (cf_game_init_fen(&game, fen, &err) != CF_OK)
    return cf_cli_usage_error(&spec, "--fen: %s", err.msg);
  cf_kv *kv = NULL;
  cf_net *net = NULL;
  cf_status st = cf_cli_backend_options(backend_opts, threads, &kv, &err);
  if (st == CF_OK) {
    cf_engine_weights_spec ws = {
        .weights = weights, .net = {.backend = backend, .backend_kv = kv, .max_batch = o.max},
        .load = load};
    cf_engine_weights_info info;
    st = cf_engine_load_net(&ws, &net, &info, &err);
  }
  cf_kv_free(kv);
  if (st != CF_OK) {
    cf_game_free(&game);
    fprintf(stderr, "%s: %s\n", PROG, err.msg);
    return cf_cli_net_failure_status(st);
  }
  st = run(net, &game, &o, &err);
  cf_net_free(net);
  cf_game_free(&game);
  return st == CF_OK ? CF_CLI_EXIT_OK : cf_cli_fail(PROG, "%s", err.msg);
}
