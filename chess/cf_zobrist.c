/* cf_zobrist.c: fills the Zobrist keys from a fixed seed, so keys (and any
 * hash printed in a log) are the same on every run and machine. */
#include "chess/cf_zobrist.h"

#include "chess/cf_tables_build.h"

cf_zobrist_keys cf_zobrist;

/* splitmix64: every output of a fixed-seed sequence is well mixed, which is
 * all Zobrist keys need. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void cf_zobrist_build(void) {
  uint64_t state = 0x636652756C657321ULL; /* "cfRules!" */
  for (int p = 0; p < CF_PIECE_CODE_COUNT; p++)
    for (int s = 0; s < 64; s++)
      /* Codes that are not pieces (0, 7, 8, 15) keep key 0 so a stray empty
       * square XORs nothing. */
      cf_zobrist.piece[p][s] = (p & 7) >= 1 && (p & 7) <= 6 ? splitmix64(&state) : 0;
  cf_zobrist.side = splitmix64(&state);
  /* One key per combination of rights: rights change rarely, so a 16-entry
   * table beats XORing one key per changed right. */
  cf_zobrist.castling[0] = 0;
  for (int c = 1; c < 16; c++) cf_zobrist.castling[c] = splitmix64(&state);
  for (int f = 0; f < 8; f++) cf_zobrist.ep_file[f] = splitmix64(&state);
}
