/* test_planes_chess960.c: Chess960 castling in the network's input planes,
 * from a game (FEN, moves) to planes 104-107, as Lc0's encoder writes them:
 * format 1 fills a plane per right; formats >= 2 mark the castling rooks'
 * squares, ours on rank 1 and theirs on rank 8 of the mover's view, plane
 * 104 for the queenside (a-side) rooks and 105 for the kingside ones. Any
 * right held keeps the canonical formats from transforming the board. The
 * expected bits are worked out by hand in each comment. */
#include <string.h>

#include "chess/cf_game.h"
#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tests/cf_test.h"

/* Square index: a1 = 0, h1 = 7, a8 = 56, h8 = 63. */
#define BIT(file, rank) (1ull << ((rank - 1) * 8 + (file - 'a')))

/* The planes of game's current position for a net of this input format;
 * returns the canonical transform chosen. */
static int planes_of(cf_test *t, const char *fen, const char *moves, int format, cf_planes *p) {
  cf_game g;
  cf_error err = {0};
  if (!CHECK(cf_game_init_fen(&g, fen, &err) == CF_OK)) {
    fprintf(stderr, "  %s: %s\n", fen, err.msg);
    memset(p, 0, sizeof *p);
    return -1;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *save = NULL, *m = strtok_r(buf, " ", &save); m; m = strtok_r(NULL, " ", &save))
    CHECK(cf_game_push_uci(&g, m, &err) == CF_OK);
  cf_net_position pos;
  cf_engine_net_position(&g, format, &pos);
  int transform = cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, p);
  cf_game_free(&g);
  return transform;
}

/* Chess960 start 'nrkbbqrn': rooks on b and g, kings on c. */
#define START_X_FEN "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w KQkq - 0 1"
#define START_SHREDDER "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1"

static void test_start_position_rooks(cf_test *t) {
  static const char *const fens[] = {START_X_FEN, START_SHREDDER};
  static const int formats[] = {2, 3, 4, 5, 132, 133};
  for (int f = 0; f < 2; f++)
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
      cf_planes p;
      int transform = planes_of(t, fens[f], "", formats[i], &p);
      /* White to move: queenside rooks b1 (ours) and b8 (theirs), kingside
       * g1 and g8. Kings on the c-file would flip the board, but castling
       * rights forbid any transform. */
      CHECK_INT_EQ(p.mask[104], BIT('b', 1) | BIT('b', 8));
      CHECK_INT_EQ(p.mask[105], BIT('g', 1) | BIT('g', 8));
      CHECK_INT_EQ(p.mask[106], 0);
      CHECK_INT_EQ(p.mask[107], 0);
      if (!CHECK_INT_EQ(transform, 0)) fprintf(stderr, "  format %d\n", formats[i]);
    }
  /* Format 1: a full plane per right, whatever the files. */
  cf_planes p;
  planes_of(t, START_X_FEN, "", 1, &p);
  for (int j = 104; j <= 107; j++) CHECK_INT_EQ(p.mask[j], ~0ull);
}

/* White's queenside rook moves off b1 and loses its right; Black is to
 * move, so the view is mirrored: black's rooks are "ours" on rank 1, the
 * white g1 rook "theirs" on rank 8. */
static void test_lost_right_black_to_move(cf_test *t) {
  static const char *const fen = "1rk3r1/8/8/8/8/8/8/1RK3R1 w KQkq - 0 1";
  cf_planes p;
  int transform = planes_of(t, fen, "b1b2", 3, &p);
  CHECK_INT_EQ(p.mask[104], BIT('b', 1));                /* our b8 rook seen on b1 */
  CHECK_INT_EQ(p.mask[105], BIT('g', 1) | BIT('g', 8));  /* our g8 on g1, their g1 on g8 */
  CHECK_INT_EQ(transform, 0);
  /* The same rights given by the FEN (X-FEN Kkq, Shredder Ggb). */
  planes_of(t, "1rk3r1/8/8/8/8/8/1R6/2K3R1 b Kkq - 1 1", "", 2, &p);
  CHECK_INT_EQ(p.mask[104], BIT('b', 1));
  CHECK_INT_EQ(p.mask[105], BIT('g', 1) | BIT('g', 8));
  planes_of(t, "1rk3r1/8/8/8/8/8/1R6/2K3R1 b Ggb - 1 1", "", 2, &p);
  CHECK_INT_EQ(p.mask[104], BIT('b', 1));
  CHECK_INT_EQ(p.mask[105], BIT('g', 1) | BIT('g', 8));
  /* Format 1, from Black's side: we can castle both ways, they only
   * kingside (planes: our queenside, our kingside, their queenside, their
   * kingside). */
  planes_of(t, fen, "b1b2", 1, &p);
  CHECK_INT_EQ(p.mask[104], ~0ull);
  CHECK_INT_EQ(p.mask[105], ~0ull);
  CHECK_INT_EQ(p.mask[106], 0);
  CHECK_INT_EQ(p.mask[107], ~0ull);
}

/* An inner rook named by its file (X-FEN: the outer h1 rook holds no
 * right): the plane marks g1, not h1. With every right gone the canonical
 * formats transform again (king on the c-file: flip). */
static void test_inner_rook_and_no_rights(cf_test *t) {
  cf_planes p;
  int transform = planes_of(t, "2k5/8/8/8/8/8/8/2K3RR w G - 0 1", "", 3, &p);
  CHECK_INT_EQ(p.mask[104], 0);
  CHECK_INT_EQ(p.mask[105], BIT('g', 1));
  CHECK_INT_EQ(transform, 0);
  transform = planes_of(t, "2k5/8/8/8/8/8/8/2K3RR w G - 0 1", "g1g2 c8d8 g2g1", 3, &p);
  CHECK_INT_EQ(p.mask[104] | p.mask[105], 0);
  CHECK(transform != 0);
}

CF_TEST_MAIN(test_start_position_rooks, test_lost_right_black_to_move, test_inner_rook_and_no_rights)
