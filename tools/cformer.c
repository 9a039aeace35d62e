/* cformer: command-line entry point. `cformer <command> [args]`; each command
 * lives in its own file under tools/ and is listed once in the table below;
 * each parses its flags with tools/cli/cf_cli.h (docs/CLI.md). */
#include <stdio.h>
#include <string.h>

#include "tools/cf_commands.h"
#include "tools/cf_passive_omp.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
  {"uci", cf_cmd_uci, "the UCI chess engine (also: no command, or option flags only)"},
  {"perft", cf_cmd_perft, "count legal move paths to a depth (move generator check and speed)"},
  {"eval", cf_cmd_eval, "network outputs for positions given as JSON lines (parity case schema)"},
  {"bench", cf_cmd_bench, "cost and speed of a net: FLOPs, time per move, evals/s per backend"},
  {"benchmark", cf_cmd_benchmark, "Lc0's benchmark: nodes/s of the search on Lc0's positions"},
  {"backendbench", cf_cmd_backendbench, "Lc0's backendbench: network speed per batch size, as CSV"},
  {"puzzles", cf_cmd_puzzles, "the agents' accuracy on Lichess puzzles by rating band"},
  {"analyse", cf_cmd_analyse, "a file of games or positions: net outputs, search, annotated PGN"},
  {"selfplay", cf_cmd_selfplay, "games against itself (Lc0's selfplay): PGN, Lc0 V6 training chunks"},
  {"chunks", cf_cmd_chunks, "describe Lc0 V6 training chunks: records, format, W/D/L"},
  {"pack-data", cf_cmd_pack_data, "training records from Stockfish-labelled TSV shards (training/)"},
};

static void print_usage(FILE *out) {
  fprintf(out,
          "cformer %s: runs Chessformer-style (RPE attention) Lc0 networks.\n\n"
          "usage: cformer <command> [options]   (cformer <command> --help for details)\n\n"
          "commands:\n",
          CF_VERSION);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  /* Before anything is printed or read: the program may start again. */
  cf_passive_omp_reexec(argv);
  /* No command, or Lc0-style option flags only: the UCI engine. */
  if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--help") != 0 &&
                   strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--version") != 0))
    return cf_cmd_uci(argc, argv);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    print_usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("cformer %s\n", CF_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  /* The same one line as every flag error (tools/cli/cf_cli.h). */
  fprintf(stderr, "cformer: unknown command '%s' (cformer --help)\n", argv[1]);
  return 2;
}
