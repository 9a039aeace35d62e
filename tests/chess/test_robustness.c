/* test_robustness.c: random and mutated input must give CF_OK or a clean
 * CF_ERR_ARG, never a crash (the sanitizer build catches what a crash
 * would not), and random games must keep every invariant: incremental key,
 * make/unmake, FEN and UCI round trips, repetition counts. Deterministic
 * (fixed seed), so a failure reproduces. */
#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "chess/cf_perft.h"
#include "tests/cf_test.h"

static uint64_t rng = 0x5EED5EED12345678ULL;

static uint64_t rnd(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1DULL;
}
static int rnd_below(int n) { return (int)(rnd() % (uint64_t)n); }

static const char *seed_fens[] = {
  CF_FEN_STARTPOS,
  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
  "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
  "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
  "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
  "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
  "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
  "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
};
#define SEED_COUNT ((int)(sizeof seed_fens / sizeof seed_fens[0]))

/* Checks every invariant of a position reached in play. */
static void check_position(cf_test *t, cf_position *pos) {
  char fen[CF_FEN_MAX], fen2[CF_FEN_MAX];
  cf_position back;
  cf_error err;
  CHECK(cf_position_is_consistent(pos));
  cf_position_to_fen(pos, fen);
  if (!CHECK_INT_EQ(cf_position_from_fen(&back, fen, &err), CF_OK)) {
    fprintf(stderr, "  %s: %s\n", fen, err.msg);
    return;
  }
  CHECK(cf_position_same(&back, pos));
  cf_position_to_fen(&back, fen2);
  CHECK_STR_EQ(fen2, fen);

  cf_movelist list;
  cf_generate_legal(pos, &list);
  for (int i = 0; i < list.count; i++) {
    char text[CF_UCI_MOVE_MAX];
    cf_move parsed = CF_MOVE_NONE;
    cf_undo undo;
    cf_position before = *pos;
    cf_move_write_uci(list.moves[i], pos->chess960, text);
    if (cf_move_parse_uci(pos, text, &parsed, NULL) != CF_OK || parsed != list.moves[i]) {
      CHECK(!"UCI round trip");
      break;
    }
    cf_position_make(pos, list.moves[i], &undo);
    /* The side that just moved is never left in check. */
    int legal = !cf_position_attackers(pos, cf_position_king(pos, (cf_color)(pos->side ^ 1)), pos->side,
                                       cf_position_all(pos));
    int key_ok = pos->key == cf_position_compute_key(pos);
    cf_position_unmake(pos, list.moves[i], &undo);
    if (!legal || !key_ok || memcmp(pos, &before, sizeof before) != 0) {
      CHECK(!"make/unmake invariant");
      break;
    }
  }
}

/* Earlier occurrences of the last position, counted the slow way. */
static int brute_repetitions(const cf_game *game) {
  int n = 0;
  const cf_position *last = cf_game_position(game);
  for (int i = 0; i < game->count - 1; i++) n += cf_position_same(&game->plies[i].pos, last);
  return n;
}

static void test_random_games(cf_test *t) {
  int plies = 0, mismatched_repetitions = 0, repeats_seen = 0;
  for (int g = 0; g < 160; g++) {
    cf_game game;
    if (!CHECK_INT_EQ(cf_game_init_fen(&game, seed_fens[g % SEED_COUNT], NULL), CF_OK)) return;
    for (int ply = 0; ply < 400; ply++) {
      cf_position pos = *cf_game_position(&game);
      if (ply % 4 == 0) check_position(t, &pos);
      cf_movelist list;
      if (cf_generate_legal(&pos, &list) == 0) break;
      CHECK(list.count <= CF_MAX_MOVES);
      if (cf_game_push(&game, list.moves[rnd_below(list.count)], NULL) != CF_OK) {
        CHECK(!"push of a generated move failed");
        break;
      }
      plies++;
      int reps = game.plies[game.count - 1].repetitions;
      repeats_seen += reps > 0;
      mismatched_repetitions += reps != brute_repetitions(&game);
      if (t->failures) break;
    }
    cf_game_free(&game);
    if (t->failures) break;
  }
  CHECK(plies > 10000);
  CHECK(repeats_seen > 0); /* random endgames do repeat: the check above did run */
  CHECK_INT_EQ(mismatched_repetitions, 0);
}

/* A parse result is either a usable position or a clean error. */
static void check_parse(cf_test *t, const char *text, int *accepted) {
  cf_position pos;
  cf_error err = {CF_OK, ""};
  cf_status status = cf_position_from_fen(&pos, text, &err);
  if (status != CF_OK) {
    CHECK_INT_EQ(status, CF_ERR_ARG);
    CHECK(err.msg[0] != '\0');
    return;
  }
  ++*accepted;
  CHECK(cf_position_is_consistent(&pos));
  cf_movelist list;
  CHECK(cf_generate_legal(&pos, &list) <= CF_MAX_MOVES);
  cf_position copy = pos;
  (void)cf_perft(&copy, 2);
  CHECK(memcmp(&copy, &pos, sizeof pos) == 0);
  char fen[CF_FEN_MAX];
  cf_position back;
  cf_position_to_fen(&pos, fen);
  CHECK_INT_EQ(cf_position_from_fen(&back, fen, NULL), CF_OK);
}

static void mutate(char *s, size_t cap) {
  static const char alphabet[] = "pnbrqkPNBRQK12345678/ -wbKQkqabcdefghAH09x\t";
  size_t len = strlen(s);
  int kind = rnd_below(5);
  size_t at = len ? (size_t)rnd_below((int)len) : 0;
  char c = rnd_below(8) ? alphabet[rnd_below((int)sizeof alphabet - 1)] : (char)(1 + rnd_below(255));
  if (kind == 0 && len) {
    s[at] = c; /* replace */
  } else if (kind == 1 && len + 1 < cap) {
    memmove(s + at + 1, s + at, len - at + 1); /* insert */
    s[at] = c;
  } else if (kind == 2 && len) {
    memmove(s + at, s + at + 1, len - at); /* delete */
  } else if (kind == 3 && len) {
    s[at] = '\0'; /* truncate */
  } else if (len) {
    /* swap two characters: keeps lengths plausible, scrambles meaning */
    size_t other = (size_t)rnd_below((int)len);
    char tmp = s[at];
    s[at] = s[other];
    s[other] = tmp;
  }
}

static void test_mutated_fens(cf_test *t) {
  int accepted = 0;
  char buf[256];
  for (int i = 0; i < 30000 && !t->failures; i++) {
    snprintf(buf, sizeof buf, "%s", seed_fens[rnd_below(SEED_COUNT)]);
    int n = 1 + rnd_below(4);
    for (int k = 0; k < n; k++) mutate(buf, sizeof buf);
    check_parse(t, buf, &accepted);
  }
  /* Some mutations keep a valid FEN (e.g. a changed counter digit). */
  CHECK(accepted > 100);
}

static void test_garbage_strings(cf_test *t) {
  int accepted = 0;
  static char buf[5000];
  for (int i = 0; i < 3000 && !t->failures; i++) {
    int len = i < 2990 ? rnd_below(120) : (int)sizeof buf - 1;
    for (int k = 0; k < len; k++) buf[k] = (char)(1 + rnd_below(255));
    buf[len] = '\0';
    check_parse(t, buf, &accepted);
  }
  CHECK_INT_EQ(accepted, 0);
}

static void test_random_move_text(cf_test *t) {
  static const char alphabet[] = "abcdefgh12345678qrbnQx0-";
  cf_position pos;
  int accepted = 0;
  for (int i = 0; i < 30000 && !t->failures; i++) {
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, seed_fens[i % SEED_COUNT], NULL), CF_OK)) return;
    char text[16];
    int len = rnd_below(8);
    for (int k = 0; k < len; k++)
      text[k] = rnd_below(10) ? alphabet[rnd_below((int)sizeof alphabet - 1)] : (char)(1 + rnd_below(255));
    text[len] = '\0';
    cf_move m = CF_MOVE_NONE;
    cf_error err = {CF_OK, ""};
    cf_status status = cf_move_parse_uci(&pos, text, &m, &err);
    if (status == CF_OK) {
      accepted++;
      CHECK(cf_move_is_legal(&pos, m));
    } else {
      CHECK_INT_EQ(status, CF_ERR_ARG);
      CHECK_STR_CONTAINS(err.msg, "move");
    }
  }
  CHECK(accepted > 0);
}

CF_TEST_MAIN(test_random_games, test_mutated_fens, test_garbage_strings, test_random_move_text)
