/* test_attacks.c: the magic lookups and geometry tables against the slow
 * ray walk they are built from. */
#include "chess/cf_attacks.h"
#include "tests/cf_test.h"

static void test_sliders_match_ray_walk(cf_test *t) {
  uint64_t state = 0x0123456789ABCDEFULL;
  int mismatches = 0;
  cf_chess_init();
  for (int s = 0; s < 64; s++) {
    for (int i = 0; i < 2000; i++) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      cf_bb occ = state & (state >> 3); /* sparse-ish boards, like real ones */
      mismatches += cf_attacks_rook(s, occ) != cf_attacks_slow(s, occ, 0);
      mismatches += cf_attacks_bishop(s, occ) != cf_attacks_slow(s, occ, 1);
    }
    mismatches += cf_attacks_queen(s, 0) != (cf_attacks_slow(s, 0, 0) | cf_attacks_slow(s, 0, 1));
  }
  CHECK_INT_EQ(mismatches, 0);
}

static void test_leapers_and_lines(cf_test *t) {
  cf_chess_init();
  CHECK_INT_EQ(cf_bb_count(cf_attacks_knight(0)), 2);             /* a1: b3, c2 */
  CHECK_INT_EQ(cf_bb_count(cf_attacks_knight(cf_square(3, 3))), 8); /* d4 */
  CHECK_INT_EQ(cf_bb_count(cf_attacks_king(63)), 3);
  CHECK_INT_EQ(cf_attacks_pawn(CF_WHITE, cf_square(4, 1)), cf_bb_of(cf_square(3, 2)) | cf_bb_of(cf_square(5, 2)));
  CHECK_INT_EQ(cf_attacks_pawn(CF_BLACK, cf_square(0, 6)), cf_bb_of(cf_square(1, 5)));
  CHECK_INT_EQ(cf_between(0, 7), 0x7EULL);                        /* b1..g1 */
  CHECK_INT_EQ(cf_between(0, 63), 0x0040201008040200ULL);         /* b2..g7 */
  CHECK_INT_EQ(cf_between(0, 10), 0);                             /* a1, c2: not aligned */
  CHECK_INT_EQ(cf_line(cf_square(1, 0), cf_square(1, 5)), CF_BB_FILE(1));
  CHECK_INT_EQ(cf_line(0, 9), 0x8040201008040201ULL);
  CHECK_INT_EQ(cf_line(0, 0), 0);
}

CF_TEST_MAIN(test_sliders_match_ray_walk, test_leapers_and_lines)
