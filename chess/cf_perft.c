/* cf_perft.c: recursive leaf counting with make/unmake. */
#include "chess/cf_perft.h"

#include "chess/cf_movegen.h"

static uint64_t perft_rec(cf_position *pos, int depth) {
  cf_movelist list;
  int n = cf_generate_legal(pos, &list);
  if (depth == 1) return (uint64_t)n;
  uint64_t nodes = 0;
  cf_undo undo;
  for (int i = 0; i < n; i++) {
    cf_position_make(pos, list.moves[i], &undo);
    nodes += perft_rec(pos, depth - 1);
    cf_position_unmake(pos, list.moves[i], &undo);
  }
  return nodes;
}

uint64_t cf_perft(cf_position *pos, int depth) {
  return depth <= 0 ? 1 : perft_rec(pos, depth);
}

uint64_t cf_perft_divide(cf_position *pos, int depth, cf_movelist *moves, uint64_t counts[CF_MAX_MOVES]) {
  uint64_t total = 0;
  cf_undo undo;
  cf_generate_legal(pos, moves);
  for (int i = 0; i < moves->count; i++) {
    cf_position_make(pos, moves->moves[i], &undo);
    counts[i] = cf_perft(pos, depth - 1);
    cf_position_unmake(pos, moves->moves[i], &undo);
    total += counts[i];
  }
  return total;
}
