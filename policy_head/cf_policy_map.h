/* cf_policy_map.h: Lc0's 1858-entry policy order and the attention head's
 * 4288 outputs (NETWORK.md section 6).
 *
 * The attention policy scores 64*64 from-to pairs (index f*64 + t) plus
 * 8*24 promotion slots (index 4096 + i*24 + j*3 + r: from file i on rank 7,
 * to file j on rank 8, r = queen, rook, bishop). Lc0's 1858 order lists,
 * for each from square a1..h8, every queen-line or knight destination in
 * square order, then the 66 queen/rook/bishop promotions (a knight
 * promotion doubles as the plain a7a8-style entry). All squares are in the
 * mover's frame after the canonical transform. */
#ifndef CF_POLICY_MAP_H
#define CF_POLICY_MAP_H

#define CF_POLICY_1858 1858
#define CF_POLICY_4288 4288

/* Promotion piece of a move; the values also pick o[r] rows of the
 * promotion offsets (queen 0, rook 1, bishop 2, knight 3) plus one. */
typedef enum cf_promo {
  CF_PROMO_NONE = 0,
  CF_PROMO_QUEEN = 1,
  CF_PROMO_ROOK = 2,
  CF_PROMO_BISHOP = 3,
  CF_PROMO_KNIGHT = 4,
} cf_promo;

/* Attention index (0..4287) of from -> to with promotion promo, all in the
 * mover's transformed frame; -1 if no such slot (a knight promotion maps to
 * its plain from-to slot). */
int cf_policy_attention_index(int from, int to, cf_promo promo);

/* 1858 index of an attention index, or -1 when the slot is not a move in
 * Lc0's list (e.g. a1a1 or a1b3... knight-less pairs). */
int cf_policy_1858_of_attention(int attention_index);

/* 1858 index of from -> to (+ promo) in the mover's transformed frame, or -1. */
int cf_policy_index(int from, int to, cf_promo promo);

/* The UCI text of 1858 entry i ("a1b1", "a7a8q"); buf holds 6 bytes.
 * Returns buf, or NULL if i is out of range. */
const char *cf_policy_index_uci(int i, char buf[6]);

#endif /* CF_POLICY_MAP_H */
