/* perft_cmd.c: `cformer perft`, the move generator's check and benchmark.
 *
 *     cformer perft [--fen FEN | startpos] [--depth N] [--divide]
 *
 * Prints the per-move counts with --divide (compare them with another
 * engine's to find the subtree where a bug lives), then the total, the time
 * and the speed. Flags: tools/cli/cf_cli.h. Exit status 0 on success, 2 on
 * bad arguments or a bad FEN. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cf_clock.h"
#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_perft.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"

#define DEFAULT_DEPTH 5
#define MAX_DEPTH 20

#define USAGE                                                                            \
  "usage: cformer perft [--fen FEN | startpos] [--depth N] [--divide]\n\n"                \
  "Counts the leaf nodes of the legal move tree N plies deep and reports the speed.\n\n"

int cf_cmd_perft(int argc, char **argv) {
  int depth = DEFAULT_DEPTH;
  bool divide = false;
  char fen[CF_FEN_INPUT_MAX + 1] = CF_FEN_STARTPOS;
  char depth_help[64];
  snprintf(depth_help, sizeof depth_help, "plies to search, 1-%d (default %d)", MAX_DEPTH,
           DEFAULT_DEPTH);
  cf_cli_flag flags[] = {
      {.name = "fen", .kind = CF_CLI_WORDS, .dest = fen, .size = sizeof fen, .arg = "FEN",
       .help = "position to start from (quote it, or give its fields as separate\n"
               "arguments); 4-field FENs are accepted. Default: the start position."},
      {.name = "depth", .kind = CF_CLI_INT, .dest = &depth, .imin = 1, .imax = MAX_DEPTH,
       .help = depth_help},
      {.name = "divide", .kind = CF_CLI_BOOL, .dest = &divide,
       .help = "also print the count below each legal move"},
  };
  cf_cli_spec spec = {.prog = "cformer perft", .version = "cformer " CF_VERSION, .usage = USAGE,
                      .footer = "\nstartpos (a positional argument) is the standard start "
                                "position.\n",
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
                      .positional_name = "startpos"};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  const int n_positions = spec.positional.count + (cf_cli_given(&spec, "fen") ? 1 : 0);
  const char *other = NULL;
  for (int i = 0; i < spec.positional.count && !other; i++)
    if (strcmp(spec.positional.items[i], "startpos") != 0) other = spec.positional.items[i];
  cf_cli_free(&spec);
  if (other) return cf_cli_usage_error(&spec, "unexpected argument '%s'", other);
  if (n_positions > 1)
    return cf_cli_usage_error(&spec, "more than one position given (--fen or startpos, once)");
  if (strcmp(fen, "startpos") == 0) strcpy(fen, CF_FEN_STARTPOS);

  cf_position pos;
  cf_error err;
  if (cf_position_from_fen(&pos, fen, &err) != CF_OK)
    return cf_cli_usage_error(&spec, "bad FEN: %s", err.msg);

  double start = cf_clock_now();
  uint64_t nodes;
  if (divide) {
    static uint64_t counts[CF_MAX_MOVES];
    cf_movelist moves;
    nodes = cf_perft_divide(&pos, depth, &moves, counts);
    for (int i = 0; i < moves.count; i++) {
      char text[CF_UCI_MOVE_MAX];
      cf_move_write_uci(moves.moves[i], pos.chess960, text);
      printf("%s: %" PRIu64 "\n", text, counts[i]);
    }
    printf("\nmoves: %d\n", moves.count);
  } else {
    nodes = cf_perft(&pos, depth);
  }
  double elapsed = cf_clock_now() - start;
  printf("depth: %d\nnodes: %" PRIu64 "\ntime: %.3f s\n", depth, nodes, elapsed);
  if (elapsed > 0)
    printf("speed: %.0f nodes/s\n", (double)nodes / elapsed);
  return 0;
}
