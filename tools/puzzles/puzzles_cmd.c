/* puzzles_cmd.c: `cformer puzzles`, the agents' accuracy on Lichess puzzles
 * by rating band (docs/STRENGTH.md).
 *
 *     cformer puzzles [--weights NET] [--agent NAME|all] [--backend NAME]
 *                     [--backend-opts OPTS] [--threads N] [--csv FILE]
 *                     [--limit N] [--json] [--quiet] [--weights-max-mb MB]
 *
 * Flags: tools/cli/cf_cli.h (exit status 2 for a bad command line, 1 when
 * the puzzle file or the network cannot be read).
 * Scoring is tools/puzzles/cf_puzzle.c: every solver move must match, and
 * any immediately mating move also solves. Progress goes to stderr; the
 * table (or one JSON object) to stdout. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cf_clock.h"
#include "engine/cf_agent.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/data/cf_data_path.h"
#include "tools/puzzles/cf_puzzle.h"

#define MAX_AGENTS 8

typedef struct puzzles_args {
  const char *weights, *backend, *backend_opts, *csv, *agent;
  long limit, nodes;
  int threads;
  bool json, quiet;
  cf_weights_load_options load; /* --weights-max-mb */
} puzzles_args;

typedef struct band_score {
  int total, solved;
} band_score;

typedef struct agent_score {
  const cf_agent_desc *agent;
  band_score band[CF_PUZZLE_BANDS];
  long evals, solver_moves;
} agent_score;

typedef struct solver_ctx {
  const cf_agent_desc *agent;
  cf_net *net;
  long nodes; /* the search's visits per move */
  long evals;
} solver_ctx;

/* --agent: "all" or a registered agent. */
static bool check_agent(void *ctx, const char *value, char *why, size_t why_size) {
  (void)ctx;
  if (strcmp(value, "all") == 0 || cf_agent_find(value)) return true;
  size_t at = (size_t)snprintf(why, why_size, "expected all");
  for (int i = 0; i < cf_agent_count() && at < why_size; i++)
    at += (size_t)snprintf(why + at, why_size - at, ", %s", cf_agent_at(i)->name);
  return false;
}

static int parse_args(int argc, char **argv, puzzles_args *a) {
  *a = (puzzles_args){.weights = CF_WEIGHTS_BUILT_IN, .csv = NULL, .agent = "all",
                      .nodes = CF_SEARCH_DEFAULT_VISITS, .load = CF_CLI_WEIGHTS_LOAD};
  char search[1024], csv_help[1400], agents[128] = "", agent_help[256];
  cf_data_search_path(search, sizeof search);
  snprintf(csv_help, sizeof csv_help, "puzzle file (default: the shipped public set, %s\nin %s)",
           CF_DATA_PUZZLES, search);
  for (int i = 0, at = 0; i < cf_agent_count() && at < (int)sizeof agents; i++)
    at += snprintf(agents + at, sizeof agents - (size_t)at, "%s, ", cf_agent_at(i)->name);
  snprintf(agent_help, sizeof agent_help, "%sor all (default all)", agents);
  char nodes_help[128];
  snprintf(nodes_help, sizeof nodes_help,
           "the search's visits per move (default %d; smart pruning on, as in play)",
           CF_SEARCH_DEFAULT_VISITS);
  cf_cli_flag flags[] = {
      {.name = "weights", .letter = 'w', .kind = CF_CLI_STRING, .dest = &a->weights, .arg = "NET",
       .help = "network file (default: the built-in network, <built in>)"},
      CF_CLI_WEIGHTS_MAX_MB_FLAG(&a->load),
      {.name = "agent", .kind = CF_CLI_STRING, .dest = &a->agent, .arg = "NAME",
       .set = check_agent, .help = agent_help},
      {.name = "nodes", .kind = CF_CLI_LONG, .dest = &a->nodes, .arg = "N", .imin = 1,
       .imax = 100000000, .help = nodes_help},
      {.name = "backend", .letter = 'b', .kind = CF_CLI_STRING, .dest = &a->backend, .arg = "NAME",
       .set = cf_cli_check_backend, .help = "compute backend (default: the best available)"},
      {.name = "backend-opts", .letter = 'o', .kind = CF_CLI_STRING, .dest = &a->backend_opts,
       .arg = "S", .help = "backend options, e.g. threads=2"},
      {.name = "threads", .letter = 't', .kind = CF_CLI_INT, .dest = &a->threads, .imin = 1,
       .imax = 128, .help = "threads evaluating each batch (lanes=N unless --backend-opts sets lanes or threads)"},
      {.name = "csv", .kind = CF_CLI_STRING, .dest = &a->csv, .arg = "FILE", .help = csv_help},
      {.name = "limit", .kind = CF_CLI_LONG, .dest = &a->limit, .imin = 1, .imax = LONG_MAX,
       .help = "only the first N puzzles"},
      {.name = "json", .kind = CF_CLI_BOOL, .dest = &a->json,
       .help = "one JSON object instead of the table"},
      {.name = "quiet", .kind = CF_CLI_BOOL, .dest = &a->quiet, .help = "no progress on stderr"},
  };
  cf_cli_spec spec = {
      .prog = "cformer puzzles", .version = "cformer " CF_VERSION,
      .usage = "usage: cformer puzzles [--weights NET] [--agent NAME] [--nodes N]\n"
               "                       [--backend NAME] [--backend-opts OPTS] [--threads N] [--csv FILE]\n"
               "                       [--limit N] [--json] [--quiet] [--weights-max-mb MB]\n\n"
               "Plays Lichess puzzles (CSV: PuzzleId,FEN,Moves,Rating,...) with the agents and\n"
               "prints the share solved by rating band. A puzzle is solved when every one of the\n"
               "agent's moves matches the solution (any mating move also counts).\n\n",
      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
  return -1; /* go on */
}

static cf_status agent_solver(void *ctx, const cf_game *game, cf_move *move, cf_error *err) {
  solver_ctx *s = ctx;
  cf_agent_request req = {.net = s->net, .game = (cf_game *)game};
  /* A tree grows to the node budget; a one-ply agent would be cut short by it. */
  if (cf_agent_has(s->agent, CF_AGENT_BUILDS_TREE)) req.max_evals = s->nodes;
  cf_agent_result res;
  CF_TRY(s->agent->choose(&req, &res, err));
  s->evals += res.evals;
  *move = res.best;
  return CF_OK;
}

static void print_table(const agent_score *scores, int n, int total) {
  printf("%-8s", "agent");
  for (int b = 0; b < CF_PUZZLE_BANDS; b++) printf(" %15s", cf_puzzle_bands[b].name);
  printf(" %15s %11s\n", "all", "evals/move");
  for (int i = 0; i < n; i++) {
    const agent_score *s = &scores[i];
    int t = 0, ok = 0;
    printf("%-8s", s->agent->name);
    for (int b = 0; b < CF_PUZZLE_BANDS; b++) {
      char cell[32];
      const band_score *bs = &s->band[b];
      snprintf(cell, sizeof cell, "%d/%d %.1f%%", bs->solved, bs->total,
               bs->total ? 100.0 * bs->solved / bs->total : 0.0);
      printf(" %15s", cell);
      t += bs->total;
      ok += bs->solved;
    }
    char cell[32];
    snprintf(cell, sizeof cell, "%d/%d %.1f%%", ok, t, t ? 100.0 * ok / t : 0.0);
    printf(" %15s %11.1f\n", cell, s->solver_moves ? (double)s->evals / s->solver_moves : 0.0);
  }
  printf("(%d puzzles)\n", total);
}

static void print_json(const puzzles_args *a, const agent_score *scores, int n, int total) {
  /* the path as a JSON string: quotes, backslashes and control characters
   * in it escaped (cJSON's writer), so the output always parses */
  cJSON *path = cJSON_CreateString(a->csv);
  char *quoted = path ? cJSON_PrintUnformatted(path) : NULL;
  printf("{\"csv\": %s, \"puzzles\": %d, \"agents\": {", quoted ? quoted : "null", total);
  free(quoted);
  cJSON_Delete(path);
  for (int i = 0; i < n; i++) {
    const agent_score *s = &scores[i];
    printf("%s\"%s\": {\"evals_per_move\": %.3f, \"bands\": [", i ? ", " : "", s->agent->name,
           s->solver_moves ? (double)s->evals / s->solver_moves : 0.0);
    for (int b = 0; b < CF_PUZZLE_BANDS; b++)
      printf("%s{\"band\": \"%s\", \"solved\": %d, \"total\": %d}", b ? ", " : "",
             cf_puzzle_bands[b].name, s->band[b].solved, s->band[b].total);
    printf("]}");
  }
  printf("}}\n");
}

int cf_cmd_puzzles(int argc, char **argv) {
  puzzles_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  agent_score scores[MAX_AGENTS];
  int n_agents = 0;
  for (int i = 0; i < cf_agent_count() && n_agents < MAX_AGENTS; i++) {
    const cf_agent_desc *d = cf_agent_at(i);
    if (strcmp(a.agent, "all") == 0 || strcmp(a.agent, d->name) == 0)
      scores[n_agents++] = (agent_score){.agent = d};
  }

  char shipped_csv[4096];
  if (!a.csv) {
    cf_error derr;
    if (cf_data_find(CF_DATA_PUZZLES, shipped_csv, sizeof shipped_csv, &derr) != CF_OK) {
      fprintf(stderr, "cformer puzzles: %s (or pass --csv FILE)\n", derr.msg);
      return 1;
    }
    a.csv = shipped_csv;
  }
  FILE *f = fopen(a.csv, "r");
  if (!f) {
    fprintf(stderr, "cformer puzzles: cannot open '%s'\n", a.csv);
    return 1;
  }

  cf_kv *kv = NULL;
  cf_engine_weights_spec spec = {
    .weights = a.weights,
    .net = {.backend = a.backend, .max_batch = 64},
    .load = a.load,
  };
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err;
  cf_status st = cf_cli_backend_options(a.backend_opts, a.threads, &kv, &err);
  spec.net.backend_kv = kv;
  if (st == CF_OK) st = cf_engine_load_net(&spec, &net, &info, &err);
  cf_kv_free(kv);
  if (st != CF_OK) {
    fprintf(stderr, "cformer puzzles: %s\n", err.msg);
    fclose(f);
    return cf_cli_net_failure_status(err.status);
  }
  if (!a.quiet)
    fprintf(stderr, "cformer puzzles: %s (%d layers, d %d), backend %s%s\n", info.source,
            info.layers, info.d, cf_net_get_info(net)->backend,
            info.untrained ? "; this network is UNTRAINED" : "");

  char line[4096];
  /* How many puzzles there are to play, for the progress lines' ETA: the
   * lines after the header, capped by --limit. */
  long expected = 0;
  while (fgets(line, sizeof line, f)) expected += line[0] != '\n' && strncmp(line, "PuzzleId,", 9) != 0;
  if (a.limit > 0 && a.limit < expected) expected = a.limit;
  rewind(f);
  const double t0 = cf_clock_now();
  int total = 0, bad = 0, lineno = 0;
  rc = 0;
  while (fgets(line, sizeof line, f) && (a.limit == 0 || total < a.limit)) {
    lineno++;
    if (lineno == 1 && strncmp(line, "PuzzleId,", 9) == 0) continue; /* header */
    if (line[0] == '\n' || line[0] == '\0') continue;
    cf_puzzle p;
    if (cf_puzzle_parse_csv_line(line, &p, &err) != CF_OK) {
      fprintf(stderr, "cformer puzzles: %s:%d: %s (skipped)\n", a.csv, lineno, err.msg);
      bad++;
      continue;
    }
    int band = cf_puzzle_band_of(p.rating);
    bool counted = false;
    for (int i = 0; i < n_agents; i++) {
      solver_ctx ctx = {.agent = scores[i].agent, .net = net, .nodes = a.nodes};
      cf_puzzle_outcome o;
      cf_status st = cf_puzzle_run(&p, agent_solver, &ctx, &o, &err);
      if (st == CF_ERR_FORMAT) {
        fprintf(stderr, "cformer puzzles: %s:%d: %s (skipped)\n", a.csv, lineno, err.msg);
        bad++;
        break;
      }
      if (st != CF_OK) {
        fprintf(stderr, "cformer puzzles: %s\n", err.msg);
        rc = 1;
        goto done;
      }
      scores[i].band[band].total++;
      scores[i].band[band].solved += o.solved;
      scores[i].evals += ctx.evals;
      scores[i].solver_moves += o.solver_moves;
      counted = true;
    }
    total += counted;
    if (!a.quiet && counted && total % 100 == 0) {
      const double spent = cf_clock_now() - t0, rate = total / (spent > 0 ? spent : 1e-9);
      const double left = expected > total ? (double)(expected - total) / rate : 0;
      fprintf(stderr, "  %d/%ld puzzles, %.1f puzzles/s, ETA %dm%02ds\n", total, expected, rate,
              (int)(left / 60), (int)left % 60);
    }
  }
  if (a.json) print_json(&a, scores, n_agents, total);
  else print_table(scores, n_agents, total);
  if (bad) fprintf(stderr, "cformer puzzles: %d malformed puzzle(s) skipped\n", bad);
done:
  fclose(f);
  cf_net_free(net);
  return rc;
}
