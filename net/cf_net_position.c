/* cf_net_position.c: the history walk (Lc0's EncodePositionForNN history
 * loop, NETWORK.md section 3), as rules over offered boards. */
#include "net/cf_net_position.h"

#include <string.h>

bool cf_input_is_supported(int f) {
  return f == 1 || f == 2 || f == 3 || f == 4 || f == 5 || f == 132 || f == 133;
}
bool cf_input_is_canonical(int f) { return f >= 3; }
bool cf_input_is_hectoplies(int f) { return f >= 4; }
bool cf_input_is_v2(int f) { return f == 5 || f == 133; }
bool cf_input_is_armageddon(int f) { return f == 132 || f == 133; }

void cf_net_position_init(cf_net_position *p, int input_format, const cf_net_board *current) {
  memset(p, 0, sizeof *p);
  p->input_format = input_format;
  p->boards[0] = *current;
  p->count = 1;
  /* Canonical formats: a rule-50 reset ends the relevant history (nothing
   * before a capture or pawn move can repeat). */
  p->walk_done = cf_input_is_canonical(input_format) && current->rule50 == 0;
}

bool cf_net_position_push(cf_net_position *p, const cf_net_board *older) {
  if (p->walk_done) return false;
  const int f = p->input_format;
  if (cf_input_is_canonical(f)) {
    /* Castling changes and en-passant squares cannot repeat: stop there. */
    if (older->castling != p->boards[0].castling || older->ep_file >= 0) {
      p->walk_done = true;
      return false;
    }
    /* Canonical v2 writes only positions that are repetitions. */
    if (cf_input_is_v2(f) && older->repetitions == 0) {
      if (older->rule50 == 0) p->walk_done = true;
      return !p->walk_done;
    }
  }
  p->boards[p->count++] = *older;
  if (p->count == CF_NET_HISTORY || (cf_input_is_canonical(f) && older->rule50 == 0))
    p->walk_done = true;
  return !p->walk_done;
}

void cf_net_position_mark_start(cf_net_position *p) {
  if (!p->walk_done) p->game_start = true;
  p->walk_done = true;
}

void cf_net_position_from_history(cf_net_position *p, int input_format, const cf_net_board *current,
                                  const cf_net_board *older, int n, bool game_start) {
  cf_net_position_init(p, input_format, current);
  int i = 0;
  for (; i < n; i++)
    if (!cf_net_position_push(p, &older[i])) break;
  if (game_start && i == n) cf_net_position_mark_start(p);
}

void cf_net_board_startpos(cf_net_board *b) {
  memset(b, 0, sizeof *b);
  b->white = 0x000000000000FFFFull;
  b->black = 0xFFFF000000000000ull;
  b->pawns = 0x00FF00000000FF00ull;
  b->knights = 0x4200000000000042ull;
  b->bishops = 0x2400000000000024ull;
  b->rooks = 0x8100000000000081ull;
  b->queens = 0x0800000000000008ull;
  b->kings = 0x1000000000000010ull;
  b->castling = CF_NET_CASTLE_WHITE_KINGSIDE | CF_NET_CASTLE_WHITE_QUEENSIDE |
                CF_NET_CASTLE_BLACK_KINGSIDE | CF_NET_CASTLE_BLACK_QUEENSIDE;
  b->rook_file[0][0] = b->rook_file[1][0] = 0;
  b->rook_file[0][1] = b->rook_file[1][1] = 7;
  b->ep_file = -1;
}

bool cf_net_board_same(const cf_net_board *a, const cf_net_board *b) {
  return a->white == b->white && a->black == b->black && a->pawns == b->pawns &&
         a->knights == b->knights && a->bishops == b->bishops && a->rooks == b->rooks &&
         a->queens == b->queens && a->kings == b->kings && a->black_to_move == b->black_to_move &&
         a->castling == b->castling && a->ep_file == b->ep_file;
}
