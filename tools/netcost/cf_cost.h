/* cf_cost.h: the compute cost of one network evaluation (NETWORK.md section 8).
 *
 * Two figures, both per evaluation of one position (64 tokens):
 *  - paper MACs: the Chessformer paper's rule, multiply-accumulates of the
 *    weight-matrix products only: embedding (incl. preprocessing and the
 *    embedding FFN), encoder q/k/v/output projections and FFN, the policy
 *    embedding and one policy head's wq/wk. No 64x64 attention or RPE
 *    products, no value or moves-left heads. CF-6M gives 215,744,512
 *    (paper: 214M), CF-240M 12,883,853,312 (paper: 12.8B).
 *  - full FLOPs: every product an evaluation computes, at 2 FLOPs per MAC:
 *    the above plus Q.K^T and A.V, the RPE terms, smolgen, the policy logits
 *    and promotion offsets, the value and moves-left heads. Elementwise work
 *    (norms, activations, softmax, gating) is not counted: it is O(64 d) per
 *    layer against O(64 d^2) for the products.
 * Both are computed from a cf_net_arch alone, so a shape can be costed
 * without building its weights. */
#ifndef CF_COST_H
#define CF_COST_H

#include <stdint.h>

#include "weights/cf_weights.h"

/* MACs of each part of one evaluation (all of them, not only the paper's). */
typedef struct cf_cost_parts {
  uint64_t embedding;      /* preprocessing, embedding matrix, embedding FFN */
  uint64_t projections;    /* q, k, v and output projections, all layers */
  uint64_t ffn;            /* encoder FFNs, all layers */
  uint64_t attention;      /* Q.K^T and A.V, all layers */
  uint64_t rpe;            /* RPE q/k/v terms, all layers */
  uint64_t smolgen;        /* smolgen, all layers */
  uint64_t policy_embedding;
  uint64_t policy_head;    /* one head: wq, wk, logits, promotion offsets */
  uint64_t value_head;     /* one head: winner if present */
  uint64_t moves_left;
} cf_cost_parts;

typedef struct cf_cost {
  uint64_t paper_macs;
  /* Default evaluation: one policy head (vanilla if present), the winner value
   * head (else the first present) and moves-left when present. */
  uint64_t full_macs;
  uint64_t full_flops;            /* 2 * full_macs */
  /* Every head the net has (what `policy_heads`/`value_heads` all set compute). */
  uint64_t all_heads_flops;
  cf_cost_parts parts;
} cf_cost;

/* Costs an architecture as filled by cf_weights_infer_arch (or the loader).
 * Widths that make no sense (d, layers, heads <= 0) are CF_ERR_ARG. */
cf_status cf_cost_from_arch(const cf_net_arch *arch, cf_cost *out, cf_error *err);

/* Same for a loaded or built network. */
cf_status cf_cost_from_weights(const cf_weights *w, cf_cost *out, cf_error *err);

#endif /* CF_COST_H */
