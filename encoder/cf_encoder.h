/* cf_encoder.h: the network body: input embedding and the stack of
 * post-norm (DeepNorm) transformer encoder layers with relative position
 * attention and smolgen (NETWORK.md sections 4 and 5).
 *
 * Written once against the backend ops (backends/cf_backend.h); every
 * backend runs this same code. */
#ifndef CF_ENCODER_H
#define CF_ENCODER_H

#include "backends/cf_backend.h"
#include "common/cf_status.h"
#include "encoder/cf_planes.h"
#include "weights/cf_weights.h"

typedef struct cf_encoder cf_encoder;

/* The CF_FEAT_* bits and activation bits (1u << cf_op_act) the body of this
 * network needs from a backend. */
void cf_encoder_requirements(const cf_net_arch *arch, unsigned *features, unsigned *activations);

/* Uploads the body's weights to be and allocates the activations for up to
 * max_batch positions. w is not retained. */
cf_status cf_encoder_create(const cf_weights *w, cf_backend *be, int max_batch, cf_encoder **out,
                            cf_error *err);

/* Accepts NULL. */
void cf_encoder_free(cf_encoder *enc);

/* Embeds planes[batch] (batch <= max_batch) and runs every layer. Returns
 * the final tokens in backend memory, [batch*64][d], valid until the next
 * call. Allocates nothing. */
const float *cf_encoder_forward(cf_encoder *enc, int batch, const cf_planes *planes);

/* DeepNorm's residual weight alpha = (2L)^(-1/4). */
float cf_encoder_alpha(int layers);

/* Epsilon of the body's norms (NETWORK.md section 5): RMSNorm 1e-5;
 * LayerNorm 1e-6 for nets Lc0 runs itself (no RPE, no PE_DENSE), else 1e-3. */
float cf_encoder_norm_eps(const cf_net_arch *arch, cf_norm_kind kind);

/* Smolgen's own LayerNorms always use 1e-3. */
#define CF_SMOLGEN_NORM_EPS 1e-3f

#endif /* CF_ENCODER_H */
