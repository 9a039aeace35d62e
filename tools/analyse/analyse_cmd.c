/* analyse_cmd.c: `cformer analyse`, a file of games or positions through
 * the network and, on request, an agent (docs/ANALYSE.md).
 *
 *     cformer analyse INPUT [--output FILE] [--output-format jsonl|csv|pgn]
 *                     [--nodes N | --movetime MS] [--agent NAME] [--multipv K]
 *                     [--resume] [--workers N | --scheduler tcp://HOST:PORT] ...
 *
 * Without --workers/--scheduler it runs here (analyse_run.h). With them it
 * hands the same work to the Dask driver (python/cformer/dask.py), which
 * runs this binary on every worker in its --serve mode (analyse_serve.c).
 * Exit status: 0 done, 1 input/network/output failure, 2 bad command line. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/cf_agent.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "tools/analyse/analyse_args.h"
#include "tools/analyse/analyse_modes.h"
#include "tools/analyse/analyse_resume.h"
#include "tools/analyse/analyse_run.h"
#include "tools/analyse/analyse_write.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"

static const char *const output_kinds[] = {"jsonl", "csv", "pgn", "auto", NULL};
enum { OUT_AUTO = 3 };

static bool check_agent(void *ctx, const char *value, char *why, size_t why_size) {
  (void)ctx;
  if (cf_agent_find(value)) return true;
  size_t at = (size_t)snprintf(why, why_size, "expected one of");
  for (int i = 0; i < cf_agent_count() && at < why_size; i++)
    at += (size_t)snprintf(why + at, why_size - at, "%s %s", i ? "," : "", cf_agent_at(i)->name);
  return false;
}

static int parse_args(int argc, char **argv, analyse_args *a, cf_cli_spec *spec_out) {
  *a = (analyse_args){.weights = CF_WEIGHTS_BUILT_IN, .format = ANALYSE_FORMAT_AUTO,
                      .out_kind = OUT_AUTO, .batch = 64, .top_k = 5, .multipv = 1,
                      .shard_size = 1000, .load = CF_CLI_WEIGHTS_LOAD};
  static cf_cli_flag flags[] = {
      {.name = "output", .letter = 'O', .kind = CF_CLI_STRING, .arg = "FILE",
       .help = "where the records go (default: standard output)"},
      {.name = "output-format", .kind = CF_CLI_CHOICE, .choices = output_kinds,
       .help = "jsonl, csv or pgn (annotated games; PGN input only); default: from\n"
               "--output's name, else jsonl"},
      {.name = "format", .kind = CF_CLI_CHOICE, .choices = analyse_format_names,
       .help = "the input: pgn, epd, fen (one a line), puzzles (Lichess CSV); default:\n"
               "from its name (.pgn .epd .fen .txt .csv, also .gz and .zst)"},
      {.name = "weights", .letter = 'w', .kind = CF_CLI_STRING, .arg = "NET",
       .help = "network file (default: the built-in network, <built in>)"},
      {0}, /* --weights-max-mb, filled below */
      {.name = "backend", .letter = 'b', .kind = CF_CLI_STRING, .arg = "NAME",
       .set = cf_cli_check_backend, .help = "compute backend (default: the best available)"},
      {.name = "backend-opts", .letter = 'o', .kind = CF_CLI_STRING, .arg = "S",
       .help = "backend options, e.g. threads=2"},
      {.name = "threads", .letter = 't', .kind = CF_CLI_INT, .imin = 1, .imax = 128,
       .help = "threads evaluating each batch (lanes=N unless --backend-opts sets them)"},
      {.name = "batch", .kind = CF_CLI_INT, .imin = 1, .imax = 1024,
       .help = "positions per network call, net-only (default 64)"},
      {.name = "top-k", .kind = CF_CLI_INT, .imin = 0, .imax = ANALYSE_TOP_K_MAX,
       .help = "policy moves per record (default 5)"},
      {.name = "nodes", .kind = CF_CLI_LONG, .imin = 1, .imax = 100000000,
       .help = "search each position: visits (the search agent) or evaluations"},
      {.name = "movetime", .kind = CF_CLI_LONG, .arg = "MS", .imin = 1, .imax = 86400000,
       .help = "search each position for this many milliseconds"},
      {.name = "agent", .kind = CF_CLI_STRING, .arg = "NAME", .set = check_agent,
       .help = "the agent that searches (default search when --nodes or --movetime);\n"
               "policy and value are one-ply"},
      {.name = "multipv", .kind = CF_CLI_INT, .arg = "K", .imin = 1, .imax = ANALYSE_MULTIPV_MAX,
       .help = "lines per searched position (default 1)"},
      {.name = "resume", .kind = CF_CLI_BOOL,
       .help = "continue an interrupted run: keep --output's complete records, cut a\n"
               "torn last one, and analyse only what is missing"},
      {.name = "quiet", .kind = CF_CLI_BOOL, .help = "no progress lines on stderr"},
      {.name = "shard-size", .kind = CF_CLI_LONG, .arg = "N", .imin = 1, .imax = 100000000,
       .help = "games (or positions) per shard (default 1000): a Dask task's share; no\n"
               "network batch crosses a shard, so every split gives the same records"},
      {.name = "workers", .kind = CF_CLI_INT, .arg = "N", .imin = 1, .imax = 1024,
       .help = "run on a local Dask cluster of N worker processes"},
      {.name = "scheduler", .kind = CF_CLI_STRING, .arg = "ADDR",
       .help = "run on the Dask cluster of this scheduler (tcp://HOST:PORT)"},
      {.name = "serve", .kind = CF_CLI_BOOL, .attrs = CF_CLI_HIDDEN},
      {.name = "emit-units", .kind = CF_CLI_BOOL, .attrs = CF_CLI_HIDDEN},
      {.name = "source-name", .kind = CF_CLI_STRING, .attrs = CF_CLI_HIDDEN},
  };
  int i = 0;
  flags[i++].dest = &a->output;
  flags[i++].dest = &a->out_kind;
  flags[i++].dest = &a->format;
  flags[i++].dest = &a->weights;
  flags[i++] = (cf_cli_flag)CF_CLI_WEIGHTS_MAX_MB_FLAG(&a->load);
  flags[i++].dest = &a->backend;
  flags[i++].dest = &a->backend_opts;
  flags[i++].dest = &a->threads;
  flags[i++].dest = &a->batch;
  flags[i++].dest = &a->top_k;
  flags[i++].dest = &a->nodes;
  flags[i++].dest = &a->movetime;
  flags[i++].dest = &a->agent;
  flags[i++].dest = &a->multipv;
  flags[i++].dest = &a->resume;
  flags[i++].dest = &a->quiet;
  flags[i++].dest = &a->shard_size;
  flags[i++].dest = &a->workers;
  flags[i++].dest = &a->scheduler;
  flags[i++].dest = &a->serve;
  flags[i++].dest = &a->emit_units;
  flags[i++].dest = &a->source_name;
  *spec_out = (cf_cli_spec){
      .prog = "cformer analyse", .version = "cformer " CF_VERSION,
      .usage = "usage: cformer analyse INPUT [--output FILE] [--output-format jsonl|csv|pgn]\n"
               "                       [--nodes N | --movetime MS] [--agent NAME] [--multipv K]\n"
               "                       [--resume] [--workers N | --scheduler ADDR] [options]\n\n"
               "Analyses every position of a file of games (PGN, also .gz/.zst), EPD, FENs or\n"
               "Lichess puzzles: the network's W/D/L, Q, moves left and top policy moves, and\n"
               "with --nodes/--movetime the agent's best move, score, PV, visits per root move\n"
               "and --multipv lines. One record per position, with its source (file, game,\n"
               "ply) and FEN. docs/ANALYSE.md.\n\n",
      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
      .positional_name = "INPUT", .max_positional = 1};
  int rc = cf_cli_parse(spec_out, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  if (spec_out->positional.count == 1) a->input = spec_out->positional.items[0]; /* in argv */
  cf_cli_free(spec_out); /* before any usage error below returns */
  if (!a->input && !a->serve) return cf_cli_usage_error(spec_out, "no INPUT file");
  if (a->workers && a->scheduler)
    return cf_cli_usage_error(spec_out, "--workers and --scheduler exclude each other");
  if (a->resume && !a->output) return cf_cli_usage_error(spec_out, "--resume needs --output FILE");
  if (a->input && a->format == ANALYSE_FORMAT_AUTO) {
    a->format = analyse_format_of_name(a->input);
    if (a->format == ANALYSE_FORMAT_AUTO)
      return cf_cli_usage_error(spec_out, "cannot tell the format of '%s' from its name: "
                                          "give --format", a->input);
  }
  if (a->out_kind == OUT_AUTO) {
    const char *o = a->output ? a->output : "";
    size_t n = strlen(o);
    a->out_kind = n >= 4 && strcmp(o + n - 4, ".csv") == 0   ? ANALYSE_OUT_CSV
                  : n >= 4 && strcmp(o + n - 4, ".pgn") == 0 ? ANALYSE_OUT_PGN
                                                             : ANALYSE_OUT_JSONL;
  }
  if (a->out_kind == ANALYSE_OUT_PGN && a->format != ANALYSE_PGN && a->format != ANALYSE_UNITS)
    return cf_cli_usage_error(spec_out, "annotated PGN output needs PGN input");
  if (a->agent && !a->nodes && !a->movetime)
    return cf_cli_usage_error(spec_out, "--agent needs --nodes or --movetime");
  if ((a->nodes || a->movetime) && !a->agent) a->agent = CF_AGENT_DEFAULT;
  if (a->multipv > 1 && !a->agent) return cf_cli_usage_error(spec_out, "--multipv needs a search");
  if (!a->source_name) a->source_name = a->input;
  return CF_CLI_CONTINUE;
}

/* The single-process run into --output (or stdout). */
static int run_here(const analyse_args *a) {
  analyse_resume_point done = {0};
  cf_error err = {0};
  const char *prog = "cformer analyse";
  if (a->resume) {
    if (access(a->output, F_OK) == 0) {
      if (analyse_resume_scan(a->output, a->out_kind, &done, &err) != CF_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 1;
      }
      if (!a->quiet)
        fprintf(stderr, "%s: resuming after %ld %s of '%s'%s\n", prog, done.records,
                a->out_kind == ANALYSE_OUT_PGN ? "games" : "records", a->output,
                done.torn_bytes ? " (a torn last record was cut off)" : "");
    }
  }
  cf_net *net = NULL;
  if (analyse_open_net(a, &net, &err) != CF_OK) {
    fprintf(stderr, "%s: %s\n", prog, err.msg);
    return cf_cli_net_failure_status(err.status);
  }
  FILE *out = stdout;
  if (a->output) {
    out = fopen(a->output, a->resume ? "a" : "w");
    if (!out) {
      fprintf(stderr, "%s: cannot write '%s': %s\n", prog, a->output, strerror(errno));
      cf_net_free(net);
      return 1;
    }
  }
  if (a->out_kind == ANALYSE_OUT_CSV && !done.has_header) fputs(analyse_csv_header, out);
  analyse_run_config c = {.input = a->input, .format = a->format, .source_name = a->source_name,
                          .out_kind = a->out_kind, .out = out, .agent_name = a->agent,
                          .skip = done.records, .shard_size = a->shard_size, .warn = stderr,
                          .progress = !a->quiet, .prog = prog};
  analyse_engine_options eo = analyse_engine_options_of(a);
  analyse_run_stats stats;
  cf_status st = analyse_run(&c, net, &eo, &stats, &err);
  if (st != CF_OK) fprintf(stderr, "%s: %s\n", prog, err.msg);
  if (out != stdout && fclose(out) != 0 && st == CF_OK) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", prog, a->output, strerror(errno));
    st = CF_ERR_IO;
  }
  if (st == CF_OK && !a->quiet && stats.bad_units)
    fprintf(stderr, "%s: %ld unreadable %s skipped\n", prog, stats.bad_units,
            a->format == ANALYSE_PGN ? "game(s)" : "record(s)");
  cf_net_free(net);
  return st == CF_OK ? 0 : 1;
}

int cf_cmd_analyse(int argc, char **argv) {
  analyse_args a;
  cf_cli_spec spec;
  int rc = parse_args(argc, argv, &a, &spec);
  if (rc != CF_CLI_CONTINUE) return rc;
  if (a.serve) rc = analyse_serve(&a);
  else if (a.emit_units) rc = analyse_emit_units(&a);
  else if (a.workers || a.scheduler) rc = analyse_dask(&a, argv[0]);
  else rc = run_here(&a);
  return rc;
}
