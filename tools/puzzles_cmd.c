/* puzzles_cmd.c: `cformer puzzles`, the agents' accuracy on Lichess puzzles
 * by rating band (docs/STRENGTH.md).
 *
 *     cformer puzzles [--weights NET] [--agent policy|value|all]
 *                     [--backend NAME] [--backend-opts OPTS] [--csv FILE]
 *                     [--limit N] [--json] [--quiet]
 *
 * Scoring is tools/puzzles/cf_puzzle.c: every solver move must match, and
 * any immediately mating move also solves. Progress goes to stderr; the
 * table (or one JSON object) to stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cf_agent.h"
#include "engine/cf_engine_weights.h"
#include "engine/cf_uci_options.h"
#include "tools/cf_commands.h"
#include "tools/data/cf_data_path.h"
#include "tools/puzzles/cf_puzzle.h"

#define MAX_AGENTS 8

typedef struct puzzles_args {
  const char *weights, *backend, *backend_opts, *csv, *agent;
  long limit;
  int json, quiet;
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
  long evals;
} solver_ctx;

static void usage(FILE *out) {
  char search[1024];
  cf_data_search_path(search, sizeof search);
  fprintf(out,
          "usage: cformer puzzles [--weights NET] [--agent policy|value|all] [--backend NAME]\n"
          "                       [--backend-opts OPTS] [--csv FILE] [--limit N] [--json]\n\n"
          "Plays Lichess puzzles (CSV: PuzzleId,FEN,Moves,Rating,...) with the agents and\n"
          "prints the share solved by rating band. A puzzle is solved when every one of the\n"
          "agent's moves matches the solution (any mating move also counts).\n\n"
          "  --weights NET       network file (default: the built-in network)\n"
          "  --weights-max-mb MB largest network the file may inflate to, in MiB (default\n"
          "                      0 = automatic: 16 times the file, 64 to 4096 MiB)\n"
          "  --agent NAME        policy, value or all (default all)\n"
          "  --backend NAME      compute backend (default: the best available)\n"
          "  --backend-opts S    backend options, e.g. threads=2\n"
          "  --csv FILE          puzzle file (default: the shipped public set, %s\n"
          "                      in %s)\n"
          "  --limit N           only the first N puzzles\n"
          "  --json              one JSON object instead of the table\n"
          "  --quiet             no progress on stderr\n"
          "  --help              this text\n",
          CF_DATA_PUZZLES, search);
}

static int parse_args(int argc, char **argv, puzzles_args *a) {
  *a = (puzzles_args){.weights = CF_WEIGHTS_BUILT_IN,
                      .csv = NULL,
                      .agent = "all",
                      .load = {.limit_name = "--weights-max-mb"}};
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i];
    if (strcmp(k, "--help") == 0 || strcmp(k, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    if (strcmp(k, "--json") == 0) {
      a->json = 1;
      continue;
    }
    if (strcmp(k, "--quiet") == 0) {
      a->quiet = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "cformer puzzles: %s needs a value (or unknown flag)\n", k);
      return 2;
    }
    const char *v = argv[++i];
    if (strcmp(k, "--weights") == 0 || strcmp(k, "-w") == 0) a->weights = v;
    else if (strcmp(k, "--weights-max-mb") == 0) {
      cf_error err;
      if (cf_weights_parse_max_mb(v, "--weights-max-mb", &a->load, &err) != CF_OK) {
        fprintf(stderr, "cformer puzzles: %s\n", err.msg);
        return 2;
      }
    }
    else if (strcmp(k, "--backend") == 0 || strcmp(k, "-b") == 0) a->backend = v;
    else if (strcmp(k, "--backend-opts") == 0 || strcmp(k, "-o") == 0) a->backend_opts = v;
    else if (strcmp(k, "--csv") == 0) a->csv = v;
    else if (strcmp(k, "--agent") == 0) a->agent = v;
    else if (strcmp(k, "--limit") == 0) {
      char *end;
      a->limit = strtol(v, &end, 10);
      if (*end || a->limit <= 0) {
        fprintf(stderr, "cformer puzzles: --limit wants a positive number, not '%s'\n", v);
        return 2;
      }
    } else {
      fprintf(stderr, "cformer puzzles: unknown flag '%s' (see --help)\n", k);
      return 2;
    }
  }
  return -1; /* go on */
}

static cf_status agent_solver(void *ctx, const cf_game *game, cf_move *move, cf_error *err) {
  solver_ctx *s = ctx;
  cf_agent_request req = {.net = s->net, .game = (cf_game *)game};
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
  printf("{\"csv\": \"%s\", \"puzzles\": %d, \"agents\": {", a->csv, total);
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
  if (n_agents == 0) {
    fprintf(stderr, "cformer puzzles: unknown agent '%s' (policy, value or all)\n", a.agent);
    return 2;
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

  cf_engine_weights_spec spec = {
    .weights = a.weights,
    .net = {.backend = a.backend, .backend_options = a.backend_opts, .max_batch = 64},
    .load = a.load,
  };
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err;
  if (cf_engine_load_net(&spec, &net, &info, &err) != CF_OK) {
    fprintf(stderr, "cformer puzzles: %s\n", err.msg);
    fclose(f);
    return 1;
  }
  if (!a.quiet)
    fprintf(stderr, "cformer puzzles: %s (%d layers, d %d), backend %s%s\n", info.source,
            info.layers, info.d, cf_net_get_info(net)->backend,
            info.untrained ? "; this network is UNTRAINED" : "");

  char line[4096];
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
      solver_ctx ctx = {.agent = scores[i].agent, .net = net};
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
    if (!a.quiet && total % 100 == 0) fprintf(stderr, "  %d puzzles...\n", total);
  }
  if (a.json) print_json(&a, scores, n_agents, total);
  else print_table(scores, n_agents, total);
  if (bad) fprintf(stderr, "cformer puzzles: %d malformed puzzle(s) skipped\n", bad);
done:
  fclose(f);
  cf_net_free(net);
  return rc;
}
