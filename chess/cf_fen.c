/* cf_fen.c: FEN parsing with a specific message for each way it can be
 * wrong, and FEN writing. The parser reads fields in place (no copies into
 * fixed buffers), so no input length or content can overrun anything. */
#include "chess/cf_fen.h"

#include <assert.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_attacks.h"

typedef struct field {
  const char *text;
  size_t len;
} field;

/* Printable excerpt of untrusted text for messages: at most 40 bytes,
 * non-printable bytes as '?', "..." when cut. */
#define QUOTE_MAX 48
static const char *quote(char out[QUOTE_MAX], const char *s, size_t n) {
  size_t keep = n > 40 ? 40 : n, i;
  for (i = 0; i < keep; i++) out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
  if (keep < n) memcpy(out + i, "...", 3), i += 3;
  out[i] = '\0';
  return out;
}

static const char *color_name(cf_color c) { return c == CF_WHITE ? "white" : "black"; }

static const char *square_name(int s, char out[3]) {
  out[0] = (char)('a' + cf_square_file(s));
  out[1] = (char)('1' + cf_square_rank(s));
  out[2] = '\0';
  return out;
}

static int piece_type_from_letter(char lower) {
  switch (lower) {
    case 'p': return CF_PAWN;
    case 'n': return CF_KNIGHT;
    case 'b': return CF_BISHOP;
    case 'r': return CF_ROOK;
    case 'q': return CF_QUEEN;
    case 'k': return CF_KING;
    default: return -1;
  }
}

static void place(cf_position *pos, cf_color c, cf_piece_type t, int s) {
  pos->board[s] = cf_piece_make(c, t);
  pos->pieces[c][t] |= cf_bb_of(s);
  pos->occupied[c] |= cf_bb_of(s);
}

static cf_status parse_board(cf_position *pos, field f, cf_error *err) {
  char q[QUOTE_MAX];
  int ranks = 1;
  for (size_t i = 0; i < f.len; i++) ranks += f.text[i] == '/';
  if (ranks != 8)
    return cf_error_set(err, CF_ERR_ARG, "FEN board '%s' has %d ranks, expected 8",
                        quote(q, f.text, f.len), ranks);
  int rank = 7, file = 0;
  for (size_t i = 0; i <= f.len; i++) {
    char c = i < f.len ? f.text[i] : '/';
    if (c == '/') {
      if (file < 8)
        return cf_error_set(err, CF_ERR_ARG, "FEN rank %d is too short (%d squares, expected 8)",
                            rank + 1, file);
      rank--;
      file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
      if (file > 8)
        return cf_error_set(err, CF_ERR_ARG, "FEN rank %d is too long (more than 8 squares)", rank + 1);
    } else {
      int type = piece_type_from_letter((char)tolower((unsigned char)c));
      if (type < 0) {
        if (isdigit((unsigned char)c))
          return cf_error_set(err, CF_ERR_ARG, "bad empty-square count '%c' in FEN rank %d (expected 1-8)",
                              c, rank + 1);
        return cf_error_set(err, CF_ERR_ARG, "bad piece letter '%s' in FEN rank %d (expected one of PNBRQKpnbrqk)",
                            quote(q, &c, 1), rank + 1);
      }
      if (file >= 8)
        return cf_error_set(err, CF_ERR_ARG, "FEN rank %d is too long (more than 8 squares)", rank + 1);
      place(pos, isupper((unsigned char)c) ? CF_WHITE : CF_BLACK, (cf_piece_type)type, cf_square(file, rank));
      file++;
    }
  }
  return CF_OK;
}

/* Kings, pawn ranks and piece counts: what any game position satisfies.
 * The counts also bound the number of legal moves (see CF_MAX_MOVES). */
static cf_status check_material(const cf_position *pos, cf_error *err) {
  char sq[3];
  for (int c = 0; c < CF_COLOR_COUNT; c++) {
    const char *name = color_name((cf_color)c);
    const cf_bb *p = pos->pieces[c];
    int kings = cf_bb_count(p[CF_KING]);
    if (kings == 0) return cf_error_set(err, CF_ERR_ARG, "FEN has no %s king", name);
    if (kings > 1) return cf_error_set(err, CF_ERR_ARG, "FEN has %d %s kings (expected exactly 1)", kings, name);
    cf_bb misplaced = p[CF_PAWN] & (CF_BB_RANK(0) | CF_BB_RANK(7));
    if (misplaced)
      return cf_error_set(err, CF_ERR_ARG, "FEN has a %s pawn on %s (pawns cannot stand on the first or last rank)",
                          name, square_name(cf_bb_first(misplaced), sq));
    int total = cf_bb_count(pos->occupied[c]), pawns = cf_bb_count(p[CF_PAWN]);
    if (total > 16) return cf_error_set(err, CF_ERR_ARG, "FEN has %d %s pieces (at most 16)", total, name);
    if (pawns > 8) return cf_error_set(err, CF_ERR_ARG, "FEN has %d %s pawns (at most 8)", pawns, name);
    int n = cf_bb_count(p[CF_KNIGHT]), b = cf_bb_count(p[CF_BISHOP]);
    int r = cf_bb_count(p[CF_ROOK]), qn = cf_bb_count(p[CF_QUEEN]);
    int promoted = (n > 2 ? n - 2 : 0) + (b > 2 ? b - 2 : 0) + (r > 2 ? r - 2 : 0) + (qn > 1 ? qn - 1 : 0);
    if (promoted > 8 - pawns)
      return cf_error_set(err, CF_ERR_ARG,
                          "FEN gives %s %d promoted pieces but only %d pawns are missing", name, promoted,
                          8 - pawns);
  }
  return CF_OK;
}

static cf_status parse_side(cf_position *pos, field f, cf_error *err) {
  char q[QUOTE_MAX];
  if (f.len == 1 && (f.text[0] == 'w' || f.text[0] == 'b')) {
    pos->side = f.text[0] == 'w' ? CF_WHITE : CF_BLACK;
    return CF_OK;
  }
  return cf_error_set(err, CF_ERR_ARG, "bad side to move '%s' in FEN (expected w or b)", quote(q, f.text, f.len));
}

/* X-FEN's K or Q: the outermost rook of `color` on its back rank on that
 * side of the king (scanning in from the h- or a-file), or CF_NO_SQUARE. */
static int outermost_rook(const cf_position *pos, cf_color color, int king, int queenside) {
  int back = cf_square_rank(king), step = queenside ? 1 : -1;
  for (int file = queenside ? 0 : 7; file != cf_square_file(king); file += step)
    if (cf_bb_has(pos->pieces[color][CF_ROOK], cf_square(file, back))) return cf_square(file, back);
  return CF_NO_SQUARE;
}

/* Castling letters, in either notation Chess960 uses:
 *   X-FEN: K/Q (k/q) name the outermost rook on that side of the king,
 *     which in standard chess is the h/a rook; an inner rook that holds a
 *     right while an outer one stands beside it is named by its file;
 *   Shredder-FEN: a file letter for every right (HAha).
 * Both read the same way here: a file letter names its rook, K/Q the
 * outermost one. Any right needs the king on its back rank. */
static cf_status parse_castling(cf_position *pos, field f, cf_error *err) {
  char q[QUOTE_MAX], cq[QUOTE_MAX];
  if (f.len == 1 && f.text[0] == '-') return CF_OK;
  for (size_t i = 0; i < f.len; i++) {
    char c = f.text[i], lower = (char)tolower((unsigned char)c);
    cf_color color = isupper((unsigned char)c) ? CF_WHITE : CF_BLACK;
    int back = color == CF_WHITE ? 0 : 7;
    int king = cf_bb_first(pos->pieces[color][CF_KING]);
    int queenside, rook;
    if (lower != 'k' && lower != 'q' && (lower < 'a' || lower > 'h'))
      return cf_error_set(err, CF_ERR_ARG,
                          "bad castling field '%s': unexpected '%s' (expected letters from KQkq, "
                          "Shredder file letters, or -)",
                          quote(q, f.text, f.len), quote(cq, &f.text[i], 1));
    if (cf_square_rank(king) != back)
      return cf_error_set(err, CF_ERR_ARG, "bad castling field '%s': right '%c' needs the %s king on rank %d",
                          quote(q, f.text, f.len), c, color_name(color), back + 1);
    if (lower == 'k' || lower == 'q') {
      queenside = lower == 'q';
      rook = outermost_rook(pos, color, king, queenside);
      if (rook == CF_NO_SQUARE)
        return cf_error_set(err, CF_ERR_ARG,
                            "bad castling field '%s': right '%c' needs a %s rook on rank %d on the king's %s",
                            quote(q, f.text, f.len), c, color_name(color), back + 1,
                            queenside ? "queenside (towards the a-file)" : "kingside (towards the h-file)");
    } else {
      rook = cf_square(lower - 'a', back);
      if (!cf_bb_has(pos->pieces[color][CF_ROOK], rook))
        return cf_error_set(err, CF_ERR_ARG, "bad castling field '%s': right '%c' needs a %s rook on %c%d",
                            quote(q, f.text, f.len), c, color_name(color), lower, back + 1);
      queenside = rook < king;
    }
    int index = cf_castle_index(color, queenside);
    if (pos->castling >> index & 1)
      return cf_error_set(err, CF_ERR_ARG, "bad castling field '%s': %s %s right given twice",
                          quote(q, f.text, f.len), color_name(color), queenside ? "queenside" : "kingside");
    pos->castling |= (uint8_t)(1u << index);
    pos->castle_rook[index] = (int8_t)rook;
    if (cf_square_file(king) != 4 || cf_square_file(rook) != (queenside ? 0 : 7)) pos->chess960 = 1;
  }
  return CF_OK;
}

static cf_status parse_ep(cf_position *pos, field f, cf_error *err) {
  char q[QUOTE_MAX], a[3], b[3], c[3];
  if (f.len == 1 && f.text[0] == '-') return CF_OK;
  if (f.len != 2 || f.text[0] < 'a' || f.text[0] > 'h' || f.text[1] < '1' || f.text[1] > '8')
    return cf_error_set(err, CF_ERR_ARG, "bad en-passant square '%s' in FEN (expected a square such as e3, or -)",
                        quote(q, f.text, f.len));
  cf_color us = pos->side, them = (cf_color)(us ^ 1);
  int s = cf_square(f.text[0] - 'a', f.text[1] - '1');
  int want_rank = us == CF_WHITE ? 5 : 2;
  if (cf_square_rank(s) != want_rank)
    return cf_error_set(err, CF_ERR_ARG, "en-passant square %s is impossible with %s to move (must be on rank %d)",
                        square_name(s, a), color_name(us), want_rank + 1);
  int pawn = us == CF_WHITE ? s - 8 : s + 8, origin = us == CF_WHITE ? s + 8 : s - 8;
  if (pos->board[pawn] != cf_piece_make(them, CF_PAWN))
    return cf_error_set(err, CF_ERR_ARG,
                        "en-passant square %s is impossible: no %s pawn on %s that could have just moved two squares",
                        square_name(s, a), color_name(them), square_name(pawn, b));
  if (pos->board[s] != CF_NO_PIECE || pos->board[origin] != CF_NO_PIECE)
    return cf_error_set(err, CF_ERR_ARG,
                        "en-passant square %s is impossible: %s and %s must be empty after a pawn's double step",
                        square_name(s, a), square_name(s, b), square_name(origin, c));
  /* Keep it only if a capture onto it is legal (see cf_position.ep_square);
   * the field as given stays in double_step_square. */
  pos->double_step_square = s;
  pos->ep_square = s;
  cf_bb capturers = cf_attacks_pawn(them, s) & pos->pieces[us][CF_PAWN];
  while (capturers)
    if (cf_position_ep_is_legal(pos, cf_bb_pop(&capturers))) return CF_OK;
  pos->ep_square = CF_NO_SQUARE;
  return CF_OK;
}

static cf_status parse_counter(field f, const char *what, long max, long *out, cf_error *err) {
  char q[QUOTE_MAX];
  size_t start = f.text[0] == '-' ? 1 : 0, i;
  for (i = start; i < f.len && isdigit((unsigned char)f.text[i]); i++) {
  }
  if (i < f.len || start == f.len)
    return cf_error_set(err, CF_ERR_ARG, "FEN %s '%s' is not a number", what, quote(q, f.text, f.len));
  if (start) return cf_error_set(err, CF_ERR_ARG, "FEN %s '%s' is negative", what, quote(q, f.text, f.len));
  long value = 0;
  for (i = 0; i < f.len; i++) {
    value = value * 10 + (f.text[i] - '0');
    if (value > max) /* stops before any overflow, whatever the length */
      return cf_error_set(err, CF_ERR_ARG, "FEN %s '%s' is absurd (at most %ld)", what, quote(q, f.text, f.len), max);
  }
  *out = value;
  return CF_OK;
}

cf_status cf_position_from_fen(cf_position *out, const char *fen, cf_error *err) {
  cf_chess_init();
  if (!fen) return cf_error_set(err, CF_ERR_ARG, "FEN is NULL");
  size_t n = strnlen(fen, CF_FEN_INPUT_MAX + 1);
  if (n > CF_FEN_INPUT_MAX)
    return cf_error_set(err, CF_ERR_ARG, "FEN is too long (over %d characters)", CF_FEN_INPUT_MAX);

  field fields[6];
  int count = 0;
  for (size_t i = 0; i < n;) {
    if (isspace((unsigned char)fen[i])) {
      i++;
      continue;
    }
    size_t start = i;
    while (i < n && !isspace((unsigned char)fen[i])) i++;
    if (count < 6) fields[count] = (field){fen + start, i - start};
    count++;
  }
  if (count == 0) return cf_error_set(err, CF_ERR_ARG, "FEN is empty");
  if (count != 4 && count != 6)
    return cf_error_set(err, CF_ERR_ARG, "FEN has %d field%s, expected 6 (or 4 without the move counters)", count,
                        count == 1 ? "" : "s");

  cf_position pos;
  memset(&pos, 0, sizeof pos);
  for (int i = 0; i < 4; i++) pos.castle_rook[i] = CF_NO_SQUARE;
  pos.ep_square = CF_NO_SQUARE;
  pos.double_step_square = CF_NO_SQUARE;

  CF_TRY(parse_board(&pos, fields[0], err));
  CF_TRY(check_material(&pos, err));
  CF_TRY(parse_side(&pos, fields[1], err));
  cf_color waiting = (cf_color)(pos.side ^ 1);
  if (cf_position_attackers(&pos, cf_position_king(&pos, waiting), pos.side, cf_position_all(&pos)))
    return cf_error_set(err, CF_ERR_ARG, "FEN is impossible: the side not to move (%s) is in check",
                        color_name(waiting));
  CF_TRY(parse_castling(&pos, fields[2], err));
  CF_TRY(parse_ep(&pos, fields[3], err));
  long halfmove = 0, fullmove = 1;
  if (count == 6) {
    CF_TRY(parse_counter(fields[4], "halfmove clock", CF_FEN_HALFMOVE_MAX, &halfmove, err));
    CF_TRY(parse_counter(fields[5], "fullmove number", CF_FEN_FULLMOVE_MAX, &fullmove, err));
    if (fullmove == 0) fullmove = 1; /* some tools write 0; the standard counts from 1 */
  }
  pos.rule50 = (int)halfmove;
  pos.fullmove = (int)fullmove;
  pos.key = cf_position_compute_key(&pos);
  *out = pos;
  return CF_OK;
}

void cf_position_to_fen(const cf_position *pos, char out[CF_FEN_MAX]) {
  static const char letters[] = "PNBRQK";
  size_t n = 0;
  for (int rank = 7; rank >= 0; rank--) {
    int empty = 0;
    for (int file = 0; file < 8; file++) {
      cf_piece p = pos->board[cf_square(file, rank)];
      if (p == CF_NO_PIECE) {
        empty++;
        continue;
      }
      if (empty) out[n++] = (char)('0' + empty), empty = 0;
      char letter = letters[cf_piece_type_of(p)];
      out[n++] = cf_piece_color(p) == CF_WHITE ? letter : (char)tolower((unsigned char)letter);
    }
    if (empty) out[n++] = (char)('0' + empty);
    if (rank) out[n++] = '/';
  }
  out[n++] = ' ';
  out[n++] = pos->side == CF_WHITE ? 'w' : 'b';
  out[n++] = ' ';
  if (!pos->castling) out[n++] = '-';
  for (int i = 0; i < 4; i++) {
    if (!(pos->castling >> i & 1)) continue;
    if (pos->chess960) {
      char file = (char)('a' + cf_square_file(pos->castle_rook[i]));
      out[n++] = i < 2 ? (char)toupper((unsigned char)file) : file;
    } else {
      out[n++] = "KQkq"[i];
    }
  }
  out[n++] = ' ';
  if (pos->ep_square == CF_NO_SQUARE) {
    out[n++] = '-';
  } else {
    out[n++] = (char)('a' + cf_square_file(pos->ep_square));
    out[n++] = (char)('1' + cf_square_rank(pos->ep_square));
  }
  /* At most 71 + 11 characters so far; the counters fit in the rest. */
  snprintf(out + n, CF_FEN_MAX - n, " %d %d", pos->rule50, pos->fullmove);
}

void cf_position_startpos(cf_position *pos) {
  cf_status status = cf_position_from_fen(pos, CF_FEN_STARTPOS, NULL);
  assert(status == CF_OK);
  (void)status;
}
