/* retro_solver.c: see retro_solver.h. */
#include "retro_solver.h"

#include <stdlib.h>
#include <string.h>

/* Built field by field (no FEN round trip): the solver sets up every
 * index of three tables, and the tests again. */
static void put(cf_position *pos, cf_color c, cf_piece_type type, int s) {
  pos->pieces[c][type] |= cf_bb_of(s);
  pos->occupied[c] |= cf_bb_of(s);
  pos->board[s] = cf_piece_make(c, type);
}

int retro_position(cf_piece_type piece, int i, cf_position *pos) {
  int side = i & 1, x = (i >> 1) & 63, bk = (i >> 7) & 63, wk = i >> 13;
  if (wk == bk || wk == x || bk == x) return 0;
  if (piece == CF_PAWN && (cf_square_rank(x) == 0 || cf_square_rank(x) == 7)) return 0;
  cf_chess_init();
  memset(pos, 0, sizeof *pos);
  put(pos, CF_WHITE, CF_KING, wk);
  put(pos, CF_BLACK, CF_KING, bk);
  put(pos, CF_WHITE, piece, x);
  pos->side = side ? CF_BLACK : CF_WHITE;
  pos->ep_square = pos->double_step_square = CF_NO_SQUARE;
  for (int r = 0; r < 4; r++) pos->castle_rook[r] = CF_NO_SQUARE;
  pos->fullmove = 1;
  pos->key = cf_position_compute_key(pos);
  /* The side not to move may not be in check. */
  cf_color other = side ? CF_WHITE : CF_BLACK;
  return cf_position_attackers(pos, cf_position_king(pos, other), pos->side, cf_position_all(pos)) == 0;
}

static int index_of(const cf_position *pos) {
  cf_bb others = cf_position_all(pos) & ~(pos->pieces[CF_WHITE][CF_KING] | pos->pieces[CF_BLACK][CF_KING]);
  return retro_index(cf_position_king(pos, CF_WHITE), cf_position_king(pos, CF_BLACK),
                     cf_bb_first(others), pos->side == CF_BLACK);
}

void retro_after(const retro_table *t, const retro_table *const promo[CF_PIECE_TYPE_COUNT],
                 const cf_position *pos, cf_move m, int *value, int *dist) {
  cf_position next = *pos;
  cf_undo undo;
  cf_position_make(&next, m, &undo);
  *dist = 0;
  if (cf_bb_count(cf_position_all(&next)) == 2) { /* X was taken: bare kings */
    *value = RETRO_DRAW;
    return;
  }
  const retro_table *in = t;
  if (cf_move_kind_of(m) == CF_MOVE_PROMOTION) {
    in = promo[cf_move_promotion(m)];
    if (!in) { /* bishop or knight: no mate can be forced */
      *value = RETRO_DRAW;
      return;
    }
  }
  int i = index_of(&next);
  *value = in->value[i], *dist = in->dist[i];
}

/* Successors of every legal position, flattened: succ[first[i] .. first[i+1]). */
typedef struct succ_list {
  int *first;
  int32_t *to; /* index in the same table, or -1 - (packed value/dist) when settled elsewhere */
} succ_list;

static int32_t settled(int value, int dist) { return -1 - ((value + 2) * 256 + dist); }

void retro_solve(retro_table *t, const retro_table *const promo[CF_PIECE_TYPE_COUNT]) {
  succ_list s;
  s.first = malloc((RETRO_SIZE + 1) * sizeof *s.first);
  size_t cap = (size_t)RETRO_SIZE * 8, used = 0;
  s.to = malloc(cap * sizeof *s.to);
  for (int i = 0; i < RETRO_SIZE; i++) {
    s.first[i] = (int)used;
    t->value[i] = RETRO_ILLEGAL, t->dist[i] = 0;
    cf_position pos;
    if (!retro_position(t->piece, i, &pos)) continue;
    t->value[i] = 99; /* unknown yet */
    cf_movelist moves;
    cf_generate_legal(&pos, &moves);
    if (moves.count == 0) t->value[i] = cf_position_in_check(&pos) ? RETRO_LOSS : RETRO_DRAW;
    if (used + (size_t)moves.count > cap) s.to = realloc(s.to, (cap *= 2) * sizeof *s.to);
    for (int k = 0; k < moves.count; k++) {
      cf_position next = pos;
      cf_undo undo;
      cf_position_make(&next, moves.moves[k], &undo);
      int promoted = cf_move_kind_of(moves.moves[k]) == CF_MOVE_PROMOTION;
      if (cf_bb_count(cf_position_all(&next)) == 2 || promoted) {
        int v, d;
        retro_after(t, promo, &pos, moves.moves[k], &v, &d);
        s.to[used++] = settled(v, d);
      } else {
        s.to[used++] = index_of(&next);
      }
    }
  }
  s.first[RETRO_SIZE] = (int)used;
  /* Pass k settles the positions whose distance is k. */
  for (int k = 1, changed = 1; k < 255 && (changed || k < 64); k++) {
    changed = 0;
    for (int i = 0; i < RETRO_SIZE; i++) {
      if (t->value[i] != 99) continue;
      int win = 0, all_won = 1, longest = -1;
      for (int e = s.first[i]; e < s.first[i + 1]; e++) {
        int v, d;
        if (s.to[e] < 0) {
          int packed = -1 - s.to[e];
          v = packed / 256 - 2, d = packed % 256;
        } else {
          v = t->value[s.to[e]], d = t->dist[s.to[e]];
          if (v != 99 && d >= k) v = 99; /* settled in this pass: not yet visible */
        }
        if (v == RETRO_LOSS && d == k - 1) win = 1;
        if (v != RETRO_WIN) all_won = 0;
        else if (d > longest) longest = d;
      }
      if (win || (all_won && longest == k - 1)) {
        t->value[i] = win ? RETRO_WIN : RETRO_LOSS;
        t->dist[i] = (uint8_t)k;
        changed = 1;
      }
    }
  }
  for (int i = 0; i < RETRO_SIZE; i++)
    if (t->value[i] == 99) t->value[i] = RETRO_DRAW;
  free(s.first);
  free(s.to);
}
