/* cf_pack_format.h: the packed training-record file that `cformer pack-data`
 * writes and training/packed.py reads (numpy memmap, so every field sits at
 * a fixed offset; all numbers little-endian).
 *
 * A file is a 64-byte header followed by `count` records of
 * CF_PACK_RECORD_SIZE bytes:
 *
 *   header: magic "CFPACK01" (8 bytes), uint32 version (1), uint32
 *           record_size (1232), uint32 input_format, uint32 reserved (0),
 *           uint64 count, then zeros up to 64 bytes.
 *
 * A record is one labelled position, everything already in the network's
 * frame (side to move, canonical transform applied), so the trainer does no
 * chess:
 *
 *   planes       the 112 input planes as bit masks (bit t = token t); planes
 *                0..103 have value 1 where set, 104..111 the aux values.
 *   legal        1858 bits (30 words): bit i set when policy entry i is a
 *                legal move.
 *   policy_*     the soft policy target: up to 4 Stockfish MultiPV moves as
 *                1858 indices (0xFFFF = unused) with probabilities summing
 *                to 1 (softmax of centipawns / --policy-temp, see
 *                pack_data_cmd.c) and the raw scores.
 *   best_index   Stockfish's best move (1858 index).
 *   sf_wdl       Stockfish's win/draw/loss for the side to move (sum 1).
 *   result       the game's result for the side to move: 1 win, 0 draw, -1
 *                loss, CF_PACK_RESULT_UNKNOWN when the game was cut off.
 */
#ifndef CF_PACK_FORMAT_H
#define CF_PACK_FORMAT_H

#include <stdint.h>

#define CF_PACK_MAGIC "CFPACK01"
#define CF_PACK_VERSION 1
#define CF_PACK_HEADER_SIZE 64
#define CF_PACK_PLANES 112
#define CF_PACK_AUX_BASE 104
#define CF_PACK_POLICY 1858
#define CF_PACK_LEGAL_WORDS 30 /* ceil(1858 / 64) */
#define CF_PACK_MAX_PV 4
#define CF_PACK_NO_MOVE 0xFFFF
#define CF_PACK_RESULT_UNKNOWN (-128)

typedef struct cf_pack_record {
  uint64_t planes[CF_PACK_PLANES];          /* offset 0 */
  uint64_t legal[CF_PACK_LEGAL_WORDS];      /* 896 */
  float aux_value[8];                       /* 1136: values of planes 104..111 */
  float policy_prob[CF_PACK_MAX_PV];        /* 1168 */
  float sf_wdl[3];                          /* 1184 */
  int32_t policy_cp[CF_PACK_MAX_PV];        /* 1196: centipawns, mates +-(100000 - plies) */
  uint32_t game_id;                         /* 1212 */
  uint16_t policy_index[CF_PACK_MAX_PV];    /* 1216 */
  uint16_t best_index;                      /* 1224 */
  uint16_t ply;                             /* 1226 */
  int8_t result;                            /* 1228 */
  uint8_t transform;                        /* 1229: CF_TRANSFORM_* bits */
  uint8_t black_to_move;                    /* 1230 */
  uint8_t n_pv;                             /* 1231 */
} cf_pack_record;

#define CF_PACK_RECORD_SIZE 1232

_Static_assert(sizeof(cf_pack_record) == CF_PACK_RECORD_SIZE, "cf_pack_record has padding");

#endif /* CF_PACK_FORMAT_H */
