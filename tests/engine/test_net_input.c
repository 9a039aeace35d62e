/* test_net_input.c: the engine glue from chess/ games to the network's
 * position struct and policy moves. */
#include <string.h>

#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tests/cf_test.h"

static int sq(const char *s) { return (s[1] - '1') * 8 + (s[0] - 'a'); }

static bool start(cf_test *t, cf_game *g, const char *fen, const char *moves) {
  cf_error err = {0};
  if (!CHECK(cf_game_init_fen(g, fen, &err) == CF_OK)) return false;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *save = NULL, *m = strtok_r(buf, " ", &save); m; m = strtok_r(NULL, " ", &save))
    if (!CHECK(cf_game_push_uci(g, m, &err) == CF_OK)) return false;
  return true;
}

static void test_policy_moves(cf_test *t) {
  cf_position pos;
  cf_error err = {0};
  cf_game g;
  if (!start(t, &g, "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", "")) return;
  pos = *cf_game_position(&g);
  cf_move m;
  CHECK(cf_move_parse_uci(&pos, "e1g1", &m, &err) == CF_OK);
  cf_policy_move p = cf_engine_policy_move(m);
  CHECK(p.from == sq("e1") && p.to == sq("h1") && p.promo == CF_PROMO_NONE);
  CHECK(cf_move_parse_uci(&pos, "e1c1", &m, &err) == CF_OK);
  p = cf_engine_policy_move(m);
  CHECK(p.to == sq("a1"));
  const char *promos[] = {"b7a8q", "b7a8r", "b7a8b", "b7a8n"};
  for (int i = 0; i < 4; i++) {
    CHECK(cf_move_parse_uci(&pos, promos[i], &m, &err) == CF_OK);
    p = cf_engine_policy_move(m);
    CHECK(p.from == sq("b7") && p.to == sq("a8") && p.promo == CF_PROMO_QUEEN + i);
  }
  cf_move moves[CF_MAX_MOVES];
  cf_policy_move pm[CF_MAX_MOVES];
  int n = cf_engine_legal_policy_moves(&pos, moves, pm);
  CHECK(n > 0);
  int castles = 0;
  for (int i = 0; i < n; i++)
    castles += pm[i].from == sq("e1") && (pm[i].to == sq("h1") || pm[i].to == sq("a1"));
  CHECK_INT_EQ(castles, 2);
  cf_game_free(&g);
}

/* Lc0 records the en-passant square whenever an enemy pawn stands beside
 * the pawn that made the double step, even if that pawn is pinned and the
 * capture illegal (chess/ keeps only legal ones). */
static void test_pinned_en_passant(cf_test *t) {
  cf_game g;
  if (!start(t, &g, "8/2p5/8/KP5r/8/8/8/4k3 b - - 0 1", "c7c5")) return;
  CHECK_INT_EQ(cf_game_position(&g)->ep_square, CF_NO_SQUARE);
  cf_net_board b;
  cf_engine_net_board(&g, g.count - 1, &b);
  CHECK_INT_EQ(b.ep_file, 2);
  cf_net_position pos;
  cf_engine_net_position(&g, 4, &pos);
  cf_planes p;
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  CHECK_INT_EQ(p.mask[108], 1ull << 61); /* c-file, flipped to f: our king is on the a-file */
  cf_game_free(&g);
}

static void test_board_fields(cf_test *t) {
  cf_game g;
  if (!start(t, &g, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 7 12",
             "e1f1 e8f8 f1e1 f8e8"))
    return;
  cf_net_board b;
  cf_engine_net_board(&g, g.count - 1, &b);
  CHECK(!b.black_to_move);
  CHECK_INT_EQ(b.castling, 0);
  CHECK_INT_EQ(b.rule50, 11);
  CHECK_INT_EQ(b.repetitions, 0); /* the rights differ from the first position */
  CHECK_INT_EQ(b.rook_file[0][0], 0);
  CHECK_INT_EQ(b.rook_file[0][1], 7);
  CHECK(b.kings == ((1ull << sq("e1")) | (1ull << sq("e8"))));
  CHECK(b.queens == ((1ull << sq("f3")) | (1ull << sq("e7"))));
  cf_engine_net_board(&g, 0, &b);
  CHECK_INT_EQ(b.castling, 15);
  /* format 2: planes 104/105 mark the rooks that keep a right */
  cf_game_free(&g);
  if (!start(t, &g, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 0 1", ""))
    return;
  cf_net_position pos;
  cf_planes p;
  cf_engine_net_position(&g, 2, &pos);
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  CHECK_INT_EQ(p.mask[104], 1ull << 56); /* theirs a8 */
  CHECK_INT_EQ(p.mask[105], 1ull << 7);  /* ours h1 */
  cf_engine_net_position(&g, 1, &pos);
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  CHECK_INT_EQ(p.mask[104], 0); /* we cannot castle queenside */
  CHECK_INT_EQ(p.mask[105], ~0ull);
  CHECK_INT_EQ(p.mask[106], ~0ull); /* they can */
  CHECK_INT_EQ(p.mask[107], 0);
  cf_game_free(&g);
}

CF_TEST_MAIN(test_policy_moves, test_pinned_en_passant, test_board_fields)
