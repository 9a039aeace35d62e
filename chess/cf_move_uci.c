/* cf_move_uci.c: UCI move text in and out. */
#include "chess/cf_move_uci.h"

#include <ctype.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_movegen.h"

static void write_square(char *out, int s) {
  out[0] = (char)('a' + cf_square_file(s));
  out[1] = (char)('1' + cf_square_rank(s));
}

void cf_move_write_uci(cf_move m, int chess960, char out[CF_UCI_MOVE_MAX]) {
  if (m == CF_MOVE_NONE) {
    memcpy(out, "0000", 5);
    return;
  }
  int to = cf_move_to(m);
  if (cf_move_kind_of(m) == CF_MOVE_CASTLING && !chess960) to = cf_castling_king_to(m);
  write_square(out, cf_move_from(m));
  write_square(out + 2, to);
  out[4] = '\0';
  if (cf_move_kind_of(m) == CF_MOVE_PROMOTION) {
    out[4] = "nbrq"[cf_move_promotion(m) - CF_KNIGHT];
    out[5] = '\0';
  }
}

/* Printable excerpt of the untrusted text for messages. */
static const char *quote(char out[24], const char *s) {
  size_t i;
  for (i = 0; s[i] && i < 16; i++) out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
  if (s[i]) memcpy(out + i, "...", 3), i += 3;
  out[i] = '\0';
  return out;
}

static int parse_square(const char *s) {
  if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return CF_NO_SQUARE;
  return cf_square(s[0] - 'a', s[1] - '1');
}

static int promotion_from_letter(char c) {
  switch (tolower((unsigned char)c)) {
    case 'n': return CF_KNIGHT;
    case 'b': return CF_BISHOP;
    case 'r': return CF_ROOK;
    case 'q': return CF_QUEEN;
    default: return -1;
  }
}

cf_status cf_move_parse_uci(const cf_position *pos, const char *text, cf_move *move, cf_error *err) {
  char q[24];
  if (!text) return cf_error_set(err, CF_ERR_ARG, "move text is NULL");
  size_t n = strnlen(text, 8);
  if (n == 4 && memcmp(text, "0000", 4) == 0)
    return cf_error_set(err, CF_ERR_ARG, "null move '0000' is not supported");
  int from = n >= 4 ? parse_square(text) : CF_NO_SQUARE;
  int to = n >= 4 ? parse_square(text + 2) : CF_NO_SQUARE;
  int promo = n == 5 ? promotion_from_letter(text[4]) : -1;
  if ((n != 4 && n != 5) || from == CF_NO_SQUARE || to == CF_NO_SQUARE || (n == 5 && promo < 0))
    return cf_error_set(err, CF_ERR_ARG, "malformed move '%s' (expected UCI text such as e2e4 or e7e8q)",
                        quote(q, text));

  cf_movelist list;
  cf_generate_legal(pos, &list);
  int needs_promotion = 0;
  for (int i = 0; i < list.count; i++) {
    cf_move m = list.moves[i];
    if (cf_move_from(m) != from) continue;
    cf_move_kind kind = cf_move_kind_of(m);
    int match;
    if (kind == CF_MOVE_CASTLING)
      match = promo < 0 && (to == cf_move_to(m) || (!pos->chess960 && to == cf_castling_king_to(m)));
    else if (kind == CF_MOVE_PROMOTION)
      match = to == cf_move_to(m) && (promo < 0 ? (needs_promotion = 1, 0) : (int)cf_move_promotion(m) == promo);
    else
      match = to == cf_move_to(m) && promo < 0;
    if (match) {
      *move = m;
      return CF_OK;
    }
  }
  if (needs_promotion)
    return cf_error_set(err, CF_ERR_ARG, "move '%s' needs a promotion letter (q, r, b or n)", quote(q, text));
  char fen[CF_FEN_MAX];
  cf_position_to_fen(pos, fen);
  return cf_error_set(err, CF_ERR_ARG, "illegal move '%s' in position %s", quote(q, text), fen);
}
