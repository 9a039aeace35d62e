/* cf_weights_decode.c: the tensors of an unpacked Weights message into
 * cf_weights (cf_weights_pb.h), each decoded to float32 and its protobuf-c
 * copy freed at once (the memory plan in cf_weights_load.c), and the note
 * on the quantisation scales the Chessformer trainer writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights/cf_weights_pb.h"

/* The Chessformer trainer's quantisation scales (cf_net.proto): read, then
 * reported in one note and not run. */
#define CF_MHA_SCALE_FIELDS(X) X(s1) X(q_s) X(k_s) X(v_s) X(s2) X(dense_s)
#define CF_FFN_SCALE_FIELDS(X) X(s1) X(dense1_s) X(s2) X(dense2_s)

/* Their names as the note lists them, in file order. */
static const char *const scale_kinds[] = {
#define KIND(f) "mha." #f,
  CF_MHA_SCALE_FIELDS(KIND)
#undef KIND
#define KIND(f) "ffn." #f,
  CF_FFN_SCALE_FIELDS(KIND)
#undef KIND
};
#define N_SCALE_KINDS (sizeof scale_kinds / sizeof scale_kinds[0])

typedef struct take_ctx {
  cf_weights *w;
  cf_error *err;
  size_t scales;        /* quantisation scale tensors seen */
  unsigned scale_seen;  /* bit i: scale_kinds[i] seen */
} take_ctx;

/* Counts one quantisation scale field (kind "mha.q_s") if the file holds it. */
static void saw_scale(take_ctx *c, const char *kind, const Pblczero__Weights__Layer *l) {
  if (!l) return;
  c->scales++;
  for (size_t i = 0; i < N_SCALE_KINDS; i++)
    if (strcmp(scale_kinds[i], kind) == 0) c->scale_seen |= 1u << i;
}

/* The note on the scales: how many, and which fields. */
static void note_scales(take_ctx *c) {
  if (!c->scales) return;
  char kinds[160] = "";
  size_t n = 0;
  for (size_t i = 0; i < N_SCALE_KINDS && n < sizeof kinds; i++)
    if (c->scale_seen & (1u << i))
      n += (size_t)snprintf(kinds + n, sizeof kinds - n, "%s%s", n ? ", " : "", scale_kinds[i]);
  cf_weights_add_note(c->w, "ignored %zu quantisation scale%s (%s): the Chessformer trainer's "
                            "quantisation-aware training; cformer runs the weights unquantised",
                      c->scales, c->scales == 1 ? "" : "s", kinds);
}

/* Decodes one Layer into t and frees the protobuf-c copy of its bytes at
 * once (the memory plan above). */
static cf_status take(take_ctx *c, const char *prefix, const char *name,
                      Pblczero__Weights__Layer *pl, cf_tensor *t) {
  if (!pl || pl->params.len == 0) return CF_OK; /* absent: empty tensor */
  cf_encoding enc = CF_ENC_LINEAR16;
  if (pl->has_encoding && pl->encoding != PBLCZERO__WEIGHTS__LAYER__ENCODING__UNKNOWN_ENCODING)
    enc = (cf_encoding)pl->encoding;
  const size_t es = cf_encoding_elem_size(enc);
  if (es == 0)
    return cf_error_set(c->err, CF_ERR_UNSUPPORTED, "%s.%s: unknown tensor encoding %d", prefix,
                        name, (int)pl->encoding);
  const size_t len = pl->params.len;
  if (len % es != 0)
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "%s.%s: wrong size: %zu bytes of params is not a whole number of %zu-byte "
                        "%s values",
                        prefix, name, len, es, cf_encoding_name(enc));
  const size_t n = len / es;
  float *data = malloc(n * sizeof *data);
  if (!data)
    return cf_error_set(c->err, CF_ERR_NOMEM, "%s.%s: cannot allocate %zu floats", prefix, name, n);
  cf_decode_params(pl->params.data, n, enc, pl->min_val, pl->max_val, data);
  cf_weights_pb_allocator.free(NULL, pl->params.data);
  pl->params.data = NULL;
  pl->params.len = 0;
  t->data = data;
  t->n = n;
  t->encoding = enc;
  c->w->encodings_used |= 1u << enc;
  size_t bad = cf_first_non_finite(data, n);
  if (bad < n) {
    if (enc == CF_ENC_LINEAR16)
      return cf_error_set(c->err, CF_ERR_FORMAT,
                          "%s.%s: element %zu of %zu is %s (LINEAR16, min_val %g, max_val %g)",
                          prefix, name, bad, n, data[bad] != data[bad] ? "NaN" : "Inf", pl->min_val,
                          pl->max_val);
    return cf_error_set(c->err, CF_ERR_FORMAT, "%s.%s: element %zu of %zu is %s (%s)", prefix, name,
                        bad, n, data[bad] != data[bad] ? "NaN" : "Inf", cf_encoding_name(enc));
  }
  return CF_OK;
}

#define TAKE(f) CF_TRY(take(c, prefix, #f, pb->f, &dst->f));

static cf_status take_ffn(take_ctx *c, const char *prefix, Pblczero__Weights__FFN *pb,
                          cf_ffn_weights *dst) {
  if (!pb) return CF_OK;
  CF_FFN_FIELDS(TAKE)
#define SCALE(f) saw_scale(c, "ffn." #f, pb->f);
  CF_FFN_SCALE_FIELDS(SCALE)
#undef SCALE
  return CF_OK;
}

static cf_status take_policy_head(take_ctx *c, const char *prefix,
                                  Pblczero__Weights__PolicyHead *pb, cf_policy_head_weights *dst) {
  if (!pb) return CF_OK;
  CF_POLICY_HEAD_FIELDS(TAKE)
  return CF_OK;
}

static cf_status take_value_head(take_ctx *c, const char *prefix, Pblczero__Weights__ValueHead *pb,
                                 cf_value_head_weights *dst) {
  if (!pb) return CF_OK;
  CF_VALUE_HEAD_FIELDS(TAKE)
  return CF_OK;
}

static cf_status take_layer(take_ctx *c, int i, Pblczero__Weights__EncoderLayer *el,
                            cf_encoder_layer_weights *l) {
  char prefix[CF_WEIGHTS_PATH_MAX];
  snprintf(prefix, sizeof prefix, "weights.encoder[%d]", i);
  {
    Pblczero__Weights__EncoderLayer *pb = el;
    cf_encoder_layer_weights *dst = l;
    CF_ENCODER_FIELDS(TAKE)
  }
  if (el->mha) {
    snprintf(prefix, sizeof prefix, "weights.encoder[%d].mha", i);
    Pblczero__Weights__MHA *pb = el->mha;
    cf_mha_weights *dst = &l->mha;
    CF_MHA_FIELDS(TAKE)
#define SCALE(f) saw_scale(c, "mha." #f, pb->f);
    CF_MHA_SCALE_FIELDS(SCALE)
#undef SCALE
    if (el->mha->smolgen) {
      snprintf(prefix, sizeof prefix, "weights.encoder[%d].mha.smolgen", i);
      Pblczero__Weights__Smolgen *pb = el->mha->smolgen;
      cf_smolgen_weights *dst = &l->mha.smolgen;
      CF_SMOLGEN_FIELDS(TAKE)
#define ANY(f) || cf_tensor_present(&dst->f)
      l->mha.has_smolgen = false CF_SMOLGEN_FIELDS(ANY);
#undef ANY
    }
  }
  snprintf(prefix, sizeof prefix, "weights.encoder[%d].ffn", i);
  return take_ffn(c, prefix, el->ffn, &l->ffn);
}

static cf_status take_weights(take_ctx *c, Pblczero__Weights *pw) {
  cf_weights *w = c->w;
  {
    const char *prefix = "weights";
    Pblczero__Weights *pb = pw;
    cf_weights *dst = w;
    CF_TOP_FIELDS(TAKE)
  }
  CF_TRY(take_ffn(c, "weights.ip_emb_ffn", pw->ip_emb_ffn, &w->ip_emb_ffn));
  if (pw->n_encoder > 0) {
    w->layers = calloc(pw->n_encoder, sizeof *w->layers);
    if (!w->layers)
      return cf_error_set(c->err, CF_ERR_NOMEM, "cannot allocate %zu encoder layers",
                          pw->n_encoder);
    w->arch.layers = (int)pw->n_encoder;
    for (size_t i = 0; i < pw->n_encoder; i++)
      CF_TRY(take_layer(c, (int)i, pw->encoder[i], &w->layers[i]));
  }
  if (pw->policy_heads) {
    Pblczero__Weights__PolicyHeads *ph = pw->policy_heads;
    CF_TRY(take(c, "weights.policy_heads", "ip_pol_w", ph->ip_pol_w, &w->policy_ip_pol_w));
    CF_TRY(take(c, "weights.policy_heads", "ip_pol_b", ph->ip_pol_b, &w->policy_ip_pol_b));
    Pblczero__Weights__PolicyHead *heads[CF_POLICY_HEAD_COUNT] = {
      [CF_POLICY_VANILLA] = ph->vanilla,
      [CF_POLICY_OPTIMISTIC_ST] = ph->optimistic_st,
      [CF_POLICY_SOFT] = ph->soft,
      [CF_POLICY_OPPONENT] = ph->opponent,
    };
    /* The Chessformer trainer writes its opponent head as a placeholder: a
     * 2-wide wq and nothing else, not an attention policy head. */
    const Pblczero__Weights__PolicyHead *opp = ph->opponent;
    if (opp && opp->ip2_pol_w && !opp->ip3_pol_w && !opp->ip4_pol_w) {
      heads[CF_POLICY_OPPONENT] = NULL;
      cf_weights_add_note(w, "ignored weights.policy_heads.opponent: it holds only wq, the "
                             "Chessformer trainer's placeholder, not an attention policy head");
    }
    if (ph->next)
      cf_weights_add_note(w, "ignored weights.policy_heads.next: the Chessformer trainer's "
                             "next-move head, which cformer does not use");
    for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
      char prefix[CF_WEIGHTS_PATH_MAX];
      snprintf(prefix, sizeof prefix, "weights.policy_heads.%s", cf_policy_head_field[h]);
      CF_TRY(take_policy_head(c, prefix, heads[h], &w->policy[h]));
    }
  }
  if (pw->future_head)
    cf_weights_add_note(w, "ignored weights.future_head: the Chessformer trainer's future-move "
                           "head, which cformer does not use");
  note_scales(c);
  if (pw->value_heads) {
    Pblczero__Weights__ValueHeads *vh = pw->value_heads;
    Pblczero__Weights__ValueHead *heads[CF_VALUE_HEAD_COUNT] = {
      [CF_VALUE_WINNER] = vh->winner,
      [CF_VALUE_Q] = vh->q,
      [CF_VALUE_ST] = vh->st,
    };
    for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
      char prefix[CF_WEIGHTS_PATH_MAX];
      snprintf(prefix, sizeof prefix, "weights.value_heads.%s", cf_value_head_field[h]);
      CF_TRY(take_value_head(c, prefix, heads[h], &w->value[h]));
    }
  }
  return CF_OK;
}

#undef TAKE

cf_status cf_weights_decode(Pblczero__Weights *pw, cf_weights *w, cf_error *err) {
  take_ctx tc = {.w = w, .err = err};
  return take_weights(&tc, pw);
}
