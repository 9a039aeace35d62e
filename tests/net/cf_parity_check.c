/* cf_parity_check.c: field-by-field comparison with the parity truth. */
#include "tests/net/cf_parity_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double cf_parity_max_err = 0.0;

void cf_parity_bind_output(const cf_net *net, cf_net_output *o, cf_parity_out *buf) {
  const cf_net_info *info = cf_net_get_info(net);
  memset(o, 0, sizeof *o);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    o->policy[h] = (info->policy_heads >> h & 1) ? buf->policy[h] : NULL;
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    o->value_cat[h] = info->value_cat[h] > 0 ? buf->cat[h] : NULL;
}

/* One number within tolerance; reports the case and field on failure. */
static void near(cf_test *t, const char *tag, const cf_parity_case *c, const char *field,
                 double got, double want) {
  double e = fabs(got - want);
  if (!(e <= CF_PARITY_TOL) || isnan(got)) {
    char m[256];
    snprintf(m, sizeof m, "%s %s %s: got %.9g, expected %.9g", tag, c->id, field, got, want);
    cf_test_report(t, 0, __FILE__, __LINE__, m);
  } else {
    cf_test_report(t, 1, __FILE__, __LINE__, field);
  }
  if (e > cf_parity_max_err && !isnan(e)) cf_parity_max_err = e;
}

void cf_parity_check_output(cf_test *t, const char *tag, const cf_parity_case *c, const cf_net *net,
                            const cf_net_output *o, const int *move_case, int n) {
  const cf_net_info *info = cf_net_get_info(net);
  char field[96];
  CHECK_INT_EQ(o->transform, c->transform);
  for (int i = 0; i < 3; i++) {
    snprintf(field, sizeof field, "wdl[%d]", i);
    near(t, tag, c, field, o->wdl[i], c->wdl[i]);
  }
  near(t, tag, c, "q", o->q, c->q);
  CHECK(info->has_moves_left == c->has_moves_left);
  if (c->has_moves_left)
    near(t, tag, c, "moves_left", o->moves_left, c->moves_left);
  else
    CHECK(isnan(o->moves_left));
  for (int h = CF_VALUE_Q; h < CF_VALUE_HEAD_COUNT; h++) {
    const cf_parity_value *v = &c->value[h];
    CHECK(v->present == ((info->value_heads >> h & 1) != 0));
    if (!v->present) continue;
    const cf_value_result *r = &o->value[h];
    snprintf(field, sizeof field, "value_heads.%s.q", cf_value_head_name((cf_value_head_id)h));
    near(t, tag, c, field, r->q, v->q);
    CHECK(r->has_err == v->has_err);
    if (v->has_err) {
      snprintf(field, sizeof field, "value_heads.%s.err", cf_value_head_name((cf_value_head_id)h));
      near(t, tag, c, field, r->err, v->err);
    }
    CHECK_INT_EQ(r->n_cat, v->n_cat);
    for (int k = 0; k < v->n_cat && k < r->n_cat; k++) {
      snprintf(field, sizeof field, "value_heads.%s.cat_logits[%d]",
               cf_value_head_name((cf_value_head_id)h), k);
      near(t, tag, c, field, o->value_cat[h][k], v->cat[k]);
    }
  }
  CHECK_INT_EQ(n, c->n_legal);
  for (int head = 0; head < CF_POLICY_HEAD_COUNT; head++) {
    if (!(c->policy_heads >> head & 1)) continue;
    if (!CHECK(o->policy[head] != NULL)) continue;
    for (int i = 0; i < n; i++) {
      const cf_parity_move *m = &c->legal[move_case[i]];
      snprintf(field, sizeof field, "policy.%s.%s", cf_policy_head_name((cf_policy_head_id)head),
               m->uci);
      near(t, tag, c, field, o->policy[head][i], m->logit[head]);
    }
  }
}

bool cf_parity_move_from_uci(const char *uci, int king_sq, cf_policy_move *m) {
  size_t len = strlen(uci);
  if (len < 4 || len > 5) return false;
  if (uci[0] < 'a' || uci[0] > 'h' || uci[1] < '1' || uci[1] > '8' || uci[2] < 'a' ||
      uci[2] > 'h' || uci[3] < '1' || uci[3] > '8')
    return false;
  int from = (uci[1] - '1') * 8 + (uci[0] - 'a'), to = (uci[3] - '1') * 8 + (uci[2] - 'a');
  m->from = (uint8_t)from;
  m->to = (uint8_t)to;
  m->promo = CF_PROMO_NONE;
  if (len == 5) {
    const char *p = strchr("qrbn", uci[4]);
    if (!p) return false;
    m->promo = (uint8_t)(CF_PROMO_QUEEN + (p - "qrbn"));
  }
  /* e1g1 -> e1h1, e1c1 -> e1a1 */
  if (from == king_sq && from / 8 == to / 8 && (to - from == 2 || from - to == 2))
    m->to = (uint8_t)(to > from ? from / 8 * 8 + 7 : from / 8 * 8);
  return true;
}

bool cf_parity_black_to_move(const cf_parity_case *c) {
  const char *side = strchr(c->fen, ' ');
  bool black = side && side[1] == 'b';
  return (c->n_played % 2) ? !black : black;
}

void cf_parity_all_heads(const cf_weights *w, cf_net_options *opts) {
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (w->arch.has_policy[h]) opts->policy_heads |= 1u << h;
  for (int h = CF_VALUE_Q; h < CF_VALUE_HEAD_COUNT; h++)
    if (w->arch.has_value[h]) opts->value_heads |= 1u << h;
}

/* The real square of the mover's king, from the planes (castling cases
 * have transform 0, so the planes are untransformed there). */
static int king_square(const cf_parity_case *c, bool black) {
  uint64_t k = c->planes.mask[5];
  if (!k) return -1;
  int sq = __builtin_ctzll(k);
  return black ? sq ^ 56 : sq;
}

bool cf_parity_planes_request(const cf_parity_case *c, const cf_net *net,
                              cf_parity_planes_case *p, cf_net_request *req, cf_net_output *out) {
  bool black = cf_parity_black_to_move(c), ok = true;
  for (int k = 0; k < c->n_legal; k++) {
    ok &= cf_parity_move_from_uci(c->legal[k].uci, king_square(c, black), &p->moves[k]);
    p->move_case[k] = k;
  }
  *req = (cf_net_request){.moves = p->moves,
                          .n_moves = c->n_legal,
                          .planes = &c->planes,
                          .transform = c->transform,
                          .black_to_move = black};
  cf_parity_bind_output(net, out, &p->buf);
  return ok;
}

bool cf_parity_planes_run_net(const char *name, cf_net_options opts, int batch,
                              cf_parity_planes_run *run, char *msg, int msg_size) {
  *run = (cf_parity_planes_run){0};
  cf_weights *w = NULL;
  if (!cf_parity_load_net(name, &run->cases, &run->n, &w, msg, msg_size)) return false;
  const int n = run->n;
  run->step = batch > 0 ? batch : n;
  opts.max_batch = run->step;
  cf_parity_all_heads(w, &opts);
  cf_error err = {0};
  cf_status st = cf_net_create(w, &opts, &run->net, &err);
  cf_weights_free(w);
  if (st != CF_OK) {
    snprintf(msg, (size_t)msg_size, "%s: %s", name, err.msg);
    return false;
  }
  run->prep = calloc((size_t)n, sizeof *run->prep);
  run->req = calloc((size_t)n, sizeof *run->req);
  run->out = calloc((size_t)n, sizeof *run->out);
  if (!run->prep || !run->req || !run->out) {
    snprintf(msg, (size_t)msg_size, "out of memory");
    return false;
  }
  for (int i = 0; i < n; i++)
    if (!cf_parity_planes_request(&run->cases[i], run->net, &run->prep[i], &run->req[i],
                                  &run->out[i])) {
      snprintf(msg, (size_t)msg_size, "%s %s: a legal move does not convert", name,
               run->cases[i].id);
      return false;
    }
  for (int i = 0; i < n; i += run->step) {
    const int m = n - i < run->step ? n - i : run->step;
    if (cf_net_eval(run->net, m, run->req + i, run->out + i, &err) != CF_OK) {
      snprintf(msg, (size_t)msg_size, "%s: %s", name, err.msg);
      return false;
    }
  }
  return true;
}

void cf_parity_planes_run_free(cf_parity_planes_run *run) {
  cf_net_free(run->net);
  free(run->prep);
  free(run->req);
  free(run->out);
  free(run->cases);
  *run = (cf_parity_planes_run){0};
}
