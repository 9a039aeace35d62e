/* cf_policy_move.h: a legal move as the policy head sees it, the canonical
 * square transforms, and move -> policy slot (NETWORK.md sections 3, 6). */
#ifndef CF_POLICY_MOVE_H
#define CF_POLICY_MOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "policy_head/cf_policy_map.h"

/* A move in real board coordinates (a1 = 0, h8 = 63). Castling is written
 * king takes own rook (e1g1 -> from e1, to h1), as Lc0's policy map has it. */
typedef struct cf_policy_move {
  uint8_t from, to;
  uint8_t promo; /* cf_promo */
} cf_policy_move;

/* Canonical transform bits, applied in this order. */
#define CF_TRANSFORM_FLIP 1      /* files: f -> 7 - f */
#define CF_TRANSFORM_MIRROR 2    /* ranks: r -> 7 - r */
#define CF_TRANSFORM_TRANSPOSE 4 /* anti-diagonal a8-h1: (f, r) -> (7 - r, 7 - f) */

/* Square sq under transform (flip, then mirror, then transpose). */
int cf_square_transform(int sq, int transform);

/* sq in the mover's frame (ranks mirrored when black is to move), then
 * transformed: the frame of the planes and of the policy outputs. */
int cf_policy_square(int sq, bool black_to_move, int transform);

/* Attention slot (0..4287) of a legal move, or -1. */
int cf_policy_move_attention(cf_policy_move m, bool black_to_move, int transform);

/* Index into Lc0's 1858 policy vector, or -1. */
int cf_policy_move_index(cf_policy_move m, bool black_to_move, int transform);

#endif /* CF_POLICY_MOVE_H */
