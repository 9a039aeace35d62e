/* test_net_input.c: the 112-plane encoding. One test per canonical
 * transform (each parity case Lc0 transforms that way: planes, transform
 * and policy indices exact), then the history rules: HistoryFill modes, the
 * en-passant undo in filled slots, the canonical walk's stops and canonical
 * v2's repetition-only history. */
#include <stdlib.h>
#include <string.h>

#include "chess/cf_game.h"
#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_game.h"

/* The canonical parity nets (input formats 4 and 5). */
static const char *const canonical_nets[] = {"lc0-smolgen-relu2", "cf-rpe-ln-canonical"};

static void check_transform_cases(cf_test *t, int transform) {
  char msg[512];
  int seen = 0;
  for (int k = 0; k < 2; k++) {
    cf_parity_case *cases;
    int n;
    if (!CHECK(cf_parity_load(cf_parity_dir(), canonical_nets[k], &cases, &n, msg, sizeof msg)))
      continue;
    for (int i = 0; i < n; i++) {
      const cf_parity_case *c = &cases[i];
      if (c->transform != transform) continue;
      seen++;
      cf_parity_game g;
      if (!CHECK(cf_parity_game_build(c, c->input_format, &g, msg, sizeof msg))) continue;
      cf_planes p;
      CHECK_INT_EQ(cf_net_encode_planes(&g.position, CF_HISTORY_FILL_FEN_ONLY, &p), transform);
      int same = 0;
      for (int j = 0; j < CF_PLANE_COUNT; j++)
        same += p.mask[j] == c->planes.mask[j] && (!p.mask[j] || p.value[j] == c->planes.value[j]);
      if (!CHECK_INT_EQ(same, CF_PLANE_COUNT)) fprintf(stderr, "%s %s\n", canonical_nets[k], c->id);
      /* the mover's king lands where the transformed plane 5 has it */
      const cf_net_board *b = &g.position.boards[0];
      uint64_t king = b->kings & (b->black_to_move ? b->black : b->white);
      CHECK_INT_EQ(cf_policy_square(__builtin_ctzll(king), b->black_to_move, transform),
                   __builtin_ctzll(p.mask[5]));
      CHECK_INT_EQ(g.n_moves, c->n_legal);
      for (int m = 0; m < g.n_moves; m++)
        if (CHECK(g.move_case[m] >= 0))
          CHECK_INT_EQ(cf_policy_move_index(g.moves[m], g.black_to_move, transform),
                       c->legal[g.move_case[m]].index);
    }
    free(cases);
  }
  CHECK(seen > 0); /* the parity set covers every transform */
}

static void test_transform_0_none(cf_test *t) { check_transform_cases(t, 0); }
static void test_transform_1_flip(cf_test *t) { check_transform_cases(t, 1); }
static void test_transform_2_mirror(cf_test *t) { check_transform_cases(t, 2); }
static void test_transform_3_flip_mirror(cf_test *t) { check_transform_cases(t, 3); }
static void test_transform_4_transpose(cf_test *t) { check_transform_cases(t, 4); }
static void test_transform_5_flip_transpose(cf_test *t) { check_transform_cases(t, 5); }
static void test_transform_6_mirror_transpose(cf_test *t) { check_transform_cases(t, 6); }
static void test_transform_7_all(cf_test *t) { check_transform_cases(t, 7); }

/* Formats 1 and 2 never transform, even where format 4 would. */
static void test_classical_never_transforms(cf_test *t) {
  cf_game game;
  if (!CHECK(cf_game_init_fen(&game, "8/8/1K6/8/8/5k2/8/2R3n1 w - - 0 1", NULL) == CF_OK)) return;
  cf_net_position pos;
  cf_planes p;
  const int formats[] = {1, 2, 3, 4, 5, 132, 133}, want[] = {0, 0, 7, 7, 7, 7, 7};
  for (int i = 0; i < 7; i++) {
    cf_engine_net_position(&game, formats[i], &pos);
    CHECK_INT_EQ(cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p), want[i]);
  }
  cf_game_free(&game);
}

/* Builds the position of fen + moves for input format. */
static bool build(cf_test *t, const char *fen, const char *moves, int format,
                  cf_net_position *pos) {
  cf_game game;
  cf_error err = {0};
  if (!CHECK(cf_game_init_fen(&game, fen, &err) == CF_OK)) return false;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *save = NULL, *m = strtok_r(buf, " ", &save); m; m = strtok_r(NULL, " ", &save))
    if (!CHECK(cf_game_push_uci(&game, m, &err) == CF_OK)) {
      fprintf(stderr, "%s\n", err.msg);
      cf_game_free(&game);
      return false;
    }
  cf_engine_net_position(&game, format, pos);
  cf_game_free(&game);
  return true;
}

static bool slot_empty(const cf_planes *p, int slot) {
  for (int j = 0; j < CF_PLANES_PER_BOARD; j++)
    if (p->mask[slot * CF_PLANES_PER_BOARD + j]) return false;
  return true;
}

static bool slots_equal(const cf_planes *p, int a, int b) {
  for (int j = 0; j < CF_PLANES_PER_BOARD; j++)
    if (p->mask[a * CF_PLANES_PER_BOARD + j] != p->mask[b * CF_PLANES_PER_BOARD + j]) return false;
  return true;
}

#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define STARTPOS "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

static void test_history_fill_modes(cf_test *t) {
  cf_net_position pos;
  cf_planes p;
  /* a FEN game of two positions: fen_only and always repeat the FEN board */
  if (!build(t, KIWIPETE, "a2a4", 1, &pos)) return;
  CHECK_INT_EQ(pos.count, 2);
  CHECK(pos.game_start);
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  for (int s = 2; s < 8; s++) CHECK(slots_equal(&p, 1, s));
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_ALWAYS, &p);
  for (int s = 2; s < 8; s++) CHECK(slots_equal(&p, 1, s));
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_NO, &p);
  for (int s = 2; s < 8; s++) CHECK(slot_empty(&p, s));
  /* from the start position, fen_only leaves the slots empty, always fills */
  if (!build(t, STARTPOS, "e2e4", 1, &pos)) return;
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  for (int s = 2; s < 8; s++) CHECK(slot_empty(&p, s));
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_ALWAYS, &p);
  for (int s = 2; s < 8; s++) CHECK(slots_equal(&p, 1, s));
  /* eight positions or more: nothing to fill, the oldest are dropped */
  if (!build(t, STARTPOS, "g1f3 g8f6 b1c3 b8c6 e2e4 e7e5 d2d4 d7d5 c1g5", 1, &pos)) return;
  CHECK_INT_EQ(pos.count, 8);
  CHECK(!pos.game_start);
  cf_history_fill fill;
  CHECK(cf_history_fill_parse("always", &fill, NULL) == CF_OK && fill == CF_HISTORY_FILL_ALWAYS);
  cf_error err;
  CHECK_INT_EQ(cf_history_fill_parse("sometimes", &fill, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "sometimes");
}

/* A copied first position with an en-passant square shows the pawn back
 * on its start square (d5 -> d7 here: black just played d7d5). */
static void test_fill_undoes_double_step(cf_test *t) {
  cf_net_position pos;
  cf_planes p;
  if (!build(t, "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", "", 1, &pos))
    return;
  CHECK_INT_EQ(pos.boards[0].ep_file, 3);
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  const uint64_t d5 = 1ull << 35, d7 = 1ull << 51;
  CHECK(p.mask[6] & d5); /* slot 0: their pawn on d5 */
  CHECK(!(p.mask[6] & d7));
  for (int s = 1; s < 8; s++) {
    CHECK(!(p.mask[s * 13 + 6] & d5)); /* copies: back on d7 */
    CHECK(p.mask[s * 13 + 6] & d7);
  }
  /* canonical formats stop at a position with an en-passant square instead */
  if (!build(t, "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 1 3", "", 4, &pos))
    return;
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_FEN_ONLY, &p);
  for (int s = 1; s < 8; s++) CHECK(slot_empty(&p, s));
  CHECK_INT_EQ(p.mask[108], 1ull << 59); /* en passant on d: square 56 + 3 */
}

/* Lc0 records an en-passant square only when an enemy pawn stands beside. */
static void test_en_passant_square(cf_test *t) {
  cf_net_position pos;
  if (!build(t, STARTPOS, "e2e4", 4, &pos)) return;
  CHECK_INT_EQ(pos.boards[0].ep_file, -1);
  if (!build(t, STARTPOS, "e2e4 a7a6 e4e5 d7d5", 4, &pos)) return;
  CHECK_INT_EQ(pos.boards[0].ep_file, 3);
}

/* Canonical formats stop at a rule-50 reset and at a castling change. */
static void test_canonical_walk_stops(cf_test *t) {
  cf_net_position pos;
  if (!build(t, STARTPOS, "e2e4 e7e5 g1f3", 4, &pos)) return;
  CHECK_INT_EQ(pos.count, 2); /* g1f3, then e7e5 (rule-50 0) ends it */
  if (!build(t, STARTPOS, "e2e4 e7e5 g1f3", 1, &pos)) return;
  CHECK_INT_EQ(pos.count, 4); /* classical keeps the whole game */
  if (!build(t, "4k3/8/8/8/8/8/8/R3K2R w KQ - 3 20", "e1f1 e8d8 f1e1", 4, &pos)) return;
  CHECK_INT_EQ(pos.count, 3); /* before e1f1 white could still castle */
  CHECK(!pos.game_start);
  if (!build(t, "4k3/8/8/8/8/8/8/R3K2R w - - 3 20", "e1f1 e8d8 f1e1", 4, &pos)) return;
  CHECK_INT_EQ(pos.count, 4);
  CHECK(pos.game_start);
}

/* The walk over plain boards, without chess/. */
static void test_walk_from_boards(cf_test *t) {
  cf_net_board b[3];
  for (int i = 0; i < 3; i++) cf_net_board_startpos(&b[i]);
  b[0].rule50 = 2;
  b[1].rule50 = 1;
  b[1].black_to_move = true;
  cf_net_position pos;
  cf_net_position_from_history(&pos, 4, &b[0], &b[1], 2, true);
  CHECK_INT_EQ(pos.count, 3); /* b[2] (rule-50 0) is the last one kept */
  CHECK(!pos.game_start);     /* the walk stopped there by its own rule */
  cf_net_position_from_history(&pos, 1, &b[0], &b[1], 2, true);
  CHECK_INT_EQ(pos.count, 3);
  CHECK(pos.game_start);
  cf_net_position_from_history(&pos, 1, &b[0], &b[1], 1, false);
  CHECK_INT_EQ(pos.count, 2);
  CHECK(!pos.game_start);
  CHECK(cf_net_board_same(&b[0], &b[2]));  /* the counters are not part of the position */
  CHECK(!cf_net_board_same(&b[0], &b[1])); /* the side to move is */
  const int formats[] = {1, 2, 3, 4, 5, 132, 133};
  for (int i = 0; i < 7; i++) CHECK(cf_input_is_supported(formats[i]));
  CHECK(!cf_input_is_supported(6) && !cf_input_is_supported(0));
}

/* Canonical v2 writes, after the current position, only repetitions. */
static void test_v2_keeps_repetitions(cf_test *t) {
  cf_net_position pos;
  if (!build(t, STARTPOS, "g1f3 g8f6 f3g1 f6g8 g1f3", 5, &pos)) return;
  CHECK_INT_EQ(pos.count, 2);
  CHECK_INT_EQ(pos.boards[0].repetitions, 1);
  CHECK_INT_EQ(pos.boards[1].repetitions, 1);
  CHECK(!pos.boards[1].black_to_move); /* the start position again */
  cf_planes p;
  cf_net_encode_planes(&pos, CF_HISTORY_FILL_ALWAYS, &p);
  CHECK_INT_EQ(p.mask[12], ~0ull); /* both are repetitions */
  CHECK_INT_EQ(p.mask[13 + 12], ~0ull);
  for (int s = 2; s < 8; s++) CHECK(slot_empty(&p, s)); /* v2 never fills */
}

CF_TEST_MAIN(test_transform_0_none, test_transform_1_flip, test_transform_2_mirror,
             test_transform_3_flip_mirror, test_transform_4_transpose,
             test_transform_5_flip_transpose, test_transform_6_mirror_transpose,
             test_transform_7_all, test_classical_never_transforms, test_history_fill_modes,
             test_fill_undoes_double_step, test_en_passant_square, test_canonical_walk_stops,
             test_walk_from_boards, test_v2_keeps_repetitions)
