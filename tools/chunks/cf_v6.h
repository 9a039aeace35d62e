/* cf_v6.h: one Lc0 training record, version 6 (V6TrainingData, 8,356
 * bytes little-endian, no padding), the unit of Lc0's training chunks that
 * lczero-training reads. The fields are kept here as plain C values and
 * packed to / unpacked from the exact byte layout by hand, so the file
 * format never depends on a compiler's struct packing. docs/SELFPLAY.md
 * says what each field holds when cformer writes it. */
#ifndef CF_V6_H
#define CF_V6_H

#include <stdbool.h>
#include <stdint.h>

#define CF_V6_BYTES 8356
#define CF_V6_VERSION 6
#define CF_V6_POLICY 1858
#define CF_V6_PLANES 104 /* 8 history boards of 13 planes; the aux planes are the bytes below */

/* invariance_info bits. */
#define CF_V6_FLIP 1u
#define CF_V6_MIRROR 2u
#define CF_V6_TRANSPOSE 4u
#define CF_V6_BEST_PROVEN (1u << 3)
#define CF_V6_MAX_LENGTH (1u << 4)
#define CF_V6_ADJUDICATED (1u << 5)
#define CF_V6_BLACK_TO_MOVE (1u << 7) /* canonical input formats only */

typedef struct cf_v6 {
  uint32_t version;
  uint32_t input_format;
  float probabilities[CF_V6_POLICY]; /* root visit shares; -1 for a move that is not legal */
  uint64_t planes[CF_V6_PLANES];     /* the input masks with each byte's bits reversed, as Lc0 */
  uint8_t castling_us_ooo, castling_us_oo, castling_them_ooo, castling_them_oo;
  uint8_t side_to_move_or_enpassant;
  uint8_t rule50_count;
  uint8_t invariance_info;
  uint8_t dummy;
  float root_q, best_q, root_d, best_d, root_m, best_m;
  float plies_left;
  float result_q, result_d;
  float played_q, played_d, played_m;
  float orig_q, orig_d, orig_m;
  uint32_t visits;
  uint16_t played_idx, best_idx;
  float policy_kld;
  float q_st;
} cf_v6;

void cf_v6_pack(const cf_v6 *r, uint8_t out[CF_V6_BYTES]);
void cf_v6_unpack(const uint8_t in[CF_V6_BYTES], cf_v6 *r);

/* Whether the record's side to move is black (by invariance_info for the
 * canonical formats, else by side_to_move_or_enpassant, as Lc0 reads it). */
bool cf_v6_black_to_move(const cf_v6 *r);

/* -1, 0, +1: the game's result for White recorded in r (result_q is from
 * the side to move); 2 when result_q is not a whole result. */
int cf_v6_white_result(const cf_v6 *r);

#endif /* CF_V6_H */
