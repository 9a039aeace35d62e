/* perft_cmd.c: `cformer perft`, the move generator's check and benchmark.
 *
 *     cformer perft [--fen FEN | startpos] [--depth N] [--divide]
 *
 * Prints the per-move counts with --divide (compare them with another
 * engine's to find the subtree where a bug lives), then the total, the time
 * and the speed. Exit status 0 on success, 2 on bad arguments or FEN. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_perft.h"
#include "tools/cf_commands.h"

#define DEFAULT_DEPTH 5
#define MAX_DEPTH 20

static void usage(FILE *out) {
  fprintf(out,
          "usage: cformer perft [--fen FEN | startpos] [--depth N] [--divide]\n\n"
          "Counts the leaf nodes of the legal move tree N plies deep and reports the speed.\n\n"
          "  --fen FEN   position to start from (quote it, or give its fields as separate\n"
          "              arguments); 4-field FENs are accepted. Default: the start position.\n"
          "  startpos    the standard start position\n"
          "  --depth N   plies to search, 1-%d (default %d)\n"
          "  --divide    also print the count below each legal move\n"
          "  --help      this text\n",
          MAX_DEPTH, DEFAULT_DEPTH);
}

/* Reports a usage error on stderr and returns the exit status for it. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cformer perft: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(cformer perft --help for usage)\n");
  va_end(ap);
  return 2;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cf_cmd_perft(int argc, char **argv) {
  int depth = DEFAULT_DEPTH, divide = 0, have_position = 0;
  char fen[CF_FEN_INPUT_MAX + 1] = CF_FEN_STARTPOS;

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(arg, "--divide") == 0) {
      divide = 1;
    } else if (strcmp(arg, "--depth") == 0) {
      if (++i >= argc) return fail("--depth needs a number");
      char *end;
      long d = strtol(argv[i], &end, 10);
      if (*argv[i] == '\0' || *end != '\0' || d < 1 || d > MAX_DEPTH)
        return fail("bad depth '%s' (expected a whole number from 1 to %d)", argv[i], MAX_DEPTH);
      depth = (int)d;
    } else if (strcmp(arg, "startpos") == 0) {
      if (have_position) return fail("more than one position given (at '%s')", arg);
      have_position = 1;
    } else if (strcmp(arg, "--fen") == 0) {
      if (have_position) return fail("more than one position given (at '%s')", arg);
      have_position = 1;
      /* The FEN may arrive as one quoted argument or as its fields. */
      size_t n = 0;
      int fields = 0;
      while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
        size_t len = strlen(argv[++i]);
        if (n + len + 2 > sizeof fen) return fail("FEN is too long (over %d characters)", CF_FEN_INPUT_MAX);
        if (fields++) fen[n++] = ' ';
        memcpy(fen + n, argv[i], len);
        n += len;
      }
      fen[n] = '\0';
      if (fields == 0) return fail("--fen needs a FEN");
      if (strcmp(fen, "startpos") == 0) strcpy(fen, CF_FEN_STARTPOS);
    } else {
      return fail("unknown argument '%s'", arg);
    }
  }

  cf_position pos;
  cf_error err;
  if (cf_position_from_fen(&pos, fen, &err) != CF_OK) return fail("bad FEN: %s", err.msg);

  double start = seconds_now();
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
  double elapsed = seconds_now() - start;
  printf("depth: %d\nnodes: %" PRIu64 "\ntime: %.3f s\n", depth, nodes, elapsed);
  if (elapsed > 0)
    printf("speed: %.0f nodes/s\n", (double)nodes / elapsed);
  return 0;
}
