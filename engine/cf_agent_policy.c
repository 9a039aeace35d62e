/* cf_agent_policy.c: the `policy` agent: one evaluation, the legal move with
 * the highest policy logit. Its score is the root's own value. */
#include "engine/cf_agent_root.h"

static cf_status choose(const cf_agent_request *req, cf_agent_result *out, cf_error *err) {
  cf_agent_root root;
  CF_TRY(cf_agent_eval_root(req, &root, err));
  cf_agent_result_from_root(&root, out);
  return CF_OK;
}

const cf_agent_desc cf_agent_policy_desc = {
    .name = "policy",
    .summary = "one evaluation; plays the move with the highest policy logit",
    .choose = choose,
};
