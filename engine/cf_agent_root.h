/* cf_agent_root.h: what both agents start with: the candidate moves of the
 * current position and one network evaluation of it (policy logits of the
 * candidates, W/D/L). Internal to engine/. */
#ifndef CF_AGENT_ROOT_H
#define CF_AGENT_ROOT_H

#include "engine/cf_agent.h"
#include "net/cf_net_position.h"
#include "policy_head/cf_policy_move.h"

typedef struct cf_agent_root {
  int n; /* candidates: legal moves, narrowed to req->allowed when any of those is legal */
  cf_move moves[CF_MAX_MOVES];
  cf_policy_move policy_moves[CF_MAX_MOVES];
  float logits[CF_MAX_MOVES]; /* raw policy logits, candidates only */
  float prob[CF_MAX_MOVES];   /* softmax(logits / temperature) over the candidates */
  cf_net_position position;
  cf_net_output out;          /* the root's value (wdl, q) */
} cf_agent_root;

/* Finds the candidates and, if there are any, evaluates the root (one
 * network evaluation). With no candidates (mate, stalemate) root->n is 0,
 * nothing is evaluated and root->out holds the game's result: W/D/L 0/0/1
 * and q -1 when mated, 0/1/0 and q 0 at stalemate. */
cf_status cf_agent_eval_root(const cf_agent_request *req, cf_agent_root *root, cf_error *err);

/* Index of the candidate with the highest logit (the first on ties). */
int cf_agent_root_best(const cf_agent_root *root);

/* Candidate indices by logit, highest first (equal logits keep their order). */
void cf_agent_policy_order(const cf_agent_root *root, int *order);

/* Starts a result for the root: evals, n_legal, best = the policy's
 * choice with the root's value, and moves[] = every candidate in policy
 * order at the root's value; with no candidate, no move and the game's
 * result as q and wdl. */
void cf_agent_result_from_root(const cf_agent_root *root, cf_agent_result *out);

#endif /* CF_AGENT_ROOT_H */
