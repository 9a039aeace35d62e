/* cf_api_arrays.c: libcformer's evaluation for numerical code: every
 * output of a batch in flat arrays, the whole 1858-entry policy vector with
 * a legal-move mask, and the input planes (cformer.h).
 *
 * The network is asked for the logits of all 1858 entries as if each were a
 * move: the entry's squares (mover's frame, after the canonical transform)
 * are mapped back to real squares, so the policy head's ordinary per-move
 * gather returns exactly the logit a legal move gets in cformer_evaluate. */
#include <stdlib.h>
#include <string.h>

#include "chess/cf_move.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_net_input.h"
#include "lib/cf_api_internal.h"
#include "policy_head/cf_policy_map.h"
#include "policy_head/cf_policy_move.h"

_Static_assert(CFORMER_POLICY_SIZE == CF_POLICY_1858, "policy size");

/* real[s]: the real square that cf_policy_square maps to s for this side
 * to move and transform (it is a bijection of the 64 squares). */
static void inverse_squares(bool black_to_move, int transform, int real[64]) {
  for (int sq = 0; sq < 64; sq++) real[cf_policy_square(sq, black_to_move, transform)] = sq;
}

/* Entry i of the 1858 vector as a move in real squares, real being
 * inverse_squares of the position's side to move and transform. False when
 * the entry's text is not a move (never, for a valid index). */
static bool entry_move(int i, const int real[64], cf_policy_move *out) {
  char uci[6];
  if (!cf_policy_index_uci(i, uci)) return false;
  int from = (uci[0] - 'a') + 8 * (uci[1] - '1'), to = (uci[2] - 'a') + 8 * (uci[3] - '1');
  if (from < 0 || from > 63 || to < 0 || to > 63) return false;
  cf_promo promo = CF_PROMO_NONE;
  switch (uci[4]) {
    case 0: break;
    case 'q': promo = CF_PROMO_QUEEN; break;
    case 'r': promo = CF_PROMO_ROOK; break;
    case 'b': promo = CF_PROMO_BISHOP; break;
    case 'n': promo = CF_PROMO_KNIGHT; break;
    default: return false;
  }
  *out = (cf_policy_move){.from = (uint8_t)real[from], .to = (uint8_t)real[to],
                          .promo = (uint8_t)promo};
  return true;
}

/* All 1858 entries as moves for one (side to move, transform): 16 tables,
 * built on first use by each call that needs them. */
typedef struct entry_tables {
  cf_policy_move *moves[2][8]; /* [black_to_move][transform], NULL until built */
} entry_tables;

static const cf_policy_move *entries_for(entry_tables *t, bool btm, int transform,
                                         cf_error *err) {
  if (transform < 0 || transform > 7) {
    cf_error_set(err, CF_ERR_INTERNAL, "transform %d out of range", transform);
    return NULL;
  }
  cf_policy_move **slot = &t->moves[btm][transform];
  if (*slot) return *slot;
  cf_policy_move *m = malloc(CF_POLICY_1858 * sizeof *m);
  if (!m) {
    cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    return NULL;
  }
  int real[64];
  inverse_squares(btm, transform, real);
  for (int i = 0; i < CF_POLICY_1858; i++)
    if (!entry_move(i, real, &m[i])) {
      free(m);
      cf_error_set(err, CF_ERR_INTERNAL, "policy entry %d has no move", i);
      return NULL;
    }
  return *slot = m;
}

static void free_tables(entry_tables *t) {
  for (int b = 0; b < 2; b++)
    for (int tr = 0; tr < 8; tr++) free(t->moves[b][tr]);
}

cformer_status cformer_policy_move(int index, int black_to_move, int transform, char move[6],
                                   cformer_error *err) {
  if (!move) return cf_api_arg(err, "cformer_policy_move: move is NULL");
  if (index < 0 || index >= CF_POLICY_1858 || transform < 0 || transform > 7)
    return cf_api_arg(err, "cformer_policy_move: index (0..1857) or transform (0..7) out of range");
  int real[64];
  inverse_squares(black_to_move != 0, transform, real);
  cf_policy_move m;
  if (!entry_move(index, real, &m))
    return cf_api_arg(err, "cformer_policy_move: not a policy entry");
  static const cf_piece_type piece[] = {CF_PAWN, CF_QUEEN, CF_ROOK, CF_BISHOP, CF_KNIGHT};
  cf_move_write_uci(m.promo ? cf_move_make_promotion(m.from, m.to, piece[m.promo])
                            : cf_move_make(m.from, m.to),
                    false, move);
  return cf_api_ok(err);
}

/* What one position needs while its batch is evaluated. */
typedef struct array_slot {
  cf_net_position position;
  cf_planes planes;
  int transform;
  bool black_to_move;
} array_slot;

/* Replays position i and encodes it; with indices, also lists its legal
 * moves with their 1858 entries. */
static cf_status prepare(const cformer_net *net, const cformer_position *p, int i, array_slot *s,
                         cformer_move_index *indices, int *n_indices, cf_error *err) {
  cf_game game;
  CF_TRY(cf_api_replay(p, i, &game, err));
  const cf_position *pos = cf_game_position(&game);
  cf_move moves[CF_MAX_MOVES];
  cf_policy_move pm[CF_MAX_MOVES];
  int n = cf_engine_legal_policy_moves(pos, moves, pm);
  cf_engine_net_position(&game, net->info.input_format, &s->position);
  s->transform = cf_net_encode_planes(&s->position, net->fill, &s->planes);
  s->black_to_move = s->position.boards[0].black_to_move;
  if (indices) {
    *n_indices = n;
    for (int k = 0; k < n; k++) {
      indices[k].index = cf_policy_move_index(pm[k], s->black_to_move, s->transform);
      cf_move_write_uci(moves[k], pos->chess960, indices[k].move);
    }
  }
  cf_game_free(&game);
  return CF_OK;
}

cformer_status cformer_policy_indices(const cformer_net *net, const cformer_position *position,
                                      cformer_move_index out[CFORMER_MAX_MOVES], int *n,
                                      cformer_error *err) {
  if (!net || !out || !n) return cf_api_arg(err, "cformer_policy_indices: net, out or n is NULL");
  *n = 0;
  cf_error e = {0};
  array_slot *s = malloc(sizeof *s);
  if (!s) return cf_api_fail(err, cf_error_set(&e, CF_ERR_NOMEM, "out of memory"), &e);
  cf_status st = prepare(net, position, 0, s, out, n, &e);
  free(s);
  return st == CF_OK ? cf_api_ok(err) : cf_api_fail(err, st, &e);
}

cformer_status cformer_evaluate_arrays(cformer_net *net, int n, const cformer_position *positions,
                                       const cformer_arrays *out, cformer_error *err) {
  if (!net) return cf_api_arg(err, "cformer_evaluate_arrays: net is NULL");
  if (n < 0 || (n > 0 && (!positions || !out)))
    return cf_api_arg(err, "cformer_evaluate_arrays: bad count or NULL positions/out");
  if (n == 0) return cf_api_ok(err);
  cf_error e = {0};
  entry_tables tables = {0};
  array_slot *slots = calloc((size_t)n, sizeof *slots);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  cf_net_output *o = calloc((size_t)n, sizeof *o);
  cf_status st = slots && req && o ? CF_OK : cf_error_set(&e, CF_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n && st == CF_OK; i++) {
    array_slot *s = &slots[i];
    cformer_move_index legal[CF_MAX_MOVES];
    int n_legal = 0;
    st = prepare(net, &positions[i], i, s, out->legal ? legal : NULL, &n_legal, &e);
    if (st != CF_OK) break;
    if (out->legal) {
      unsigned char *row = out->legal + (size_t)i * CF_POLICY_1858;
      memset(row, 0, CF_POLICY_1858);
      for (int k = 0; k < n_legal; k++)
        if (legal[k].index >= 0) row[legal[k].index] = 1;
    }
    const cf_policy_move *entries = NULL;
    if (out->policy) {
      entries = entries_for(&tables, s->black_to_move, s->transform, &e);
      if (!entries) st = e.status ? e.status : CF_ERR_INTERNAL;
    }
    /* The planes just made go in as they are, with their transform, so the
     * entries' squares and the net's input agree by construction. */
    req[i] = (cf_net_request){.planes = &s->planes, .transform = s->transform,
                              .black_to_move = s->black_to_move, .moves = entries,
                              .n_moves = entries ? CF_POLICY_1858 : 0};
    o[i].policy[CF_POLICY_VANILLA] = out->policy ? out->policy + (size_t)i * CF_POLICY_1858 : NULL;
  }
  if (st == CF_OK) st = cf_net_eval(net->net, n, req, o, &e);
  if (st == CF_OK)
    for (int i = 0; i < n; i++) {
      if (out->wdl) memcpy(out->wdl + 3 * (size_t)i, o[i].wdl, sizeof o[i].wdl);
      if (out->q) out->q[i] = o[i].q;
      if (out->moves_left) out->moves_left[i] = o[i].moves_left;
      if (out->transform) out->transform[i] = slots[i].transform;
      if (out->planes)
        cf_api_write_planes(&slots[i].planes,
                            out->planes + (size_t)i * CFORMER_PLANES * CFORMER_SQUARES);
    }
  free_tables(&tables);
  free(slots);
  free(req);
  free(o);
  return st == CF_OK ? cf_api_ok(err) : cf_api_fail(err, st, &e);
}
