/* cf_net_planes.c: position -> 112 planes, following Lc0's encoder
 * (NETWORK.md section 3): 8 history slots of 13 planes seen from the side to
 * move, castling / en-passant / rule-50 / edge planes, then the canonical
 * symmetry for formats >= 3. */
#include "net/cf_net_planes.h"

#include <string.h>

#include "policy_head/cf_policy_move.h"

const char *cf_history_fill_name(cf_history_fill fill) {
  switch (fill) {
    case CF_HISTORY_FILL_FEN_ONLY: return "fen_only";
    case CF_HISTORY_FILL_NO: return "no";
    case CF_HISTORY_FILL_ALWAYS: return "always";
  }
  return "unknown";
}

cf_status cf_history_fill_parse(const char *text, cf_history_fill *out, cf_error *err) {
  for (int f = CF_HISTORY_FILL_FEN_ONLY; f <= CF_HISTORY_FILL_ALWAYS; f++)
    if (text && strcmp(text, cf_history_fill_name((cf_history_fill)f)) == 0) {
      *out = (cf_history_fill)f;
      return CF_OK;
    }
  return cf_error_set(err, CF_ERR_ARG, "history fill '%s' is not fen_only, no or always",
                      text ? text : "(null)");
}

uint64_t cf_bitboard_transform(uint64_t m, int transform) {
  if (!transform) return m;
  uint64_t r = 0;
  for (int sq = 0; sq < 64; sq++)
    if ((m >> sq) & 1) r |= 1ull << cf_square_transform(sq, transform);
  return r;
}

static uint64_t mirror_ranks(uint64_t m) { return __builtin_bswap64(m); }

static void set_all(cf_planes *p, int j, float value) {
  p->mask[j] = ~0ull;
  p->value[j] = value;
}

/* Slot k's 13 planes: board b seen by the side to move of the position
 * being encoded (black: ranks mirrored, colours swapped). */
static void write_board(cf_planes *p, int slot, const cf_net_board *b, bool black_view) {
  uint64_t ours = black_view ? b->black : b->white;
  uint64_t theirs = black_view ? b->white : b->black;
  const uint64_t type[6] = {b->pawns, b->knights, b->bishops, b->rooks, b->queens, b->kings};
  const int base = slot * CF_PLANES_PER_BOARD;
  for (int t = 0; t < 6; t++) {
    uint64_t o = ours & type[t], th = theirs & type[t];
    p->mask[base + t] = black_view ? mirror_ranks(o) : o;
    p->mask[base + 6 + t] = black_view ? mirror_ranks(th) : th;
  }
  if (b->repetitions >= 1) set_all(p, base + 12, 1.0f);
}

/* A copy of the game's first position for a HistoryFill slot: a pawn that
 * had just made the double step recorded by the en-passant square is put
 * back on its start square (as Lc0 does). */
static cf_net_board undo_double_step(const cf_net_board *b) {
  cf_net_board c = *b;
  if (b->ep_file < 0) return c;
  /* The pawn belongs to the side that is not to move. */
  int to = b->black_to_move ? 24 + b->ep_file : 32 + b->ep_file;  /* rank 4 / rank 5 */
  int from = b->black_to_move ? 8 + b->ep_file : 48 + b->ep_file; /* rank 2 / rank 7 */
  uint64_t *side = b->black_to_move ? &c.white : &c.black;
  if ((c.pawns & *side) >> to & 1) {
    c.pawns = (c.pawns & ~(1ull << to)) | 1ull << from;
    *side = (*side & ~(1ull << to)) | 1ull << from;
  }
  return c;
}

/* Whether HistoryFill repeats the oldest kept board into the empty slots. */
static bool fills(const cf_net_position *pos, cf_history_fill fill) {
  const cf_net_board *oldest = &pos->boards[pos->count - 1];
  if (pos->count >= CF_NET_HISTORY || !pos->game_start || fill == CF_HISTORY_FILL_NO) return false;
  /* Canonical v2 writes older positions only when they are repetitions,
   * and a repeated first position is not one (Lc0 loops forever here when
   * the first position's rule-50 count is not 0; we stop). */
  if (cf_input_is_v2(pos->input_format)) return false;
  /* Canonical formats stop at any older position with an en-passant square,
   * and the copy counts as older. */
  if (cf_input_is_canonical(pos->input_format) && oldest->ep_file >= 0) return false;
  if (fill == CF_HISTORY_FILL_FEN_ONLY) {
    cf_net_board start;
    cf_net_board_startpos(&start);
    if (cf_net_board_same(oldest, &start)) return false;
  }
  return true;
}

/* Planes 104..111 from the board being encoded. */
static void write_aux(cf_planes *p, const cf_net_board *b, int format) {
  const bool black = b->black_to_move;
  const int us = black ? 1 : 0, them = black ? 0 : 1;
  const bool we_oo =
      b->castling & (black ? CF_NET_CASTLE_BLACK_KINGSIDE : CF_NET_CASTLE_WHITE_KINGSIDE);
  const bool we_ooo =
      b->castling & (black ? CF_NET_CASTLE_BLACK_QUEENSIDE : CF_NET_CASTLE_WHITE_QUEENSIDE);
  const bool they_oo =
      b->castling & (black ? CF_NET_CASTLE_WHITE_KINGSIDE : CF_NET_CASTLE_BLACK_KINGSIDE);
  const bool they_ooo =
      b->castling & (black ? CF_NET_CASTLE_WHITE_QUEENSIDE : CF_NET_CASTLE_BLACK_QUEENSIDE);
  const int base = CF_AUX_PLANE_BASE;
  if (format == 1) {
    if (we_ooo) set_all(p, base + 0, 1.0f);
    if (we_oo) set_all(p, base + 1, 1.0f);
    if (they_ooo) set_all(p, base + 2, 1.0f);
    if (they_oo) set_all(p, base + 3, 1.0f);
  } else {
    /* The rooks that keep a right: ours on rank 1, theirs on rank 8 (mover's frame). */
    if (we_ooo) p->mask[base + 0] |= 1ull << b->rook_file[us][0];
    if (they_ooo) p->mask[base + 0] |= 1ull << (56 + b->rook_file[them][0]);
    if (we_oo) p->mask[base + 1] |= 1ull << b->rook_file[us][1];
    if (they_oo) p->mask[base + 1] |= 1ull << (56 + b->rook_file[them][1]);
  }
  if (cf_input_is_canonical(format)) {
    if (b->ep_file >= 0) p->mask[base + 4] = 1ull << (56 + b->ep_file);
  } else if (black) {
    set_all(p, base + 4, 1.0f);
  }
  if (cf_input_is_hectoplies(format))
    set_all(p, base + 5, (float)b->rule50 / 100.0f);
  else
    set_all(p, base + 5, (float)b->rule50);
  if (cf_input_is_armageddon(format) && black) set_all(p, base + 6, 1.0f);
  set_all(p, base + 7, 1.0f);
}

/* Compares v (after the flip/mirror already chosen) with its transpose:
 * -1 keep, 1 transpose, 0 tie. */
static int compare_transposing(uint64_t v, int initial) {
  v = cf_bitboard_transform(v, initial);
  uint64_t alt = cf_bitboard_transform(v, CF_TRANSFORM_TRANSPOSE);
  return v < alt ? -1 : v > alt ? 1 : 0;
}

int cf_net_choose_transform(const cf_planes *pl, int input_format) {
  if (!cf_input_is_canonical(input_format)) return 0;
  /* Castling is not symmetric: no transform at all. */
  if (pl->mask[104] | pl->mask[105]) return 0;
  uint64_t king = pl->mask[5];
  int t = 0;
  if (king & 0x0F0F0F0F0F0F0F0Full) { /* files a-d: flip */
    t |= CF_TRANSFORM_FLIP;
    king = cf_bitboard_transform(king, CF_TRANSFORM_FLIP);
  }
  if (pl->mask[0] | pl->mask[6]) return t; /* pawns: only the flip is a symmetry */
  if (king & 0xFFFFFFFF00000000ull) {      /* ranks 5-8: mirror */
    t |= CF_TRANSFORM_MIRROR;
    king = cf_bitboard_transform(king, CF_TRANSFORM_MIRROR);
  }
  /* King now in e-h x 1-4. Above the a8-h1 anti-diagonal (f4 g4 h4 g3 h3
   * h2): transpose; on it (e4 f3 g2 h1): the tie-break below. */
  if (king & 0x00000000E0C08000ull) return t | CF_TRANSFORM_TRANSPOSE;
  if (king & 0x0000000010204080ull) {
    uint64_t ours = 0, theirs = 0;
    for (int j = 0; j < 6; j++) {
      ours |= pl->mask[j];
      theirs |= pl->mask[6 + j];
    }
    const uint64_t order[7] = {
        ours | theirs,              /* all pieces */
        ours,                       /* ours */
        pl->mask[5] | pl->mask[11], /* kings */
        pl->mask[4] | pl->mask[10], /* queens */
        pl->mask[3] | pl->mask[9],  /* rooks */
        pl->mask[1] | pl->mask[7],  /* knights */
        pl->mask[2] | pl->mask[8],  /* bishops */
    };
    for (int i = 0; i < 7; i++) {
      int c = compare_transposing(order[i], t);
      if (c < 0) return t;
      if (c > 0) return t | CF_TRANSFORM_TRANSPOSE;
    }
    /* Every bitboard is symmetric: the transpose would change nothing. */
  }
  return t;
}

int cf_net_encode_planes(const cf_net_position *pos, cf_history_fill fill, cf_planes *out) {
  const int format = pos->input_format;
  const cf_net_board *cur = &pos->boards[0];
  const bool black = cur->black_to_move;
  for (int j = 0; j < CF_PLANE_COUNT; j++) {
    out->mask[j] = 0;
    out->value[j] = 1.0f;
  }
  write_aux(out, cur, format);
  for (int k = 0; k < pos->count; k++) write_board(out, k, &pos->boards[k], black);
  if (fills(pos, fill)) {
    cf_net_board copy = undo_double_step(&pos->boards[pos->count - 1]);
    for (int k = pos->count; k < CF_NET_HISTORY; k++) write_board(out, k, &copy, black);
  }
  int t = cf_net_choose_transform(out, format);
  if (t)
    /* Planes 0..108 (pieces, repetitions, castling, en passant); all-zero
     * and all-one masks are unchanged by any symmetry. */
    for (int j = 0; j <= CF_AUX_PLANE_BASE + 4; j++)
      if (out->mask[j] != 0 && out->mask[j] != ~0ull)
        out->mask[j] = cf_bitboard_transform(out->mask[j], t);
  return t;
}
