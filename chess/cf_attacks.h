/* cf_attacks.h: attack sets for every piece, and square-geometry tables.
 *
 * Sliding attacks use "fancy" magic bitboards: for a square, the blockers on
 * its relevant rays are multiplied by a magic number and the top bits index
 * a precomputed attack set, so a rook or bishop lookup is an AND, a multiply,
 * a shift and a load. The tables (about 0.9 MB) are built once at run time by
 * cf_chess_init(), which is thread-safe and idempotent and is called by every
 * function that creates a position, so users of positions never call it. Code
 * that wants attack sets without a position calls cf_chess_init() first.
 *
 * The tables live in one struct written only inside cf_chess_init (under
 * pthread_once) and read-only afterwards; the lookups are inline because the
 * move generator calls them in its innermost loops. */
#ifndef CF_ATTACKS_H
#define CF_ATTACKS_H

#include "chess/cf_bitboard.h"

typedef struct cf_magic {
  cf_bb mask;          /* relevant blocker squares (ray squares minus the board edge) */
  cf_bb magic;         /* multiplier mapping each blocker subset to a unique slot */
  const cf_bb *table;  /* 1 << (64 - shift) attack sets, inside the shared table */
  unsigned shift;
} cf_magic;

typedef struct cf_attack_tables {
  cf_bb pawn[CF_COLOR_COUNT][64]; /* squares a pawn of that colour on s attacks */
  cf_bb knight[64];
  cf_bb king[64];
  cf_bb between[64][64]; /* squares strictly between two aligned squares, else 0 */
  cf_bb line[64][64];    /* the whole rank/file/diagonal through two aligned squares, else 0 */
  cf_magic rook[64];
  cf_magic bishop[64];
} cf_attack_tables;

/* Builds the attack and Zobrist tables once per process; safe to call from
 * any thread, any number of times (pthread_once). */
void cf_chess_init(void);

/* The tables; valid after cf_chess_init(). Treat as read-only. */
extern cf_attack_tables cf_attacks;

static inline cf_bb cf_attacks_rook(int s, cf_bb occupied) {
  const cf_magic *m = &cf_attacks.rook[s];
  return m->table[((occupied & m->mask) * m->magic) >> m->shift];
}
static inline cf_bb cf_attacks_bishop(int s, cf_bb occupied) {
  const cf_magic *m = &cf_attacks.bishop[s];
  return m->table[((occupied & m->mask) * m->magic) >> m->shift];
}
static inline cf_bb cf_attacks_queen(int s, cf_bb occupied) {
  return cf_attacks_rook(s, occupied) | cf_attacks_bishop(s, occupied);
}
static inline cf_bb cf_attacks_knight(int s) { return cf_attacks.knight[s]; }
static inline cf_bb cf_attacks_king(int s) { return cf_attacks.king[s]; }
static inline cf_bb cf_attacks_pawn(cf_color c, int s) { return cf_attacks.pawn[c][s]; }
static inline cf_bb cf_between(int a, int b) { return cf_attacks.between[a][b]; }
static inline cf_bb cf_line(int a, int b) { return cf_attacks.line[a][b]; }

/* Slow ray walk used to build and to test the magic tables: bishop
 * directions when `bishop` is nonzero, else rook directions. Needs no
 * tables, so it works before cf_chess_init. */
cf_bb cf_attacks_slow(int s, cf_bb occupied, int bishop);

#endif /* CF_ATTACKS_H */
