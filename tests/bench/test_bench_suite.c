/* test_bench_suite.c: the shipped position suite (data/bench/positions.txt)
 * and its reader: at least 100 positions from real games, each with history
 * and a move to make; malformed files fail naming the file and line. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "tests/cf_test.h"
#include "tools/bench/bench_suite.h"

/* Whether the side to move has a mate in one. */
static bool mate_in_one(const cf_position *pos) {
  cf_movelist moves, replies;
  const int n = cf_generate_legal(pos, &moves);
  for (int i = 0; i < n; i++) {
    cf_position after = *pos;
    cf_undo undo;
    cf_position_make(&after, moves.moves[i], &undo);
    if (cf_generate_legal(&after, &replies) == 0 && cf_position_in_check(&after)) return true;
  }
  return false;
}

static void test_shipped_suite(cf_test *t) {
  bench_suite s;
  cf_error err = {0};
  if (!CHECK(bench_suite_load(BENCH_SUITE_FILE, 0, &s, &err) == CF_OK)) {
    printf("  %s\n", err.msg);
    return;
  }
  CHECK(s.count >= 100);
  int with_history = 0, playable = 0, unique = 1;
  for (int i = 0; i < s.count; i++) {
    cf_movelist moves;
    with_history += s.entries[i].game.count >= 2;
    playable += cf_generate_legal(cf_game_position(&s.entries[i].game), &moves) > 0;
    for (int j = 0; j < i; j++) unique &= strcmp(s.entries[i].id, s.entries[j].id) != 0;
  }
  CHECK_INT_EQ(with_history, s.count);
  CHECK_INT_EQ(playable, s.count);
  CHECK(unique);
  /* the first line of the suite, as make_positions.py picks it */
  CHECK_STR_EQ(s.entries[0].id, "00HLP");
  /* a short run times searches, not mates in one the search proves at once */
  int first_mates = 0, mates = 0;
  for (int i = 0; i < s.count; i++) {
    const bool m = mate_in_one(cf_game_position(&s.entries[i].game));
    mates += m;
    first_mates += m && i < 16;
  }
  CHECK_INT_EQ(first_mates, 0);
  CHECK(mates > 0); /* the check itself finds them further on */
  bench_suite_free(&s);
  /* a limit takes the first positions */
  CHECK(bench_suite_load(BENCH_SUITE_FILE, 7, &s, &err) == CF_OK);
  CHECK_INT_EQ(s.count, 7);
  bench_suite_free(&s);
}

static cf_status load_text(const char *text, cf_error *err) {
  char path[] = "/tmp/cf_bench_suite_XXXXXX";
  FILE *f = fdopen(mkstemp(path), "w");
  if (!f) return CF_ERR_IO;
  fputs(text, f);
  fclose(f);
  bench_suite s;
  cf_status st = bench_suite_load(path, 0, &s, err);
  if (st == CF_OK) bench_suite_free(&s);
  remove(path);
  return st;
}

static void test_bad_suites(cf_test *t) {
  cf_error err = {0};
  bench_suite s;
  CHECK(bench_suite_load("/nonexistent/positions.txt", 0, &s, &err) == CF_ERR_IO);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/positions.txt");
  CHECK(load_text("# only a comment\n", &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "no positions");
  CHECK(load_text("a|8/8/8/8/8/8/8/8 w - - 0 1|\n", &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, ":1");
  CHECK(load_text("ok|" "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1|e2e4\n"
                  "bad|rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1|e2e5\n",
                  &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, ":2");
  CHECK(load_text("no bars here\n", &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "id|fen|moves");
  CHECK(load_text("x|rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1|e2e4 e7e5\n",
                  &err) == CF_OK);
}

CF_TEST_MAIN(test_shipped_suite, test_bad_suites)
