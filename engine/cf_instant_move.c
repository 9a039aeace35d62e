/* cf_instant_move.c: the network-free move of time trouble
 * (cf_instant_move.h). */
#include "engine/cf_instant_move.h"

#include "chess/cf_movegen.h"

/* Material in centipawns; the king is never captured by a legal move. */
static const int piece_value[CF_PIECE_TYPE_COUNT] = {100, 300, 300, 500, 900, 0};

#define MATE_SCORE 100000
#define DRAW_SCORE 0

/* What m gains for the mover by material: the piece it takes (en passant
 * takes a pawn) plus a promotion's gain. */
static int material_gain(const cf_position *pos, cf_move m) {
  int gain = 0;
  const cf_move_kind kind = cf_move_kind_of(m);
  if (kind == CF_MOVE_EN_PASSANT) {
    gain += piece_value[CF_PAWN];
  } else if (kind != CF_MOVE_CASTLING) {
    const cf_piece victim = pos->board[cf_move_to(m)];
    if (victim != CF_NO_PIECE) gain += piece_value[cf_piece_type_of(victim)];
  }
  if (kind == CF_MOVE_PROMOTION) gain += piece_value[cf_move_promotion(m)] - piece_value[CF_PAWN];
  return gain;
}

/* 0 on the corner squares up to 6 on the four central ones. */
static int centrality(int s) {
  const int f = cf_square_file(s), r = cf_square_rank(s);
  const int df = f < 4 ? f : 7 - f, dr = r < 4 ? r : 7 - r;
  return df + dr;
}

/* The mover's score of m: material won, less the best material reply. */
static int score_move(const cf_position *pos, cf_move m) {
  cf_position after = *pos;
  cf_undo undo;
  cf_position_make(&after, m, &undo);
  cf_movelist replies;
  cf_generate_legal(&after, &replies);
  if (replies.count == 0) return cf_position_in_check(&after) ? MATE_SCORE : DRAW_SCORE;
  int best_reply = 0;
  for (int i = 0; i < replies.count; i++) {
    const int g = material_gain(&after, replies.moves[i]);
    if (g > best_reply) best_reply = g;
  }
  return material_gain(pos, m) - best_reply;
}

cf_move cf_instant_move(const cf_position *pos) {
  cf_movelist moves;
  cf_generate_legal(pos, &moves);
  cf_move best = CF_MOVE_NONE;
  int best_score = 0, best_centre = 0;
  for (int i = 0; i < moves.count; i++) {
    const cf_move m = moves.moves[i];
    const int score = score_move(pos, m);
    /* Castling moves the king off the back rank's edge: count it as the
     * king's destination, not the rook's square it is written as. */
    const int to = cf_move_kind_of(m) == CF_MOVE_CASTLING ? cf_castling_king_to(m) : cf_move_to(m);
    const int centre = centrality(to) - centrality(cf_move_from(m));
    if (best == CF_MOVE_NONE || score > best_score || (score == best_score && centre > best_centre)) {
      best = m;
      best_score = score;
      best_centre = centre;
    }
  }
  return best;
}
