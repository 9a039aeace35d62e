/* cf_syzygy_fathom.c: the prober, Fathom (libfathom-dev), behind
 * cf_syzygy.h: positions are handed over as bitboards (a1 = 0, as chess/
 * numbers squares), results come back in the tables' terms. */
#include <pthread.h>
#include <stdlib.h>
#include <tbprobe.h>

#include "chess/cf_movegen.h"
#include "engine/syzygy/cf_syzygy.h"
#include "engine/syzygy/cf_syzygy_backend.h"

/* Fathom keeps its rule-50 count in a byte and adds one per ply it looks
 * ahead, so a count near 255 would wrap to "just zeroed". Every count of
 * 100 or more ranks the root moves alike (no win is certain any more), so a
 * clamp at 200 changes nothing Lc0 would do. */
#define ROOT_RULE50_CLAMP 200

/* Fathom documents its root probes as not safe to run concurrently; one
 * search at a time probes its root (WDL probes in the tree need no lock). */
static pthread_mutex_t g_root_mu = PTHREAD_MUTEX_INITIALIZER;

int cf_syzygy_backend_available(void) { return 1; }

cf_status cf_syzygy_backend_open(const char *paths, cf_error *err) {
  if (!tb_init(paths)) return cf_error_set(err, CF_ERR_IO, "the Syzygy prober failed to start");
  return CF_OK;
}

int cf_syzygy_backend_largest(void) { return (int)TB_LARGEST; }

typedef struct fathom_board {
  uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
  unsigned ep;
  bool turn;
} fathom_board;

static fathom_board board_of(const cf_position *pos) {
  fathom_board b;
  const cf_bb(*p)[CF_PIECE_TYPE_COUNT] = pos->pieces;
  b.white = pos->occupied[CF_WHITE];
  b.black = pos->occupied[CF_BLACK];
  b.kings = p[CF_WHITE][CF_KING] | p[CF_BLACK][CF_KING];
  b.queens = p[CF_WHITE][CF_QUEEN] | p[CF_BLACK][CF_QUEEN];
  b.rooks = p[CF_WHITE][CF_ROOK] | p[CF_BLACK][CF_ROOK];
  b.bishops = p[CF_WHITE][CF_BISHOP] | p[CF_BLACK][CF_BISHOP];
  b.knights = p[CF_WHITE][CF_KNIGHT] | p[CF_BLACK][CF_KNIGHT];
  b.pawns = p[CF_WHITE][CF_PAWN] | p[CF_BLACK][CF_PAWN];
  /* chess/ sets ep_square only where the capture is legal, which is what
   * the prober takes it to mean; 0 (a1) says "none". */
  b.ep = pos->ep_square == CF_NO_SQUARE ? 0u : (unsigned)pos->ep_square;
  b.turn = pos->side == CF_WHITE;
  return b;
}

int cf_syzygy_probe_wdl(const cf_position *pos, cf_syzygy_wdl *wdl) {
  if (!cf_syzygy_tree_probeable(pos)) return 0;
  fathom_board b = board_of(pos);
  unsigned r = tb_probe_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights,
                            b.pawns, 0, 0, b.ep, b.turn);
  if (r == TB_RESULT_FAILED) return 0;
  *wdl = (cf_syzygy_wdl)((int)r - 2);
  return 1;
}

/* Fathom's promotion code (1 queen .. 4 knight, 0 none) of a chess/ move. */
static unsigned promotes_of(cf_move m) {
  return cf_move_kind_of(m) == CF_MOVE_PROMOTION ? (unsigned)(CF_QUEEN + 1 - cf_move_promotion(m))
                                                 : 0u;
}

/* Keeps the legal moves whose rank is the best one. Lc0 ranks root moves as
 * Fathom's root probes do (Stockfish's scheme): by DTZ, a win that the
 * fifty-move rule cannot spoil ranks 1000 and any other win lower, a draw
 * 0, a loss -1000 unless a fifty-move draw is in reach; by WDL alone,
 * 1000 / 899 / 0 / -899 / -1000 for win, cursed win, draw, blessed loss,
 * loss. Returns 0 when the lists disagree (nothing is filtered then). */
static int keep_best(const cf_position *pos, const struct TbRootMoves *rm, cf_movelist *safe,
                     int32_t *best_rank) {
  cf_movelist legal;
  cf_generate_legal(pos, &legal);
  if ((int)rm->size != legal.count || legal.count == 0) return 0;
  int32_t best = INT32_MIN, rank[CF_MAX_MOVES];
  for (int i = 0; i < legal.count; i++) {
    cf_move m = legal.moves[i];
    unsigned j = 0;
    while (j < rm->size && !(TB_MOVE_FROM(rm->moves[j].move) == (unsigned)cf_move_from(m) &&
                             TB_MOVE_TO(rm->moves[j].move) == (unsigned)cf_move_to(m) &&
                             TB_MOVE_PROMOTES(rm->moves[j].move) == promotes_of(m)))
      j++;
    if (j == rm->size) return 0;
    rank[i] = rm->moves[j].tbRank;
    if (rank[i] > best) best = rank[i];
  }
  safe->count = 0;
  for (int i = 0; i < legal.count; i++)
    if (rank[i] == best) safe->moves[safe->count++] = legal.moves[i];
  *best_rank = best;
  return 1;
}

/* The root's result from its best move's rank: 900 and up (Fathom's bound
 * with the fifty-move rule, 1000 less 100) a win the rule cannot spoil,
 * -900 and down such a loss, between them the rule's draws, 0 a draw. */
static cf_syzygy_wdl result_of_rank(int32_t r) {
  if (r >= 900) return CF_SYZYGY_WIN;
  if (r <= -900) return CF_SYZYGY_LOSS;
  return r > 0 ? CF_SYZYGY_CURSED_WIN : r < 0 ? CF_SYZYGY_BLESSED_LOSS : CF_SYZYGY_DRAW;
}

cf_syzygy_root cf_syzygy_root_probe(const cf_position *pos, int has_repeated, cf_movelist *safe,
                                    cf_syzygy_wdl *result) {
  safe->count = 0;
  int max = cf_syzygy_max_pieces();
  if (max == 0 || pos->castling != 0 || cf_bb_count(cf_position_all(pos)) > max)
    return CF_SYZYGY_ROOT_NONE;
  struct TbRootMoves *rm = malloc(sizeof *rm);
  if (!rm) return CF_SYZYGY_ROOT_NONE;
  fathom_board b = board_of(pos);
  unsigned rule50 = (unsigned)(pos->rule50 < ROOT_RULE50_CLAMP ? pos->rule50 : ROOT_RULE50_CLAMP);
  cf_syzygy_root how = CF_SYZYGY_ROOT_NONE;
  int32_t best = 0;
  pthread_mutex_lock(&g_root_mu);
  if (tb_probe_root_dtz(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights,
                        b.pawns, rule50, 0, b.ep, b.turn, has_repeated != 0, true, rm) &&
      keep_best(pos, rm, safe, &best))
    how = CF_SYZYGY_ROOT_DTZ;
  else if (tb_probe_root_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights,
                             b.pawns, rule50, 0, b.ep, b.turn, true, rm) &&
           keep_best(pos, rm, safe, &best))
    how = CF_SYZYGY_ROOT_WDL;
  pthread_mutex_unlock(&g_root_mu);
  free(rm);
  if (how == CF_SYZYGY_ROOT_NONE) safe->count = 0;
  else if (result) *result = result_of_rank(best);
  return how;
}

cf_syzygy_root cf_syzygy_root_filter(const cf_position *pos, int has_repeated, cf_movelist *safe) {
  return cf_syzygy_root_probe(pos, has_repeated, safe, NULL);
}
