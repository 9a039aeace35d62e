/* cformer: command-line entry point. `cformer <command> [args]`; each command
 * lives in its own file under tools/ and is listed once in the table below;
 * each parses its flags with tools/cli/cf_cli.h (docs/CLI.md). */
#include <stdio.h>
#include <string.h>

#include "tools/cf_commands.h"
#include "tools/cf_startup_env.h"
#include "tools/cli/cf_cli_commands.h"

static const cf_cli_command commands[] = {
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

static const cf_cli_program program =
    CF_CLI_PROGRAM("cformer", "runs Chessformer-style (RPE attention) Lc0 networks.", commands);

int main(int argc, char **argv) {
  /* Before anything is printed or read: the program may start again. */
  cf_startup_env_reexec(argv);
  /* No command, or Lc0-style option flags only: the UCI engine. */
  if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--help") != 0 &&
                   strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--version") != 0))
    return cf_cmd_uci(argc, argv);
  return cf_cli_program_run(&program, argc, argv);
}
