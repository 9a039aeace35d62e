/* test_perft_deep.c (suite 'slow'): every published count of the six
 * standard positions up to perft 6 / about 700 million nodes (a few
 * seconds in a release build). */
#include <inttypes.h>

#include "chess/cf_fen.h"
#include "chess/cf_perft.h"
#include "tests/cf_test.h"
#include "tests/chess/perft_positions.h"

static void run_positions(cf_test *t, int first, int last) {
  for (int i = first; i <= last && i < CPW_POSITION_COUNT; i++) {
    const perft_case *c = &cpw_positions[i];
    cf_position pos;
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, c->fen, NULL), CF_OK)) continue;
    for (int d = 1; d <= c->depths; d++) {
      uint64_t nodes = cf_perft(&pos, d);
      if (!CHECK_INT_EQ(nodes, c->counts[d - 1])) fprintf(stderr, "  %s depth %d\n", c->name, d);
    }
  }
}

/* Two halves, so each can be run alone by name. */
static void test_perft_deep_first_half(cf_test *t) { run_positions(t, 0, 2); }
static void test_perft_deep_second_half(cf_test *t) { run_positions(t, 3, CPW_POSITION_COUNT - 1); }

CF_TEST_MAIN(test_perft_deep_first_half, test_perft_deep_second_half)
