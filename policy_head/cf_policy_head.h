/* cf_policy_head.h: the attention policy heads (NETWORK.md section 6).
 *
 *   P0[t] = act(W_pe Y[t] + b_pe)                 shared embedding, width de
 *   Qp, Kp = P0 Wq^T + bq, P0 Wk^T + bk           per head, width dp
 *   L[f][t] = Qp[f] . Kp[t] / sqrt(dp)            4096 from-to logits
 *   o[r][j] = Kp[56 + j] . ppo[r]                 promotion offsets (unscaled)
 *   promotion i -> j into r in {q, r, b}: L[48+i][56+j] + o[r][j] + o[n][j]
 *
 * The heavy part runs on the backend; the per-move gather runs on the host
 * after one download per head. */
#ifndef CF_POLICY_HEAD_H
#define CF_POLICY_HEAD_H

#include "backends/cf_backend.h"
#include "common/cf_status.h"
#include "policy_head/cf_policy_move.h"
#include "weights/cf_weights.h"

typedef struct cf_policy cf_policy;

/* Activation bits (1u << cf_op_act) the policy heads need. */
unsigned cf_policy_requirements(const cf_net_arch *arch);

/* Uploads the shared embedding and the heads in head_mask (bit 1 <<
 * cf_policy_head_id; each must exist in the net) and allocates their
 * activations for max_batch positions. */
cf_status cf_policy_create(const cf_weights *w, cf_backend *be, int max_batch, unsigned head_mask,
                           cf_policy **out, cf_error *err);

/* Accepts NULL. */
void cf_policy_free(cf_policy *p);

/* Runs every enabled head on tokens [batch*64][d] (backend memory) and
 * brings the 64x64 logits and promotion offsets to the host. Allocates
 * nothing. */
void cf_policy_forward(cf_policy *p, int batch, const float *tokens);

/* After cf_policy_forward: the raw logits of the n moves of position b
 * (b < batch) under head (which must be enabled). A move with no policy
 * slot gets -INFINITY. */
void cf_policy_gather(const cf_policy *p, cf_policy_head_id head, int b,
                      const cf_policy_move *moves, int n, bool black_to_move, int transform,
                      float *logits);

/* After cf_policy_forward: Lc0's full 1858 vector of position b under head. */
void cf_policy_gather_1858(const cf_policy *p, cf_policy_head_id head, int b, float *out1858);

/* Lc0's default PolicyTemperature. */
#define CF_POLICY_DEFAULT_TEMPERATURE 1.359f

/* probs[n] = softmax(logits[n] / temperature); temperature > 0. Safe with
 * -INFINITY entries; n == 0 does nothing. probs may alias logits. */
void cf_policy_softmax(const float *logits, int n, float temperature, float *probs);

#endif /* CF_POLICY_HEAD_H */
