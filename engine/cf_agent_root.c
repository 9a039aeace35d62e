/* cf_agent_root.c: candidates and the root evaluation shared by the agents. */
#include <math.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "engine/cf_agent_root.h"
#include "engine/cf_net_input.h"

static bool is_allowed(const cf_agent_request *req, cf_move m) {
  for (int i = 0; i < req->n_allowed; i++)
    if (req->allowed[i] == m) return true;
  return false;
}

/* Keeps the legal moves the request allows; all of them when it allows
 * none of the legal ones (UCI searchmoves naming only illegal moves). */
static void narrow(const cf_agent_request *req, cf_agent_root *root) {
  if (!req->allowed || req->n_allowed <= 0) return;
  int kept = 0;
  for (int i = 0; i < root->n; i++) kept += is_allowed(req, root->moves[i]);
  if (kept == 0) return;
  int k = 0;
  for (int i = 0; i < root->n; i++) {
    if (!is_allowed(req, root->moves[i])) continue;
    root->moves[k] = root->moves[i];
    root->policy_moves[k] = root->policy_moves[i];
    k++;
  }
  root->n = k;
}

static void softmax(const float *logits, int n, float temperature, float *out) {
  if (n <= 0) return;
  float t = temperature > 0 ? temperature : 1.0f;
  float mx = logits[0];
  for (int i = 1; i < n; i++) mx = logits[i] > mx ? logits[i] : mx;
  double sum = 0;
  for (int i = 0; i < n; i++) sum += exp((double)(logits[i] - mx) / t);
  for (int i = 0; i < n; i++) out[i] = (float)(exp((double)(logits[i] - mx) / t) / sum);
}

cf_status cf_agent_eval_root(const cf_agent_request *req, cf_agent_root *root, cf_error *err) {
  if (!req || !req->net || !req->game || req->game->count < 1)
    return cf_error_set(err, CF_ERR_ARG, "agent: no network or game");
  const cf_position *pos = cf_game_position(req->game);
  root->n = cf_engine_legal_policy_moves(pos, root->moves, root->policy_moves);
  narrow(req, root);
  if (root->n == 0) { /* the game is over: its exact result is the root's value */
    memset(&root->out, 0, sizeof root->out);
    const bool mated = cf_position_in_check(pos);
    root->out.wdl[1] = mated ? 0.0f : 1.0f;
    root->out.wdl[2] = mated ? 1.0f : 0.0f;
    root->out.q = mated ? -1.0f : 0.0f;
    root->out.moves_left = 0;
    return CF_OK;
  }
  const cf_net_info *info = cf_net_get_info(req->net);
  cf_engine_net_position(req->game, info->input_format, &root->position);
  cf_net_request r = {.position = &root->position, .moves = root->policy_moves, .n_moves = root->n};
  memset(&root->out, 0, sizeof root->out);
  root->out.policy[CF_POLICY_VANILLA] = root->logits;
  CF_TRY(cf_net_eval(req->net, 1, &r, &root->out, err));
  softmax(root->logits, root->n, req->policy_temperature, root->prob);
  return CF_OK;
}

int cf_agent_root_best(const cf_agent_root *root) {
  int best = 0;
  for (int i = 1; i < root->n; i++)
    if (root->logits[i] > root->logits[best]) best = i;
  return best;
}

void cf_agent_policy_order(const cf_agent_root *root, int *order) {
  for (int i = 0; i < root->n; i++) { /* insertion sort, stable: n <= CF_MAX_MOVES */
    int j = i;
    while (j > 0 && root->logits[order[j - 1]] < root->logits[i]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
}

void cf_agent_result_from_root(const cf_agent_root *root, cf_agent_result *out) {
  memset(out, 0, sizeof *out);
  out->n_legal = root->n;
  out->q = root->out.q; /* with no move, the game's result (cf_agent_eval_root) */
  memcpy(out->wdl, root->out.wdl, sizeof out->wdl);
  if (root->n == 0) return;
  /* Every candidate in policy order, valued at the root's own value. */
  int order[CF_MAX_MOVES];
  cf_agent_policy_order(root, order);
  for (int k = 0; k < root->n; k++) {
    cf_agent_move_stats *m = &out->moves[k];
    *m = (cf_agent_move_stats){.move = root->moves[order[k]], .reply = CF_MOVE_NONE,
                               .p = root->prob[order[k]], .proven = -2, .q = root->out.q,
                               .moves_left = NAN};
    memcpy(m->wdl, root->out.wdl, sizeof m->wdl);
  }
  out->n_moves = root->n;
  int b = cf_agent_root_best(root);
  out->evals = 1;
  out->best = root->moves[b];
  out->ponder = CF_MOVE_NONE;
  out->policy = root->prob[b];
}
