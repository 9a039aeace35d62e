/* test_instant_move.c: the network-free move of time trouble
 * (engine/cf_instant_move.h). */
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "engine/cf_instant_move.h"
#include "tests/cf_test.h"

/* The instant move of fen, in UCI notation. */
static const char *instant(cf_test *t, const char *fen, char out[CF_UCI_MOVE_MAX]) {
  cf_position pos;
  cf_error err = {0};
  out[0] = 0;
  if (!CHECK(cf_position_from_fen(&pos, fen, &err) == CF_OK)) return out;
  cf_move m = cf_instant_move(&pos);
  if (m == CF_MOVE_NONE) return strcpy(out, "none");
  CHECK(cf_move_is_legal(&pos, m));
  cf_move_write_uci(m, pos.chess960, out);
  return out;
}

static void test_mate_in_one(cf_test *t) {
  char m[CF_UCI_MOVE_MAX];
  /* Back-rank mate; Rxd1 would win a knight instead. */
  CHECK_STR_EQ(instant(t, "6k1/5ppp/8/8/8/8/5PPP/R2n2K1 w - - 0 1", m), "a1a8");
  /* Black mates too. */
  CHECK_STR_EQ(instant(t, "r2N2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", m), "a8a1");
}

static void test_material(cf_test *t) {
  char m[CF_UCI_MOVE_MAX];
  /* A free queen is taken. */
  CHECK_STR_EQ(instant(t, "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", m), "d1d5");
  /* A defended pawn is not taken with the queen (it would be lost). */
  instant(t, "4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", m);
  CHECK(strcmp(m, "d1d5") != 0);
  /* An attacked queen takes the undefended pawn that attacks it. */
  CHECK_STR_EQ(instant(t, "4k3/8/8/2p5/3Q4/8/8/4K3 w - - 0 1", m), "d4c5");
  /* Attacked by a defended pawn, the queen leaves (to a square no pawn hits). */
  instant(t, "4k3/8/1p6/2p5/3Q4/8/8/4K3 w - - 0 1", m);
  CHECK(m[0] == 'd' && m[1] == '4' && strcmp(m, "d4c5") != 0);
  /* Promotion to a queen. */
  CHECK_STR_EQ(instant(t, "8/P7/8/8/8/8/k7/4K3 w - - 0 1", m), "a7a8q");
}

static void test_no_move(cf_test *t) {
  char m[CF_UCI_MOVE_MAX];
  CHECK_STR_EQ(instant(t, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", m), "none"); /* stalemate */
  CHECK_STR_EQ(instant(t, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", m), "none");  /* mated */
}

/* Instant against instant from the start: every move legal and the same
 * game twice (deterministic). */
static void test_whole_games(cf_test *t) {
  char first[4096] = "", second[4096] = "";
  for (int run = 0; run < 2; run++) {
    char *out = run ? second : first;
    cf_game g;
    cf_error err = {0};
    if (!CHECK(cf_game_init_fen(&g, CF_FEN_STARTPOS, &err) == CF_OK)) return;
    size_t at = 0;
    for (int ply = 0; ply < 300; ply++) {
      cf_game_reason reason;
      if (cf_game_outcome(&g, &reason) != CF_RESULT_ONGOING) break;
      const cf_position *pos = cf_game_position(&g);
      cf_move mv = cf_instant_move(pos);
      if (!CHECK(mv != CF_MOVE_NONE && cf_move_is_legal(pos, mv))) break;
      char u[CF_UCI_MOVE_MAX];
      cf_move_write_uci(mv, pos->chess960, u);
      if (at + 8 < sizeof first) at += (size_t)snprintf(out + at, sizeof first - at, "%s ", u);
      if (!CHECK(cf_game_push(&g, mv, &err) == CF_OK)) break;
    }
    cf_game_free(&g);
  }
  CHECK(first[0] != 0);
  CHECK_STR_EQ(first, second);
}

CF_TEST_MAIN(test_mate_in_one, test_material, test_no_move, test_whole_games)
