/* cf_pos_table.c: Lc0's PE_MAP positional table, generated from its rule
 * rather than stored.
 *
 * Lc0 ships the table as 64x64 literal floats (kPosEncoding). Row s is a
 * map of the board seen from square s: -1 on s itself, 1 on every square a
 * queen or a knight standing on s would reach on an empty board, 0 elsewhere.
 * That rule reproduces every entry, which the lc0-map-classic parity net
 * (176 inputs, Lc0 truth) checks end to end. */
#include "encoder/cf_pos_table.h"

#include <stdlib.h>

float cf_pos_table_at(int s, int c) {
  if (s == c) return -1.0f;
  int df = abs(s % 8 - c % 8), dr = abs(s / 8 - c / 8);
  int queen = df == 0 || dr == 0 || df == dr;
  int knight = (df == 1 && dr == 2) || (df == 2 && dr == 1);
  return queen || knight ? 1.0f : 0.0f;
}
