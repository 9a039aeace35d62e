/* cf_policy_softmax.c: move probabilities from raw logits, with Lc0's
 * policy temperature (probabilities ~ exp(logit / T)). */
#include <math.h>

#include "policy_head/cf_policy_head.h"

void cf_policy_softmax(const float *logits, int n, float temperature, float *probs) {
  if (n <= 0) return;
  float mx = logits[0];
  for (int i = 1; i < n; i++) mx = logits[i] > mx ? logits[i] : mx;
  if (mx == -INFINITY) { /* no move has a slot: uniform */
    for (int i = 0; i < n; i++) probs[i] = 1.0f / (float)n;
    return;
  }
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    probs[i] = expf((logits[i] - mx) / temperature);
    sum += probs[i];
  }
  for (int i = 0; i < n; i++) probs[i] = (float)(probs[i] / sum);
}
