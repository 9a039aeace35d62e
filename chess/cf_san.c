/* cf_san.c: SAN in and out (cf_san.h). Parsing reads the text into what it
 * says (piece, destination, optional origin file/rank, promotion) and keeps
 * the legal moves that fit; exactly one must. */
#include "chess/cf_san.h"

#include <stdio.h>
#include <string.h>

#include "chess/cf_movegen.h"

static const char piece_letters[] = "PNBRQK";

/* The square a move puts its piece on as SAN names it: castling is written
 * by side, so its "destination" is the king's. */
static int san_to(cf_move m) {
  return cf_move_kind_of(m) == CF_MOVE_CASTLING ? cf_castling_king_to(m) : cf_move_to(m);
}

static int piece_of(char c) {
  const char *p = strchr(piece_letters, c);
  return c && p ? (int)(p - piece_letters) : -1;
}

/* Castling text: 1 kingside, 2 queenside, 0 not castling. */
static int castling_side(const char *s, size_t n) {
  char t[8];
  if (n >= sizeof t) return 0;
  for (size_t i = 0; i < n; i++) t[i] = s[i] == '0' ? 'O' : s[i];
  t[n] = 0;
  if (strcmp(t, "O-O") == 0) return 1;
  if (strcmp(t, "O-O-O") == 0) return 2;
  return 0;
}

static cf_status castle(const cf_position *pos, const char *text, int side, cf_move *move,
                        cf_error *err) {
  cf_movelist list;
  cf_generate_legal(pos, &list);
  for (int i = 0; i < list.count; i++) {
    cf_move m = list.moves[i];
    if (cf_move_kind_of(m) != CF_MOVE_CASTLING) continue;
    if ((cf_move_to(m) > cf_move_from(m)) == (side == 1)) {
      *move = m;
      return CF_OK;
    }
  }
  return cf_error_set(err, CF_ERR_ARG, "illegal move '%s' (castling not possible)", text);
}

cf_status cf_san_parse(const cf_position *pos, const char *text, cf_move *move, cf_error *err) {
  size_t n = strlen(text);
  /* annotation glyphs and check signs carry nothing the move needs */
  while (n > 0 && strchr("+#!?", text[n - 1])) n--;
  if (n == 0 || n > 10) return cf_error_set(err, CF_ERR_ARG, "malformed move '%.24s'", text);
  int side = castling_side(text, n);
  if (side) return castle(pos, text, side, move, err);

  char s[12];
  memcpy(s, text, n);
  s[n] = 0;
  int piece = CF_PAWN, promo = -1, from_file = -1, from_rank = -1;
  size_t at = 0;
  if (piece_of(s[0]) > 0) piece = piece_of(s[at++]);
  /* promotion at the end: "=Q" or a bare "Q" after a rank */
  if (n >= 2 && piece_of(s[n - 1]) > CF_PAWN && piece_of(s[n - 1]) < CF_KING) {
    promo = piece_of(s[n - 1]);
    n -= s[n - 2] == '=' ? 2 : 1;
    s[n] = 0;
  }
  /* the destination is the last two characters */
  if (n < at + 2) return cf_error_set(err, CF_ERR_ARG, "malformed move '%s'", text);
  char df = s[n - 2], dr = s[n - 1];
  if (df < 'a' || df > 'h' || dr < '1' || dr > '8')
    return cf_error_set(err, CF_ERR_ARG, "malformed move '%s'", text);
  const int to = cf_square(df - 'a', dr - '1');
  /* between: origin file and/or rank, an optional 'x' or '-' */
  for (; at < n - 2; at++) {
    char c = s[at];
    if (c >= 'a' && c <= 'h' && from_file < 0) from_file = c - 'a';
    else if (c >= '1' && c <= '8' && from_rank < 0) from_rank = c - '1';
    else if ((c == 'x' || c == '-') && at == n - 3) continue;
    else return cf_error_set(err, CF_ERR_ARG, "malformed move '%s'", text);
  }
  if (promo >= 0 && piece != CF_PAWN) return cf_error_set(err, CF_ERR_ARG, "malformed move '%s'", text);

  cf_movelist list;
  cf_generate_legal(pos, &list);
  int found = 0;
  for (int i = 0; i < list.count; i++) {
    cf_move m = list.moves[i];
    if (cf_move_kind_of(m) == CF_MOVE_CASTLING) continue; /* only O-O / O-O-O name castling */
    int from = cf_move_from(m);
    if (cf_piece_type_of(pos->board[from]) != (cf_piece_type)piece || san_to(m) != to) continue;
    if (from_file >= 0 && cf_square_file(from) != from_file) continue;
    if (from_rank >= 0 && cf_square_rank(from) != from_rank) continue;
    /* a promotion must name its piece ("e8" alone is no move) */
    const int is_promo = cf_move_kind_of(m) == CF_MOVE_PROMOTION;
    if (is_promo != (promo >= 0) || (is_promo && (int)cf_move_promotion(m) != promo)) continue;
    if (found++ == 0) *move = m;
  }
  if (found == 1) return CF_OK;
  if (found == 0) return cf_error_set(err, CF_ERR_ARG, "illegal move '%s'", text);
  return cf_error_set(err, CF_ERR_ARG, "ambiguous move '%s'", text);
}

void cf_san_write(const cf_position *pos, cf_move m, char out[CF_SAN_MAX]) {
  size_t at = 0;
  const int from = cf_move_from(m), to = san_to(m);
  if (cf_move_kind_of(m) == CF_MOVE_CASTLING) {
    at = (size_t)snprintf(out, CF_SAN_MAX, "%s", cf_move_to(m) > from ? "O-O" : "O-O-O");
  } else {
    const cf_piece_type piece = cf_piece_type_of(pos->board[from]);
    const int capture = pos->board[cf_move_to(m)] != CF_NO_PIECE ||
                        cf_move_kind_of(m) == CF_MOVE_EN_PASSANT;
    if (piece == CF_PAWN) {
      if (capture) out[at++] = (char)('a' + cf_square_file(from));
    } else {
      out[at++] = piece_letters[piece];
      /* the other pieces of this kind that could also go there */
      cf_movelist list;
      cf_generate_legal(pos, &list);
      int same_file = 0, same_rank = 0, others = 0;
      for (int i = 0; i < list.count; i++) {
        cf_move o = list.moves[i];
        int of = cf_move_from(o);
        if (of == from || cf_move_kind_of(o) == CF_MOVE_CASTLING || cf_move_to(o) != cf_move_to(m) ||
            cf_piece_type_of(pos->board[of]) != piece)
          continue;
        others++;
        same_file += cf_square_file(of) == cf_square_file(from);
        same_rank += cf_square_rank(of) == cf_square_rank(from);
      }
      if (others && (!same_file || same_rank)) out[at++] = (char)('a' + cf_square_file(from));
      if (others && same_file) out[at++] = (char)('1' + cf_square_rank(from));
    }
    if (capture) out[at++] = 'x';
    out[at++] = (char)('a' + cf_square_file(to));
    out[at++] = (char)('1' + cf_square_rank(to));
    if (cf_move_kind_of(m) == CF_MOVE_PROMOTION) {
      out[at++] = '=';
      out[at++] = piece_letters[cf_move_promotion(m)];
    }
  }
  cf_position after = *pos;
  cf_undo undo;
  cf_position_make(&after, m, &undo);
  if (cf_position_in_check(&after)) {
    cf_movelist replies;
    out[at++] = cf_generate_legal(&after, &replies) == 0 ? '#' : '+';
  }
  out[at] = 0;
}
