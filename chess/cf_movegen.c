/* cf_movegen.c: legal moves by masks.
 *
 * Order of work: king moves (each target tested with our king lifted off
 * the board, so it cannot hide behind itself from a slider); then, unless in
 * double check, every other piece restricted to `target` (when in check, the
 * checker's square and the squares between it and the king) and, if
 * pinned, to the line through king and pinner. En passant, whose legality
 * depends on two pawns leaving a rank at once, gets a full occupancy test
 * (cf_position_ep_is_legal); castling tests its path squares. */
#include "chess/cf_movegen.h"

#include "chess/cf_attacks.h"

static inline cf_move *add_targets(cf_move *out, int from, cf_bb targets) {
  while (targets) *out++ = cf_move_make(from, cf_bb_pop(&targets));
  return out;
}

/* Queen first: generators of search move orderings will want it first. */
static inline cf_move *add_promotions(cf_move *out, int from, int to) {
  *out++ = cf_move_make_promotion(from, to, CF_QUEEN);
  *out++ = cf_move_make_promotion(from, to, CF_ROOK);
  *out++ = cf_move_make_promotion(from, to, CF_BISHOP);
  *out++ = cf_move_make_promotion(from, to, CF_KNIGHT);
  return out;
}

/* Adds pawn moves to every square in `to_set`, each coming from to - delta. */
static inline cf_move *add_pawn_set(cf_move *out, cf_bb to_set, int delta, int promotes) {
  while (to_set) {
    int to = cf_bb_pop(&to_set);
    if (promotes)
      out = add_promotions(out, to - delta, to);
    else
      *out++ = cf_move_make(to - delta, to);
  }
  return out;
}

static cf_move *gen_pawns(const cf_position *pos, cf_move *out, cf_bb target, cf_bb pinned, int ksq) {
  cf_color us = pos->side, them = (cf_color)(us ^ 1);
  cf_bb theirs = pos->occupied[them], empty = ~cf_position_all(pos);
  cf_bb pawns = pos->pieces[us][CF_PAWN];
  cf_bb last_from = us == CF_WHITE ? CF_BB_RANK(6) : CF_BB_RANK(1); /* pawns about to promote */
  cf_bb double_mid = us == CF_WHITE ? CF_BB_RANK(2) : CF_BB_RANK(5); /* after one step from home */
  int up = us == CF_WHITE ? 8 : -8;

  /* Unpinned pawns in bulk: shifting the whole set gives every target at
   * once. West/east captures are masked by file so they cannot wrap. */
  cf_bb free = pawns & ~pinned;
  for (int promotes = 0; promotes <= 1; promotes++) {
    cf_bb set = free & (promotes ? last_from : ~last_from);
    if (!set) continue;
    cf_bb single = cf_bb_forward(set, us) & empty;
    out = add_pawn_set(out, single & target, up, promotes);
    if (!promotes) out = add_pawn_set(out, cf_bb_forward(single & double_mid, us) & empty & target, 2 * up, 0);
    cf_bb west = cf_bb_forward(set & ~CF_BB_FILE_A, us) >> 1;
    cf_bb east = cf_bb_forward(set & ~CF_BB_FILE_H, us) << 1;
    out = add_pawn_set(out, west & theirs & target, up - 1, promotes);
    out = add_pawn_set(out, east & theirs & target, up + 1, promotes);
  }

  /* Pinned pawns one by one (rare): they may only move along the pin line. */
  cf_bb stuck = pawns & pinned;
  while (stuck) {
    int from = cf_bb_pop(&stuck);
    cf_bb along = cf_line(ksq, from) & target;
    int promotes = cf_bb_has(last_from, from);
    cf_bb moves = cf_attacks_pawn(us, from) & theirs & along;
    int one = from + up;
    if (cf_bb_has(empty, one)) {
      moves |= cf_bb_of(one) & along;
      if (cf_bb_has(double_mid, one) && cf_bb_has(empty & along, one + up)) moves |= cf_bb_of(one + up);
    }
    while (moves) {
      int to = cf_bb_pop(&moves);
      if (promotes)
        out = add_promotions(out, from, to);
      else
        *out++ = cf_move_make(from, to);
    }
  }

  if (pos->ep_square != CF_NO_SQUARE) {
    cf_bb capturers = cf_attacks_pawn(them, pos->ep_square) & pawns;
    while (capturers) {
      int from = cf_bb_pop(&capturers);
      if (cf_position_ep_is_legal(pos, from))
        *out++ = cf_move_make_kind(from, pos->ep_square, CF_MOVE_EN_PASSANT);
    }
  }
  return out;
}

static cf_move *gen_castling(const cf_position *pos, cf_move *out, int ksq) {
  cf_color us = pos->side, them = (cf_color)(us ^ 1);
  cf_bb occupied = cf_position_all(pos);
  for (int queenside = 0; queenside <= 1; queenside++) {
    int index = cf_castle_index(us, queenside);
    if (!(pos->castling >> index & 1)) continue;
    int rook = pos->castle_rook[index];
    int king_to = cf_square(queenside ? 2 : 6, cf_square_rank(ksq));
    int rook_to = cf_square(queenside ? 3 : 5, cf_square_rank(ksq));
    cf_bb movers = cf_bb_of(ksq) | cf_bb_of(rook);
    cf_bb king_path = cf_between(ksq, king_to) | cf_bb_of(king_to);
    cf_bb must_be_empty = (king_path | cf_between(rook, rook_to) | cf_bb_of(rook_to)) & ~movers;
    if (occupied & must_be_empty) continue;
    /* The king may not pass through or land on an attacked square. Lifting
     * king and rook off the board is exact: a slider seen only through
     * either of them is on the back rank and ends up attacking the king's
     * destination after castling (Chess960) or already gives check. */
    cf_bb lifted = occupied & ~movers;
    int safe = 1;
    while (king_path && safe) safe = !cf_position_attackers(pos, cf_bb_pop(&king_path), them, lifted);
    if (safe) *out++ = cf_move_make_kind(ksq, rook, CF_MOVE_CASTLING);
  }
  return out;
}

int cf_generate_legal(const cf_position *pos, cf_movelist *list) {
  cf_move *out = list->moves;
  cf_color us = pos->side, them = (cf_color)(us ^ 1);
  cf_bb ours = pos->occupied[us], theirs = pos->occupied[them], occupied = ours | theirs;
  const cf_bb *mine = pos->pieces[us], *their = pos->pieces[them];
  int ksq = cf_bb_first(mine[CF_KING]);
  cf_bb checkers = cf_position_attackers(pos, ksq, them, occupied);

  cf_bb king_targets = cf_attacks_king(ksq) & ~ours, lifted = occupied ^ cf_bb_of(ksq);
  while (king_targets) {
    int to = cf_bb_pop(&king_targets);
    if (!cf_position_attackers(pos, to, them, lifted)) *out++ = cf_move_make(ksq, to);
  }
  if (cf_bb_several(checkers)) goto done; /* double check: only the king moves */

  cf_bb target = ~ours;
  if (checkers) target = checkers | cf_between(ksq, cf_bb_first(checkers));

  /* A piece of ours is pinned when it is the only piece between our king
   * and an enemy slider looking at the king along that slider's lines. */
  cf_bb pinned = 0;
  cf_bb their_diag = their[CF_BISHOP] | their[CF_QUEEN], their_orth = their[CF_ROOK] | their[CF_QUEEN];
  cf_bb snipers = (cf_attacks_bishop(ksq, theirs) & their_diag) | (cf_attacks_rook(ksq, theirs) & their_orth);
  while (snipers) {
    cf_bb blockers = cf_between(ksq, cf_bb_pop(&snipers)) & occupied;
    if (blockers && !cf_bb_several(blockers) && (blockers & ours)) pinned |= blockers;
  }

  out = gen_pawns(pos, out, target, pinned, ksq);

  cf_bb knights = mine[CF_KNIGHT] & ~pinned; /* a pinned knight can never move */
  while (knights) {
    int from = cf_bb_pop(&knights);
    out = add_targets(out, from, cf_attacks_knight(from) & target);
  }
  cf_bb diagonal = mine[CF_BISHOP] | mine[CF_QUEEN];
  while (diagonal) {
    int from = cf_bb_pop(&diagonal);
    cf_bb to = cf_attacks_bishop(from, occupied) & target;
    if (cf_bb_has(pinned, from)) to &= cf_line(ksq, from);
    out = add_targets(out, from, to);
  }
  cf_bb orthogonal = mine[CF_ROOK] | mine[CF_QUEEN];
  while (orthogonal) {
    int from = cf_bb_pop(&orthogonal);
    cf_bb to = cf_attacks_rook(from, occupied) & target;
    if (cf_bb_has(pinned, from)) to &= cf_line(ksq, from);
    out = add_targets(out, from, to);
  }

  if (!checkers && pos->castling) out = gen_castling(pos, out, ksq);

done:
  list->count = (int)(out - list->moves);
  return list->count;
}

int cf_move_is_legal(const cf_position *pos, cf_move m) {
  cf_movelist list;
  cf_generate_legal(pos, &list);
  for (int i = 0; i < list.count; i++)
    if (list.moves[i] == m) return 1;
  return 0;
}
