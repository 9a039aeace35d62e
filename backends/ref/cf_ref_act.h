/* cf_ref_act.h: the activation functions, as NETWORK.md section 5 defines
 * them, one scalar at a time. */
#ifndef CF_REF_ACT_H
#define CF_REF_ACT_H

#include <math.h>

#include "backends/cf_backend.h"

static inline float cf_ref_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* mish(x) = x tanh(softplus(x)) = x tanh(log(1 + e^x)). With n = e^x (e^x + 2)
 * that is x n / (n + 2): one exp instead of exp, log and tanh (+25% evals/s
 * on lc0-smolgen-relu2, +85% on cf-rpe-rms, which uses mish everywhere).
 * Past x = 20, tanh(...) is 1 in float and n would overflow. */
static inline float cf_ref_mish(float x) {
  if (x > 20.0f) return x;
  float e = expf(x), n = e * (e + 2.0f);
  return x * n / (n + 2.0f);
}

static inline float cf_ref_selu(float x) {
  const float scale = 1.0507009873554805f, alpha = 1.6732632423543772f;
  return scale * (x > 0.0f ? x : alpha * (expf(x) - 1.0f));
}

static inline float cf_ref_activate(cf_op_act act, float x) {
  switch (act) {
    case CF_OP_ACT_MISH: return cf_ref_mish(x);
    case CF_OP_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case CF_OP_ACT_NONE: return x;
    case CF_OP_ACT_TANH: return tanhf(x);
    case CF_OP_ACT_SIGMOID: return cf_ref_sigmoid(x);
    case CF_OP_ACT_SELU: return cf_ref_selu(x);
    case CF_OP_ACT_SWISH: return x * cf_ref_sigmoid(x);
    case CF_OP_ACT_RELU2: return x > 0.0f ? x * x : 0.0f;
  }
  return x;
}

#endif /* CF_REF_ACT_H */
