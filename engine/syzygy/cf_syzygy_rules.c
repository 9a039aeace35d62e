/* cf_syzygy_rules.c: which positions may be probed (Lc0's conditions).
 *
 * The tables know nothing of castling, so a position with castling rights
 * is never probed. In the tree, Lc0 probes only where the rule-50 count is
 * zero: the WDL value ignores the fifty-move rule's clock, and right after a
 * capture or pawn move it is exact (a cursed win or blessed loss is then a
 * draw, as the search scores it). */
#include "chess/cf_bitboard.h"
#include "engine/syzygy/cf_syzygy.h"

int cf_syzygy_tree_probeable(const cf_position *pos) {
  int max = cf_syzygy_max_pieces();
  return max > 0 && pos->castling == 0 && pos->rule50 == 0 &&
         cf_bb_count(cf_position_all(pos)) <= max;
}
