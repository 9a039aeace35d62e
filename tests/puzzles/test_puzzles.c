/* Puzzle parsing and scoring with scripted solvers: the shipped CSV parses
 * and replays, an oracle solves everything, a wrong move fails with the
 * move named, an alternative mate counts, broken puzzles are errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_chess.h"
#include "chess/cf_movegen.h"
#include "tests/cf_test.h"
#include "tools/puzzles/cf_puzzle.h"

/* Plays the puzzle's own answer: ctx is the puzzle, the game's ply count
 * says which move is due. */
static cf_status oracle(void *ctx, const cf_game *game, cf_move *move, cf_error *err) {
  const cf_puzzle *p = ctx;
  int i = game->count - 1; /* moves played so far = index of the due move */
  return cf_move_parse_uci(cf_game_position(game), p->moves[i], move, err);
}

/* Plays the first legal move in generation order. */
static cf_status first_legal(void *ctx, const cf_game *game, cf_move *move, cf_error *err) {
  (void)ctx;
  (void)err;
  cf_movelist list;
  cf_generate_legal(cf_game_position(game), &list);
  *move = list.moves[0];
  return CF_OK;
}

/* Plays a fixed UCI move. */
static cf_status fixed(void *ctx, const cf_game *game, cf_move *move, cf_error *err) {
  return cf_move_parse_uci(cf_game_position(game), (const char *)ctx, move, err);
}

static void test_shipped_csv_parses_and_oracle_solves_all(cf_test *t) {
  char path[4096];
  snprintf(path, sizeof path, "%s/puzzles/lichess_puzzles_public.csv", cf_test_data_dir());
  FILE *f = fopen(path, "r");
  if (!CHECK(f != NULL)) return;
  char line[2048];
  int n = 0, solved = 0, first_legal_solved = 0, per_band[CF_PUZZLE_BANDS] = {0};
  CHECK(fgets(line, sizeof line, f) != NULL); /* header */
  while (fgets(line, sizeof line, f)) {
    cf_puzzle p;
    cf_error err;
    if (!CHECK(cf_puzzle_parse_csv_line(line, &p, &err) == CF_OK)) {
      fprintf(stderr, "%s\n", err.msg);
      continue;
    }
    n++;
    per_band[cf_puzzle_band_of(p.rating)]++;
    cf_puzzle_outcome o;
    if (!CHECK(cf_puzzle_run(&p, oracle, &p, &o, &err) == CF_OK)) {
      fprintf(stderr, "%s\n", err.msg);
      continue;
    }
    solved += o.solved;
    CHECK_INT_EQ(o.solver_moves, p.n_moves / 2);
    if (cf_puzzle_run(&p, first_legal, NULL, &o, &err) == CF_OK) first_legal_solved += o.solved;
  }
  fclose(f);
  /* The data README: 775 puzzles, 436 / 231 / 74 / 34 by band. */
  CHECK_INT_EQ(n, 775);
  CHECK_INT_EQ(solved, 775);
  CHECK_INT_EQ(per_band[0], 436);
  CHECK_INT_EQ(per_band[1], 231);
  CHECK_INT_EQ(per_band[2], 74);
  CHECK_INT_EQ(per_band[3], 34);
  CHECK(first_legal_solved < n / 4); /* scoring is not trivially generous */
}

/* Black plays e7e6; White mates with Rg8 (listed) or Rh8 (also mate). */
static const char *two_mates = "TWOMT,k7/4p3/1K6/8/8/8/8/6RR b - - 0 1,e7e6 g1g8,900,80,90,10,mateIn1,,,";

static void test_any_mate_counts(cf_test *t) {
  cf_puzzle p;
  cf_error err;
  if (!CHECK(cf_puzzle_parse_csv_line(two_mates, &p, &err) == CF_OK)) return;
  CHECK_INT_EQ(p.rating, 900);
  CHECK_INT_EQ(p.n_moves, 2);
  cf_puzzle_outcome o;
  CHECK(cf_puzzle_run(&p, fixed, "h1h8", &o, &err) == CF_OK);
  CHECK(o.solved);
  CHECK(cf_puzzle_run(&p, fixed, "g1g8", &o, &err) == CF_OK);
  CHECK(o.solved);
  CHECK(cf_puzzle_run(&p, fixed, "g1g7", &o, &err) == CF_OK);
  CHECK(!o.solved);
  CHECK_STR_EQ(o.played, "g1g7");
  CHECK_STR_EQ(o.expected, "g1g8");
}

static void test_wrong_second_move_fails(cf_test *t) {
  /* From the shipped set: White plays c7e6, the solver (Black) must find
   * f7e6, then g7h8 after c6b7. */
  const char *line = "005YX,2rr4/2N2pk1/p1Q1b1pp/1p4q1/3pP3/1B1P4/PPP3PP/6RK w - - 7 25,"
                     "c7e6 f7e6 c6b7 g7h8,1964,130,100,35,short,,,";
  cf_puzzle p;
  cf_error err;
  if (!CHECK(cf_puzzle_parse_csv_line(line, &p, &err) == CF_OK)) return;
  cf_puzzle_outcome o;
  CHECK(cf_puzzle_run(&p, fixed, "g7h7", &o, &err) == CF_OK);
  CHECK(!o.solved);
  CHECK_INT_EQ(o.solver_moves, 1);
  CHECK_STR_EQ(o.played, "g7h7");
  CHECK_STR_EQ(o.expected, "f7e6");
  CHECK_INT_EQ(cf_puzzle_band_of(p.rating), 2);
}

static void test_malformed_lines(cf_test *t) {
  static const struct {
    const char *line, *needle;
  } cases[] = {
    {"", "PuzzleId"},
    {"ID1", "FEN"},
    {"ID1,8/8/8/8/8/8/8/K6k w - - 0 1", "Moves"},
    {"ID1,8/8/8/8/8/8/8/K6k w - - 0 1,a1a2 h1h2", "Rating"},
    {"ID1,8/8/8/8/8/8/8/K6k w - - 0 1,a1a2 h1h2,abc,", "Rating 'abc'"},
    {"ID1,8/8/8/8/8/8/8/K6k w - - 0 1,a1a2,900,", "solution move"},
    {"ID1,8/8/8/8/8/8/8/K6k w - - 0 1,a1a2 h1,900,", "'h1' is not a UCI move"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cf_puzzle p;
    cf_error err = {0};
    CHECK(cf_puzzle_parse_csv_line(cases[i].line, &p, &err) == CF_ERR_FORMAT);
    CHECK_STR_CONTAINS(err.msg, cases[i].needle);
  }
  /* Parses, but the FEN or a listed move is bad: a format error, no crash. */
  cf_puzzle p;
  cf_error err;
  cf_puzzle_outcome o;
  CHECK(cf_puzzle_parse_csv_line("BADF,8/8/8 w - - 0 1,a1a2 h1h2,900,", &p, &err) == CF_OK);
  CHECK(cf_puzzle_run(&p, first_legal, NULL, &o, &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "BADF");
  CHECK(cf_puzzle_parse_csv_line("BADM,k7/4p3/1K6/8/8/8/8/6RR b - - 0 1,e7e5 g1g8 a8a7,900,",
                                 &p, &err) == CF_OK);
  CHECK(cf_puzzle_run(&p, fixed, "g1g8", &o, &err) == CF_ERR_FORMAT); /* a reply after mate */
  CHECK_STR_CONTAINS(err.msg, "move 3");
  CHECK(cf_puzzle_parse_csv_line("BADM,k7/4p3/1K6/8/8/8/8/6RR b - - 0 1,e7e4 g1g8,900,", &p,
                                 &err) == CF_OK);
  CHECK(cf_puzzle_run(&p, first_legal, NULL, &o, &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "move 1");
}

CF_TEST_MAIN(test_shipped_csv_parses_and_oracle_solves_all, test_any_mate_counts,
             test_wrong_second_move_fails, test_malformed_lines)
