/* cf_api_eval.c: libcformer's positions: evaluation, input planes and
 * choosing a move with an agent (cformer.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_agent.h"
#include "engine/cf_net_input.h"
#include "lib/cf_api_internal.h"
#include "net/cf_net_planes.h"

cf_status cf_api_replay(const cformer_position *p, int index, cf_game *game, cf_error *err) {
  if (!p) return cf_error_set(err, CF_ERR_ARG, "position %d is NULL", index);
  if (p->n_moves < 0 || (p->n_moves > 0 && !p->moves))
    return cf_error_set(err, CF_ERR_ARG, "position %d: %d moves but no move list", index,
                        p->n_moves);
  cf_status st = cf_game_init_fen(game, p->fen ? p->fen : CF_FEN_STARTPOS, err);
  if (st != CF_OK) {
    cf_error_prefix(err, "position %d", index);
    return st;
  }
  for (int i = 0; i < p->n_moves; i++) {
    st = p->moves[i] ? cf_game_push_uci(game, p->moves[i], err)
                     : cf_error_set(err, CF_ERR_ARG, "move %d is NULL", i + 1);
    if (st != CF_OK) {
      cf_error_prefix(err, "position %d, move %d", index, i + 1);
      cf_game_free(game);
      return st;
    }
  }
  return CF_OK;
}

/* What one position needs while its batch is evaluated. */
typedef struct eval_slot {
  cf_net_position position;
  cf_policy_move policy_moves[CF_MAX_MOVES];
  cf_move moves[CF_MAX_MOVES];
  float logits[CF_MAX_MOVES];
  int n, chess960;
} eval_slot;

static int by_logit_desc(const void *a, const void *b) {
  const cformer_move_prob *x = a, *y = b;
  return (x->logit < y->logit) - (x->logit > y->logit);
}

/* Fills the public result of one slot: softmax(logit / t) over the legal
 * moves, most probable first (qsort is not stable; equal logits are rare
 * and their order is then unspecified). */
static void fill_eval(const eval_slot *s, const cf_net_output *o, float t, cformer_eval *out) {
  memcpy(out->wdl, o->wdl, sizeof out->wdl);
  out->q = o->q;
  out->moves_left = o->moves_left;
  out->n_moves = s->n;
  if (s->n == 0) return;
  float mx = s->logits[0];
  for (int i = 1; i < s->n; i++) mx = s->logits[i] > mx ? s->logits[i] : mx;
  double sum = 0;
  for (int i = 0; i < s->n; i++) sum += exp((double)(s->logits[i] - mx) / t);
  for (int i = 0; i < s->n; i++) {
    cformer_move_prob *m = &out->policy[i];
    cf_move_write_uci(s->moves[i], s->chess960, m->move);
    m->logit = s->logits[i];
    m->probability = (float)(exp((double)(s->logits[i] - mx) / t) / sum);
  }
  qsort(out->policy, (size_t)s->n, sizeof out->policy[0], by_logit_desc);
}

cformer_status cformer_evaluate(cformer_net *net, int n, const cformer_position *positions,
                                float temperature, cformer_eval *out, cformer_error *err) {
  if (!net) return cf_api_arg(err, "cformer_evaluate: net is NULL");
  if (n < 0 || (n > 0 && (!positions || !out)))
    return cf_api_arg(err, "cformer_evaluate: bad count or NULL positions/out");
  if (!(temperature >= 0) || isinf(temperature))
    return cf_api_arg(err, "cformer_evaluate: temperature must be a number >= 0");
  if (n == 0) return cf_api_ok(err);
  float t = temperature > 0 ? temperature : 1.0f;
  cf_error e = {0};
  eval_slot *slots = calloc((size_t)n, sizeof *slots);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  cf_net_output *o = calloc((size_t)n, sizeof *o);
  cf_status st = slots && req && o ? CF_OK : cf_error_set(&e, CF_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n && st == CF_OK; i++) {
    cf_game game;
    st = cf_api_replay(&positions[i], i, &game, &e);
    if (st != CF_OK) break;
    eval_slot *s = &slots[i];
    const cf_position *pos = cf_game_position(&game);
    cf_engine_net_position(&game, net->info.input_format, &s->position);
    s->n = cf_engine_legal_policy_moves(pos, s->moves, s->policy_moves);
    s->chess960 = pos->chess960;
    cf_game_free(&game);
    req[i] = (cf_net_request){.position = &s->position, .moves = s->policy_moves, .n_moves = s->n};
    o[i].policy[CF_POLICY_VANILLA] = s->logits;
  }
  if (st == CF_OK) st = cf_net_eval(net->net, n, req, o, &e);
  if (st == CF_OK)
    for (int i = 0; i < n; i++) fill_eval(&slots[i], &o[i], t, &out[i]);
  free(slots);
  free(req);
  free(o);
  return st == CF_OK ? cf_api_ok(err) : cf_api_fail(err, st, &e);
}

void cf_api_write_planes(const cf_planes *p, float *out) {
  for (int j = 0; j < CF_PLANE_COUNT; j++)
    for (int sq = 0; sq < CFORMER_SQUARES; sq++)
      out[j * CFORMER_SQUARES + sq] = (p->mask[j] >> sq & 1) ? p->value[j] : 0.0f;
}

cformer_status cformer_planes(const cformer_net *net, const cformer_position *position,
                              float planes[CFORMER_PLANES * CFORMER_SQUARES], int *transform,
                              cformer_error *err) {
  if (!net || !planes) return cf_api_arg(err, "cformer_planes: net or planes is NULL");
  cf_error e = {0};
  cf_game game;
  cf_status st = cf_api_replay(position, 0, &game, &e);
  if (st != CF_OK) return cf_api_fail(err, st, &e);
  cf_net_position pos;
  cf_engine_net_position(&game, net->info.input_format, &pos);
  cf_game_free(&game);
  cf_planes p;
  int tr = cf_net_encode_planes(&pos, net->fill, &p);
  cf_api_write_planes(&p, planes);
  if (transform) *transform = tr;
  return cf_api_ok(err);
}

int cformer_agent_count(void) { return cf_agent_count(); }

const char *cformer_agent_name(int i) {
  return i >= 0 && i < cf_agent_count() ? cf_agent_at(i)->name : NULL;
}

cformer_status cformer_choose(cformer_net *net, const cformer_position *position,
                              const cformer_choose_options *opts, cformer_choice *out,
                              cformer_error *err) {
  if (!net || !out) return cf_api_arg(err, "cformer_choose: net or out is NULL");
  cformer_choose_options o = opts ? *opts : (cformer_choose_options){0};
  const char *name = o.agent && *o.agent ? o.agent : CF_AGENT_DEFAULT;
  const cf_agent_desc *agent = cf_agent_find(name);
  cf_error e = {0};
  if (!agent) {
    char known[256] = "";
    for (int i = 0; i < cf_agent_count(); i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
               cf_agent_at(i)->name);
    cf_error_set(&e, CF_ERR_ARG, "unknown agent '%s' (known: %s)", name, known);
    return cf_api_fail(err, CF_ERR_ARG, &e);
  }
  if (o.nodes < 0 || !(o.movetime >= 0) || isinf(o.movetime) || !(o.temperature >= 0) ||
      isinf(o.temperature))
    return cf_api_arg(err, "cformer_choose: nodes, movetime and temperature must be >= 0");
  cf_game game;
  cf_status st = cf_api_replay(position, 0, &game, &e);
  if (st != CF_OK) return cf_api_fail(err, st, &e);
  cf_agent_request req = {
      .net = net->net,
      .game = &game,
      .max_evals = o.nodes,
      .deadline = o.movetime > 0 ? cf_agent_now() + o.movetime : 0,
      .policy_temperature = o.temperature,
  };
  cf_agent_result res;
  st = agent->choose(&req, &res, &e);
  int chess960 = cf_game_position(&game)->chess960;
  cf_game_free(&game);
  if (st != CF_OK) return cf_api_fail(err, st, &e);
  memset(out, 0, sizeof *out);
  cf_move_write_uci(res.best, chess960, out->move);
  if (res.ponder != CF_MOVE_NONE) cf_move_write_uci(res.ponder, chess960, out->ponder);
  out->q = res.q;
  memcpy(out->wdl, res.wdl, sizeof out->wdl);
  out->mate = res.mate;
  out->evaluations = res.evals;
  out->stopped = res.stopped;
  return cf_api_ok(err);
}
