/* cf_policy_move.c: mapping a real-board move into the policy's frame.
 * Lc0's own move mapping mishandles the four transforms that contain the
 * transpose; this one applies exactly the plane transform to both squares. */
#include "policy_head/cf_policy_move.h"

int cf_square_transform(int sq, int transform) {
  int f = sq % 8, r = sq / 8;
  if (transform & CF_TRANSFORM_FLIP) f = 7 - f;
  if (transform & CF_TRANSFORM_MIRROR) r = 7 - r;
  if (transform & CF_TRANSFORM_TRANSPOSE) {
    int nf = 7 - r, nr = 7 - f;
    f = nf;
    r = nr;
  }
  return r * 8 + f;
}

int cf_policy_square(int sq, bool black_to_move, int transform) {
  if (black_to_move) sq ^= 56; /* r -> 7 - r */
  return cf_square_transform(sq, transform);
}

int cf_policy_move_attention(cf_policy_move m, bool black_to_move, int transform) {
  if (m.from > 63 || m.to > 63 || m.promo > CF_PROMO_KNIGHT) return -1;
  return cf_policy_attention_index(cf_policy_square(m.from, black_to_move, transform),
                                   cf_policy_square(m.to, black_to_move, transform),
                                   (cf_promo)m.promo);
}

int cf_policy_move_index(cf_policy_move m, bool black_to_move, int transform) {
  return cf_policy_1858_of_attention(cf_policy_move_attention(m, black_to_move, transform));
}
