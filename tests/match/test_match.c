/* test_match.c: the match tool's parts: SAN for PGN, Elo with its
 * interval, and the openings file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "tests/cf_test.h"
#include "tools/match/cf_elo.h"
#include "tools/match/cf_openings.h"
#include "tools/match/cf_san.h"
#include "tools/match/cf_sprt.h"

static const char *san(const char *fen, const char *uci) {
  static char out[CF_SAN_MAX];
  cf_position pos;
  cf_move m;
  if (cf_position_from_fen(&pos, fen, NULL) != CF_OK) return "bad fen";
  if (cf_move_parse_uci(&pos, uci, &m, NULL) != CF_OK) return "bad move";
  cf_move_to_san(&pos, m, out);
  return out;
}

static void test_san(cf_test *t) {
  CHECK_STR_EQ(san(CF_FEN_STARTPOS, "e2e4"), "e4");
  CHECK_STR_EQ(san(CF_FEN_STARTPOS, "g1f3"), "Nf3");
  CHECK_STR_EQ(san("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"), "O-O");
  CHECK_STR_EQ(san("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"), "O-O-O");
  /* Knights on b1 and f3 both reach d2: file. Rooks on a1 and a7 both
   * reach a4: rank. Queens on a1, a3 and c1... need the square. */
  CHECK_STR_EQ(san("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "b1d2"), "Nbd2");
  CHECK_STR_EQ(san("4k3/R7/8/8/8/8/8/R3K3 w - - 0 1", "a1a4"), "R1a4");
  CHECK_STR_EQ(san("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "a1b2"), "Qa1b2");
  CHECK_STR_EQ(san("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"), "exd5");
  CHECK_STR_EQ(san("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6");
  CHECK_STR_EQ(san("3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1", "c7d8q"), "cxd8=Q+");
  CHECK_STR_EQ(san("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n"), "b8=N");
  CHECK_STR_EQ(san("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"), "Ra8#");
  CHECK_STR_EQ(san("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4"), "Qh4#");
}

static void test_elo(cf_test *t) {
  cf_elo e = cf_elo_from_wdl(10, 0, 10);
  CHECK_NEAR(e.diff, 0, 1e-9);
  CHECK(e.lo < 0 && e.hi > 0);
  CHECK_NEAR(e.lo, -e.hi, 1e-6);
  CHECK_NEAR(cf_elo_of_score(0.75), 190.848501, 1e-5);
  e = cf_elo_from_wdl(30, 40, 30);
  cf_elo wide = cf_elo_from_wdl(3, 4, 3);
  CHECK(e.hi - e.lo < wide.hi - wide.lo); /* more games, narrower */
  e = cf_elo_from_wdl(0, 0, 5);
  CHECK(isinf(e.diff) && e.diff < 0);
  CHECK(isinf(e.lo) && e.lo < 0);
  /* 0 of 200: the score is below 1 - 0.05^(1/200) = 0.014867 at 95%. */
  e = cf_elo_from_wdl(0, 0, 200);
  CHECK_NEAR(e.hi, cf_elo_of_score(1.0 - pow(0.05, 1.0 / 200)), 1e-9);
  CHECK(e.hi > -740 && e.hi < -720);
  e = cf_elo_from_wdl(200, 0, 0);
  CHECK(isinf(e.hi) && e.hi > 0);
  CHECK(e.lo > 720 && e.lo < 740);
  /* 2 of 2 drawn: no spread, yet not certain. Decisive share < 1 - 0.05^(1/2)
   * = 0.7764 at 95%, so the score lies in 0.5 -+ 0.3882. */
  e = cf_elo_from_wdl(0, 2, 0);
  CHECK_NEAR(e.diff, 0, 1e-9);
  CHECK_NEAR(e.hi, cf_elo_of_score(0.5 + 0.5 * (1.0 - sqrt(0.05))), 1e-9);
  CHECK_NEAR(e.lo, -e.hi, 1e-6);
  CHECK(e.hi > 300);
  e = cf_elo_from_wdl(0, 200, 0); /* more draws, narrower */
  CHECK(e.hi > 0 && e.hi < 30 && e.lo < 0);
  e = cf_elo_from_wdl(6, 2, 2); /* score 0.7 */
  CHECK_NEAR(e.diff, cf_elo_of_score(0.7), 1e-9);
  CHECK(e.lo < e.diff && e.diff < e.hi);
}

static void test_openings(cf_test *t) {
  cf_openings o;
  cf_error err = {0};
  if (!CHECK(cf_openings_load(CF_MATCH_OPENINGS, &o, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  CHECK(o.count >= 100); /* a 200-game match never repeats an opening with the same colours */
  for (int i = 0; i < o.count; i++) {
    CHECK(o.names[i][0] != 0);
    for (int j = 0; j < i; j++) CHECK(strcmp(o.lines[i], o.lines[j]) != 0);
  }
  CHECK_STR_EQ(o.lines[0], "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6");
  CHECK_STR_EQ(o.names[0], "Ruy Lopez, Morphy");
  cf_openings_free(&o);
  char path[] = "/tmp/cf_test_openings_XXXXXX";
  int fd = mkstemp(path);
  if (!CHECK(fd >= 0)) return;
  const char text[] = "# comment\n\ne2e4 e7e5\nd2d4 d7d5 d4d6 # bad\n";
  CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
  close(fd);
  CHECK(cf_openings_load(path, &o, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, ":4");
  CHECK_STR_CONTAINS(err.msg, "d4d6");
  unlink(path);
  CHECK(cf_openings_load("/nonexistent/openings.txt", &o, &err) == CF_ERR_IO);
}

/* LLRs from tests/match/sprt_reference.py, which reaches them another way
 * (the concave dual, golden-section search, 60-digit decimals). */
static const struct {
  double counts[CF_SPRT_OUTCOMES], elo0, elo1, llr;
} sprt_cases[] = {
    {{10, 20, 40, 20, 10}, 0, 10, -0.137899221755},
    {{5, 30, 60, 40, 15}, 0, 5, 0.818814265774},
    {{12, 25, 50, 22, 9}, -5, 5, -0.466551509203},
    {{0, 3, 10, 4, 1}, 0, 10, 0.258758427855},
    {{40, 80, 150, 90, 60}, 0, 10, 1.615087819020},
    {{1, 0, 0, 0, 0}, 0, 10, -0.029255446370},
    {{0, 0, 7, 0, 0}, -10, 10, 0.000000000000},
    {{300, 900, 1500, 1000, 350}, 0, 2, 1.830612442041},
};

static void test_sprt_llr(cf_test *t) {
  for (size_t i = 0; i < sizeof sprt_cases / sizeof sprt_cases[0]; i++)
    CHECK_NEAR(cf_sprt_llr_of_counts(sprt_cases[i].counts, sprt_cases[i].elo0, sprt_cases[i].elo1),
               sprt_cases[i].llr, 1e-7);
  /* Many pairs, close hypotheses: the LLR approaches the normal
   * approximation N (s1 - s0) (2 m - s0 - s1) / (2 var) of the pair score
   * per game (m its mean, var its variance). */
  double c[CF_SPRT_OUTCOMES] = {3000, 9000, 15000, 10000, 3500}, n = 0, m = 0, v = 0;
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) n += c[i], m += c[i] * i / 4.0;
  m /= n;
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) v += c[i] * (i / 4.0 - m) * (i / 4.0 - m);
  v /= n;
  double s0 = 0.5, s1 = 1.0 / (1.0 + pow(10.0, -2.0 / 400.0));
  double approx = n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v);
  CHECK_NEAR(cf_sprt_llr_of_counts(c, 0, 2), approx, 0.01 * fabs(approx));
}

static void test_sprt_pairs(cf_test *t) {
  cf_sprt s;
  char why[128];
  if (!CHECK(cf_sprt_parse("0,10", &s, why, sizeof why))) return;
  CHECK_NEAR(s.alpha, 0.05, 0);
  CHECK_NEAR(s.lower, log(0.05 / 0.95), 1e-12);
  CHECK_NEAR(s.upper, log(0.95 / 0.05), 1e-12);
  if (!CHECK(cf_sprt_begin(&s, 9))) return;
  CHECK_NEAR(cf_sprt_llr(&s), 0, 0);
  /* Games finish out of order: a pair counts once both of its games have. */
  CHECK(!cf_sprt_add_game(&s, 1, 2)); /* pair 0, second game won */
  CHECK(!cf_sprt_add_game(&s, 2, 1)); /* pair 1, first game drawn */
  CHECK(cf_sprt_add_game(&s, 0, 1));  /* pair 0 done: 1.5 points */
  CHECK(cf_sprt_add_game(&s, 3, 0));  /* pair 1 done: 0.5 points */
  CHECK(!cf_sprt_add_game(&s, 8, 2)); /* the odd last game never pairs */
  CHECK(!cf_sprt_add_game(&s, 10, 2)); /* beyond the match: refused */
  CHECK_INT_EQ(s.pairs[3], 1);
  CHECK_INT_EQ(s.pairs[1], 1);
  double c[CF_SPRT_OUTCOMES] = {0, 1, 0, 1, 0};
  CHECK_NEAR(cf_sprt_llr(&s), cf_sprt_llr_of_counts(c, 0, 10), 0);
  CHECK(cf_sprt_verdict_of(&s) == CF_SPRT_CONTINUE);
  for (int i = 0; i < 400; i++) s.pairs[4]++; /* a landslide: H1 */
  CHECK(cf_sprt_verdict_of(&s) == CF_SPRT_H1);
  memset(s.pairs, 0, sizeof s.pairs);
  s.pairs[2] = 2000; /* even pairs by the thousand: not elo1, H0 */
  CHECK(cf_sprt_verdict_of(&s) == CF_SPRT_H0);
  cf_sprt_end(&s);

  CHECK(cf_sprt_parse("-1.5,3.5,0.1,0.2", &s, why, sizeof why));
  CHECK_NEAR(s.elo0, -1.5, 0);
  CHECK_NEAR(s.beta, 0.2, 0);
  static const char *const bad[] = {"10,0", "5,5", "0,10,0.5,0.05", "0,10,0.05,0", "0,10,0.05",
                                    "0", "", "a,b", "0,10,", "0,10,0.05,0.05,1", "0,1e9", "0,10x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    why[0] = 0;
    CHECK(!cf_sprt_parse(bad[i], &s, why, sizeof why));
    CHECK(why[0] != 0);
  }
  CHECK(!cf_sprt_parse("10,0", &s, why, sizeof why));
  CHECK_STR_CONTAINS(why, "elo0");
  CHECK(!cf_sprt_parse("0,10,0.6,0.05", &s, why, sizeof why));
  CHECK_STR_CONTAINS(why, "alpha");
}

CF_TEST_MAIN(test_san, test_elo, test_openings, test_sprt_llr, test_sprt_pairs)
