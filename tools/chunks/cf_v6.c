/* cf_v6.c: V6 training records to and from their 8,356 bytes (cf_v6.h).
 * Every multi-byte field is little-endian, as Lc0 writes it on the
 * machines it runs on. */
#include "tools/chunks/cf_v6.h"

#include <string.h>

#include "net/cf_net_position.h"

typedef struct cursor {
  uint8_t *w;       /* packing */
  const uint8_t *r; /* unpacking */
  int at;
} cursor;

static void put(cursor *c, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) c->w[c->at++] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(cursor *c, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)c->r[c->at++] << (8 * i);
  return v;
}

static void put_f(cursor *c, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  put(c, u, 4);
}

static float get_f(cursor *c) {
  const uint32_t u = (uint32_t)get(c, 4);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* The fields after the planes and the eight bytes: in layout order. */
#define V6_TAIL_FLOATS(X)                                                                          \
  X(root_q) X(best_q) X(root_d) X(best_d) X(root_m) X(best_m) X(plies_left) X(result_q)           \
  X(result_d) X(played_q) X(played_d) X(played_m) X(orig_q) X(orig_d) X(orig_m)

void cf_v6_pack(const cf_v6 *r, uint8_t out[CF_V6_BYTES]) {
  cursor c = {.w = out};
  put(&c, r->version, 4);
  put(&c, r->input_format, 4);
  for (int i = 0; i < CF_V6_POLICY; i++) put_f(&c, r->probabilities[i]);
  for (int i = 0; i < CF_V6_PLANES; i++) put(&c, r->planes[i], 8);
  const uint8_t bytes[8] = {r->castling_us_ooo, r->castling_us_oo, r->castling_them_ooo,
                            r->castling_them_oo, r->side_to_move_or_enpassant, r->rule50_count,
                            r->invariance_info, r->dummy};
  for (int i = 0; i < 8; i++) put(&c, bytes[i], 1);
#define PUT_F(f) put_f(&c, r->f);
  V6_TAIL_FLOATS(PUT_F)
#undef PUT_F
  put(&c, r->visits, 4);
  put(&c, r->played_idx, 2);
  put(&c, r->best_idx, 2);
  put_f(&c, r->policy_kld);
  put_f(&c, r->q_st);
}

void cf_v6_unpack(const uint8_t in[CF_V6_BYTES], cf_v6 *r) {
  cursor c = {.r = in};
  r->version = (uint32_t)get(&c, 4);
  r->input_format = (uint32_t)get(&c, 4);
  for (int i = 0; i < CF_V6_POLICY; i++) r->probabilities[i] = get_f(&c);
  for (int i = 0; i < CF_V6_PLANES; i++) r->planes[i] = get(&c, 8);
  uint8_t *bytes[8] = {&r->castling_us_ooo, &r->castling_us_oo, &r->castling_them_ooo,
                       &r->castling_them_oo, &r->side_to_move_or_enpassant, &r->rule50_count,
                       &r->invariance_info, &r->dummy};
  for (int i = 0; i < 8; i++) *bytes[i] = (uint8_t)get(&c, 1);
#define GET_F(f) r->f = get_f(&c);
  V6_TAIL_FLOATS(GET_F)
#undef GET_F
  r->visits = (uint32_t)get(&c, 4);
  r->played_idx = (uint16_t)get(&c, 2);
  r->best_idx = (uint16_t)get(&c, 2);
  r->policy_kld = get_f(&c);
  r->q_st = get_f(&c);
}

bool cf_v6_black_to_move(const cf_v6 *r) {
  if (cf_input_is_canonical((int)r->input_format))
    return (r->invariance_info & CF_V6_BLACK_TO_MOVE) != 0;
  return r->side_to_move_or_enpassant != 0;
}

int cf_v6_white_result(const cf_v6 *r) {
  const int side = cf_v6_black_to_move(r) ? -1 : 1;
  if (r->result_q == 1.0f) return side;
  if (r->result_q == -1.0f) return -side;
  if (r->result_q == 0.0f && r->result_d == 1.0f) return 0;
  return 2;
}
