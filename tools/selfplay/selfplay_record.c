/* selfplay_record.c: a searched position as a V6 training record, filled
 * the way Lc0's selfplay fills one (its trainingdata.cc, read for the
 * meaning of each field): values from the side to move's view, clamped to
 * their ranges; the planes in the mover's frame after the canonical
 * transform, each byte's bits reversed; the move indices in that frame. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tools/selfplay/selfplay_game.h"

static uint64_t reverse_bits_in_bytes(uint64_t v) {
  uint64_t out = 0;
  for (int b = 0; b < 8; b++) {
    uint8_t x = (uint8_t)(v >> (8 * b)), y = 0;
    for (int i = 0; i < 8; i++) y |= (uint8_t)(((x >> i) & 1u) << (7 - i));
    out |= (uint64_t)y << (8 * b);
  }
  return out;
}

/* q in [-1, 1], d in [0, 1] and W, L not negative: search averages may
 * drift by a rounding error, and the trainer takes them as probabilities. */
static void clamp_qd(float *q, float *d) {
  if (isnan(*q) || isnan(*d)) return;
  *q = *q > 1 ? 1 : *q < -1 ? -1 : *q;
  *d = *d > 1 ? 1 : *d < 0 ? 0 : *d;
  const float w = (1 - *d + *q) / 2, l = w - *q;
  if (w < 0 || l < 0) *d += 2 * (w < l ? w : l);
  if (*d < 0) *d = 0;
}

static uint16_t index_of(cf_move m, bool black, int transform) {
  const int i = cf_policy_move_index(cf_engine_policy_move(m), black, transform);
  return i < 0 ? 0 : (uint16_t)i;
}

/* Lc0's policy_kld (trainingdata.cc): sum over the visited moves of
 * f log(f / P), f the move's visit share and P its prior, floored at 0,
 * plus the smallest float (Lc0 keeps 0 for "not computed"); f is the
 * record's share (with no visits, Lc0's only case being a lone legal
 * move, 1 / n: 1 there too). */
static float policy_kld(const cf_search_move_stats *st, int n, double total,
                        const cf_search_net_eval *ev) {
  float kld = 0, sum_p = 0;
  for (int i = 0; i < n; i++) {
    float p = 0;
    for (int k = 0; k < ev->n_moves; k++)
      if (ev->moves[k] == st[i].move) p = ev->p[k];
    const float f = total > 0 ? (float)(st[i].n / total) : 1.0f / (float)n;
    if (f > 0) kld += f * logf(f / p);
    sum_p += p;
  }
  kld += logf(sum_p);
  return (kld > 0 ? kld : 0) + FLT_MIN;
}

void sp_record_fill(cf_v6 *r, const cf_search *search, const cf_search_result *res,
                    const cf_game *game, const cf_net_info *net, cf_move played) {
  memset(r, 0, sizeof *r);
  r->version = CF_V6_VERSION;
  r->input_format = (uint32_t)net->input_format;
  const cf_position *pos = cf_game_position(game);
  const bool black = pos->side == CF_BLACK;

  cf_net_position np;
  cf_engine_net_position(game, net->input_format, &np);
  cf_planes planes;
  const int transform = cf_net_encode_planes(&np, net->history_fill, &planes);
  for (int i = 0; i < CF_V6_PLANES; i++) r->planes[i] = reverse_bits_in_bytes(planes.mask[i]);

  /* The visit shares of the root's moves; -1 marks every other entry. */
  for (int i = 0; i < CF_V6_POLICY; i++) r->probabilities[i] = -1.0f;
  cf_search_move_stats st[CF_MAX_MOVES];
  const int n = cf_search_root_stats(search, st, CF_MAX_MOVES);
  double total = 0;
  for (int i = 0; i < n; i++) total += st[i].n;
  const cf_search_move_stats *best = n > 0 ? &st[0] : NULL, *play = NULL;
  for (int i = 0; i < n; i++) {
    const int k = cf_policy_move_index(cf_engine_policy_move(st[i].move), black, transform);
    if (k >= 0) r->probabilities[k] = total > 0 ? (float)(st[i].n / total) : 1.0f / (float)n;
    if (st[i].move == played) play = &st[i];
  }

  /* Castling: with the formats that carry castling as rook files (all but
   * the classical 1), a right is the bit of its rook's file, else 1. */
  const cf_net_board *b = &np.boards[0];
  const bool files = net->input_format != 1;
  const int us = black ? 1 : 0, them = 1 - us;
  const uint8_t rights[2][2] = {
      {CF_NET_CASTLE_WHITE_QUEENSIDE, CF_NET_CASTLE_WHITE_KINGSIDE},
      {CF_NET_CASTLE_BLACK_QUEENSIDE, CF_NET_CASTLE_BLACK_KINGSIDE}};
#define RIGHT(side, wing)                                                                           \
  ((b->castling & rights[side][wing]) ? (uint8_t)(files ? 1u << b->rook_file[side][wing] : 1u) : 0)
  r->castling_us_ooo = RIGHT(us, 0);
  r->castling_us_oo = RIGHT(us, 1);
  r->castling_them_ooo = RIGHT(them, 0);
  r->castling_them_oo = RIGHT(them, 1);
#undef RIGHT
  if (cf_input_is_canonical(net->input_format)) {
    uint8_t ep = b->ep_file >= 0 ? (uint8_t)(1u << b->ep_file) : 0;
    if (transform & CF_TRANSFORM_FLIP) ep = (uint8_t)(reverse_bits_in_bytes(ep) & 0xff);
    r->side_to_move_or_enpassant = ep;
    r->invariance_info = (uint8_t)(transform | (black ? CF_V6_BLACK_TO_MOVE : 0));
  } else {
    r->side_to_move_or_enpassant = black ? 1 : 0;
  }
  if (best && best->proven != 2) r->invariance_info |= CF_V6_BEST_PROVEN;
  r->rule50_count = (uint8_t)(b->rule50 > 255 ? 255 : b->rule50);

  /* The game's result comes at its end (sp_records_finish): a draw until then. */
  r->result_q = 0;
  r->result_d = 1;
  r->root_q = res->info.root_wdl[0] - res->info.root_wdl[2];
  r->root_d = res->info.root_wdl[1];
  r->root_m = res->info.root_m;
  /* A move's m counts the plies left after it; as Lc0, the record counts
   * them from the root, the move itself included. */
  r->best_q = best ? best->wl : res->info.wdl[0] - res->info.wdl[2];
  r->best_d = best ? best->d : res->info.wdl[1];
  r->best_m = best ? best->m + 1 : res->info.root_m;
  r->played_q = play ? play->wl : r->best_q;
  r->played_d = play ? play->d : r->best_d;
  r->played_m = play ? play->m + 1 : r->best_m;
  /* A move proven without a visit has no averages: its proof is its value. */
  if (best && isnan(r->best_q) && best->proven != 2)
    r->best_q = (float)best->proven, r->best_d = best->proven == 0, r->best_m = best->proven_plies;
  if (play && isnan(r->played_q))
    r->played_q = r->best_q, r->played_d = r->best_d, r->played_m = r->best_m;
  clamp_qd(&r->root_q, &r->root_d);
  clamp_qd(&r->best_q, &r->best_d);
  clamp_qd(&r->played_q, &r->played_d);
  /* The network's own answer for the root, as Lc0 reads it back from its
   * NN cache: orig_* and the visits' KL divergence from the priors; NaN
   * and 0 when the cache no longer holds it, as Lc0's. */
  cf_search_net_eval ev;
  const bool cached = cf_search_cached_eval(search, game, &ev);
  r->orig_q = cached ? ev.wl : NAN;
  r->orig_d = cached ? ev.d : NAN;
  r->orig_m = cached ? ev.m : NAN;
  r->policy_kld = cached ? policy_kld(st, n, total, &ev) : 0;
  r->visits = (uint32_t)res->info.visits;
  r->best_idx = index_of(best ? best->move : res->info.best, black, transform);
  r->played_idx = index_of(played, black, transform);
  r->q_st = 0;
}

void sp_records_finish(cf_v6 *r, int n, cf_game_result result, bool adjudicated) {
  if (n <= 0) return;
  float plies_left = (isnan(r[n - 1].best_m) ? 0 : r[n - 1].best_m) + (float)(n - 1);
  for (int i = 0; i < n; i++) {
    const bool black = cf_v6_black_to_move(&r[i]);
    if (result == CF_RESULT_WHITE_WINS || result == CF_RESULT_BLACK_WINS) {
      const bool white_won = result == CF_RESULT_WHITE_WINS;
      r[i].result_q = white_won != black ? 1.0f : -1.0f;
      r[i].result_d = 0;
    } else {
      r[i].result_q = 0;
      r[i].result_d = 1;
    }
    if (adjudicated) r[i].invariance_info |= CF_V6_ADJUDICATED;
    if (adjudicated && result == CF_RESULT_ONGOING) r[i].invariance_info |= CF_V6_MAX_LENGTH;
    r[i].plies_left = plies_left;
    plies_left -= 1.0f;
  }
}
