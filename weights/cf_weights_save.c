/* cf_weights_save.c: cf_weights -> pblczero.Net (network format 7 or 134,
 * multi-head layout), gzip'd or bare, to a file (atomically) or memory.
 *
 * The message is built from encoded copies of the tensors and streamed by
 * protobuf-c's pack_to_buffer straight into deflate, so the packed message
 * is never held whole. */
#include <errno.h>
#include <protobuf-c/protobuf-c.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_net.pb-c.h"
#include "weights/cf_weights_internal.h"

typedef struct save_ctx {
  cf_encoding enc; /* CF_ENC_UNKNOWN: each tensor's own encoding */
  unsigned used;   /* bit (1 << encoding) for each encoding written */
  void **allocs;   /* everything built for the message, freed at the end */
  size_t n_allocs, cap_allocs;
  cf_error *err;
} save_ctx;

static void *snew(save_ctx *s, size_t size) {
  if (s->n_allocs == s->cap_allocs) {
    size_t ncap = s->cap_allocs ? s->cap_allocs * 2 : 256;
    void **na = realloc(s->allocs, ncap * sizeof *na);
    if (!na) return NULL;
    s->allocs = na;
    s->cap_allocs = ncap;
  }
  void *p = malloc(size ? size : 1);
  if (p) s->allocs[s->n_allocs++] = p;
  return p;
}

#define NEW(s, type, init)                                 \
  __extension__({                                          \
    type *p_ = snew(s, sizeof(type));                      \
    if (!p_) return cf_error_set((s)->err, CF_ERR_NOMEM, "out of memory"); \
    init(p_);                                              \
    p_;                                                    \
  })

static cf_status put(save_ctx *s, const char *prefix, const char *name, const cf_tensor *t,
                     Pblczero__Weights__Layer **slot) {
  if (t->n == 0) return CF_OK;
  if (!t->data)
    return cf_error_set(s->err, CF_ERR_ARG, "%s.%s: %zu values but data is NULL", prefix, name,
                        t->n);
  cf_encoding e = s->enc;
  if (e == CF_ENC_UNKNOWN) e = cf_encoding_elem_size(t->encoding) ? t->encoding : CF_ENC_LINEAR16;
  const size_t es = cf_encoding_elem_size(e);
  size_t bad = cf_first_non_finite(t->data, t->n);
  if (bad < t->n)
    return cf_error_set(s->err, CF_ERR_ARG, "%s.%s: element %zu of %zu is %s", prefix, name, bad,
                        t->n, t->data[bad] != t->data[bad] ? "NaN" : "Inf");
  size_t nbytes;
  if (__builtin_mul_overflow(t->n, es, &nbytes))
    return cf_error_set(s->err, CF_ERR_ARG, "%s.%s: too large", prefix, name);
  uint8_t *bytes = snew(s, nbytes);
  if (!bytes) return cf_error_set(s->err, CF_ERR_NOMEM, "%s.%s: out of memory", prefix, name);
  Pblczero__Weights__Layer *l = NEW(s, Pblczero__Weights__Layer, pblczero__weights__layer__init);
  float lo = 0, hi = 0;
  if (!cf_encode_params(t->data, t->n, e, bytes, &lo, &hi, &bad))
    return cf_error_set(s->err, CF_ERR_ARG, "%s.%s: element %zu (%g) cannot be stored as %s",
                        prefix, name, bad, (double)t->data[bad], cf_encoding_name(e));
  l->has_params = 1;
  l->params.data = bytes;
  l->params.len = nbytes;
  if (e == CF_ENC_LINEAR16) {
    l->has_min_val = l->has_max_val = 1;
    l->min_val = lo;
    l->max_val = hi;
  } else {
    l->has_encoding = 1;
    l->encoding = (Pblczero__Weights__Layer__Encoding)e;
  }
  s->used |= 1u << e;
  *slot = l;
  return CF_OK;
}

#define PUT(f) CF_TRY(put(s, prefix, #f, &src->f, &pb->f));
#define ANY(f) || cf_tensor_present(&src->f)

static cf_status build_ffn(save_ctx *s, const char *prefix, const cf_ffn_weights *src,
                           Pblczero__Weights__FFN **slot) {
  if (!(false CF_FFN_FIELDS(ANY))) return CF_OK;
  Pblczero__Weights__FFN *pb = NEW(s, Pblczero__Weights__FFN, pblczero__weights__ffn__init);
  CF_FFN_FIELDS(PUT)
  *slot = pb;
  return CF_OK;
}

static cf_status build_layer(save_ctx *s, int i, const cf_encoder_layer_weights *l,
                             Pblczero__Weights__EncoderLayer **slot) {
  char prefix[CF_WEIGHTS_PATH_MAX];
  Pblczero__Weights__EncoderLayer *el =
      NEW(s, Pblczero__Weights__EncoderLayer, pblczero__weights__encoder_layer__init);
  {
    snprintf(prefix, sizeof prefix, "weights.encoder[%d]", i);
    const cf_encoder_layer_weights *src = l;
    Pblczero__Weights__EncoderLayer *pb = el;
    CF_ENCODER_FIELDS(PUT)
  }
  {
    snprintf(prefix, sizeof prefix, "weights.encoder[%d].mha", i);
    const cf_mha_weights *src = &l->mha;
    Pblczero__Weights__MHA *pb = NEW(s, Pblczero__Weights__MHA, pblczero__weights__mha__init);
    CF_MHA_FIELDS(PUT)
    el->mha = pb;
  }
  if (l->mha.has_smolgen) {
    snprintf(prefix, sizeof prefix, "weights.encoder[%d].mha.smolgen", i);
    const cf_smolgen_weights *src = &l->mha.smolgen;
    Pblczero__Weights__Smolgen *pb =
        NEW(s, Pblczero__Weights__Smolgen, pblczero__weights__smolgen__init);
    CF_SMOLGEN_FIELDS(PUT)
    el->mha->smolgen = pb;
  }
  snprintf(prefix, sizeof prefix, "weights.encoder[%d].ffn", i);
  CF_TRY(build_ffn(s, prefix, &l->ffn, &el->ffn));
  *slot = el;
  return CF_OK;
}

static cf_status build_weights(save_ctx *s, const cf_weights *w, Pblczero__Weights *pw) {
  {
    const char *prefix = "weights";
    const cf_weights *src = w;
    Pblczero__Weights *pb = pw;
    CF_TOP_FIELDS(PUT)
  }
  CF_TRY(build_ffn(s, "weights.ip_emb_ffn", &w->ip_emb_ffn, &pw->ip_emb_ffn));
  pw->encoder = snew(s, (size_t)w->arch.layers * sizeof *pw->encoder);
  if (!pw->encoder) return cf_error_set(s->err, CF_ERR_NOMEM, "out of memory");
  pw->n_encoder = (size_t)w->arch.layers;
  for (int i = 0; i < w->arch.layers; i++)
    CF_TRY(build_layer(s, i, &w->layers[i], &pw->encoder[i]));
  pw->has_headcount = 1;
  pw->headcount = (uint32_t)w->arch.heads;

  Pblczero__Weights__PolicyHeads *ph =
      NEW(s, Pblczero__Weights__PolicyHeads, pblczero__weights__policy_heads__init);
  CF_TRY(put(s, "weights.policy_heads", "ip_pol_w", &w->policy_ip_pol_w, &ph->ip_pol_w));
  CF_TRY(put(s, "weights.policy_heads", "ip_pol_b", &w->policy_ip_pol_b, &ph->ip_pol_b));
  Pblczero__Weights__PolicyHead **pheads[CF_POLICY_HEAD_COUNT] = {
    [CF_POLICY_VANILLA] = &ph->vanilla,
    [CF_POLICY_OPTIMISTIC_ST] = &ph->optimistic_st,
    [CF_POLICY_SOFT] = &ph->soft,
    [CF_POLICY_OPPONENT] = &ph->opponent,
  };
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
    const cf_policy_head_weights *src = &w->policy[h];
    if (!(false CF_POLICY_HEAD_FIELDS(ANY))) continue;
    char prefix[CF_WEIGHTS_PATH_MAX];
    snprintf(prefix, sizeof prefix, "weights.policy_heads.%s", cf_policy_head_field[h]);
    Pblczero__Weights__PolicyHead *pb =
        NEW(s, Pblczero__Weights__PolicyHead, pblczero__weights__policy_head__init);
    CF_POLICY_HEAD_FIELDS(PUT)
    *pheads[h] = pb;
  }
  pw->policy_heads = ph;

  Pblczero__Weights__ValueHeads *vh =
      NEW(s, Pblczero__Weights__ValueHeads, pblczero__weights__value_heads__init);
  Pblczero__Weights__ValueHead **vheads[CF_VALUE_HEAD_COUNT] = {
    [CF_VALUE_WINNER] = &vh->winner,
    [CF_VALUE_Q] = &vh->q,
    [CF_VALUE_ST] = &vh->st,
  };
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    const cf_value_head_weights *src = &w->value[h];
    if (!(false CF_VALUE_HEAD_FIELDS(ANY))) continue;
    char prefix[CF_WEIGHTS_PATH_MAX];
    snprintf(prefix, sizeof prefix, "weights.value_heads.%s", cf_value_head_field[h]);
    Pblczero__Weights__ValueHead *pb =
        NEW(s, Pblczero__Weights__ValueHead, pblczero__weights__value_head__init);
    CF_VALUE_HEAD_FIELDS(PUT)
    *vheads[h] = pb;
  }
  pw->value_heads = vh;
  return CF_OK;
}

#undef PUT
#undef ANY

typedef struct sink_buffer {
  ProtobufCBuffer base;
  cf_byte_sink *sink;
} sink_buffer;

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data) {
  cf_sink_write(((sink_buffer *)b)->sink, data, len);
}

/* Validates w, builds the message and streams it into file (or memory). */
static cf_status write_net(const cf_weights *w, cf_encoding enc, bool gzip, FILE *file,
                           uint8_t **out, size_t *out_size, cf_error *err) {
  if (!w) return cf_error_set(err, CF_ERR_ARG, "weights is NULL");
  if (enc != CF_ENC_UNKNOWN && cf_encoding_elem_size(enc) == 0)
    return cf_error_set(err, CF_ERR_ARG, "unknown encoding %d", (int)enc);
  /* 7 and 134 name the same layout: Lc0's number and the Chessformer
   * trainer's (whose tools know no other). */
  const int network = w->save_network_format ? w->save_network_format : 7;
  if (network != 7 && network != 134)
    return cf_error_set(err, CF_ERR_ARG,
                        "network format %d cannot be written (7 or 134, the same multi-head "
                        "layout)",
                        w->save_network_format);
  /* Validate on a shallow copy: infer only writes arch and param_count. */
  cf_weights v = *w;
  cf_status st = cf_weights_infer_arch(&v, err);
  if (st != CF_OK) {
    if (err) err->status = CF_ERR_ARG;
    cf_error_prefix(err, "invalid weights");
    return CF_ERR_ARG;
  }
  const cf_net_arch *a = &v.arch;

  save_ctx s = {.enc = enc, .err = err};
  Pblczero__Net net;
  Pblczero__EngineVersion ver;
  Pblczero__Format fmt;
  Pblczero__NetworkFormat nf;
  Pblczero__Weights pw;
  pblczero__net__init(&net);
  pblczero__engine_version__init(&ver);
  pblczero__format__init(&fmt);
  pblczero__network_format__init(&nf);
  pblczero__weights__init(&pw);

  st = build_weights(&s, &v, &pw);
  if (st == CF_OK) {
    net.has_magic = 1;
    net.magic = 0x1c0;
    net.license = w->license;
    /* Per-layer encodings need Lc0 0.33; the multi-head layout 0.31. */
    cf_version need = {0, (s.used & ~(1u << CF_ENC_LINEAR16)) ? 33u : 31u, 0};
    cf_version have = w->min_version;
    bool newer = have.major != need.major ? have.major > need.major
               : have.minor != need.minor ? have.minor > need.minor
                                          : have.patch > need.patch;
    cf_version use = newer ? have : need;
    ver.has_major = ver.has_minor = ver.has_patch = 1;
    ver.major = use.major;
    ver.minor = use.minor;
    ver.patch = use.patch;
    net.min_version = &ver;
    fmt.has_weights_encoding = 1;
    fmt.weights_encoding = PBLCZERO__FORMAT__ENCODING__LINEAR16;
    nf.has_input = nf.has_output = nf.has_network = nf.has_policy = nf.has_value = 1;
    nf.has_moves_left = nf.has_default_activation = nf.has_smolgen_activation = 1;
    nf.has_ffn_activation = nf.has_input_embedding = 1;
    nf.input = (Pblczero__NetworkFormat__InputFormat)a->input_format;
    nf.output = (Pblczero__NetworkFormat__OutputFormat)a->output_format;
    nf.network = (Pblczero__NetworkFormat__NetworkStructure)network; /* multi-head body */
    nf.policy = (Pblczero__NetworkFormat__PolicyFormat)a->policy_format;
    nf.value = (Pblczero__NetworkFormat__ValueFormat)a->value_format;
    nf.moves_left = (Pblczero__NetworkFormat__MovesLeftFormat)a->moves_left_format;
    /* default_activation numbers its values differently: RELU 0, MISH 1. */
    nf.default_activation =
        (Pblczero__NetworkFormat__DefaultActivation)(a->default_act == CF_ACT_MISH);
    nf.smolgen_activation = (Pblczero__NetworkFormat__ActivationFunction)a->smolgen_act;
    nf.ffn_activation = (Pblczero__NetworkFormat__ActivationFunction)a->ffn_act;
    nf.input_embedding = (Pblczero__NetworkFormat__InputEmbeddingFormat)a->input_embedding;
    fmt.network_format = &nf;
    net.format = &fmt;
    net.weights = &pw;

    cf_byte_sink *sink = cf_sink_open(file, gzip, err);
    if (!sink) {
      st = err ? err->status : CF_ERR_NOMEM;
    } else {
      sink_buffer sb = {.base = {.append = sink_append}, .sink = sink};
      protobuf_c_message_pack_to_buffer(&net.base, &sb.base);
      st = cf_sink_close(sink, out, out_size, err);
    }
  }
  for (size_t i = 0; i < s.n_allocs; i++) free(s.allocs[i]);
  free(s.allocs);
  return st;
}

cf_status cf_weights_save_memory(const cf_weights *w, cf_encoding enc, bool gzip, void **out,
                                  size_t *out_size, cf_error *err) {
  if (!out || !out_size)
    return cf_error_set(err, CF_ERR_ARG, "cf_weights_save_memory: out is NULL");
  *out = NULL;
  *out_size = 0;
  uint8_t *buf = NULL;
  cf_status st = write_net(w, enc, gzip, NULL, &buf, out_size, err);
  if (st == CF_OK) *out = buf;
  return st;
}

static cf_status save_file(const cf_weights *w, const char *path, cf_encoding enc, bool gzip,
                           cf_error *err) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", 12);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    cf_status st = cf_error_set(err, CF_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    free(tmp);
    return st;
  }
  (void)fchmod(fd, 0644);
  FILE *f = fdopen(fd, "wb");
  cf_status st;
  if (!f) {
    st = cf_error_set(err, CF_ERR_IO, "cannot open %s: %s", tmp, strerror(errno));
    close(fd);
  } else {
    st = write_net(w, enc, gzip, f, NULL, NULL, err);
    if (st == CF_OK && fsync(fileno(f)) != 0)
      st = cf_error_set(err, CF_ERR_IO, "cannot sync %s: %s", tmp, strerror(errno));
    if (fclose(f) != 0 && st == CF_OK)
      st = cf_error_set(err, CF_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
  }
  if (st == CF_OK && rename(tmp, path) != 0)
    st = cf_error_set(err, CF_ERR_IO, "cannot rename %s into place: %s", tmp, strerror(errno));
  if (st != CF_OK) unlink(tmp);
  free(tmp);
  return st;
}

cf_status cf_weights_save_file(const cf_weights *w, const char *path, cf_encoding enc, bool gzip,
                               cf_error *err) {
  if (!path) return cf_error_set(err, CF_ERR_ARG, "cf_weights_save_file: path is NULL");
  cf_status st = save_file(w, path, enc, gzip, err);
  if (st != CF_OK) cf_error_prefix(err, "%s", path);
  return st;
}

void cf_sink_out_emit(cf_sink_out *o, const uint8_t *data, size_t n) {
  if (o->status != CF_OK || n == 0) return;
  if (o->file) {
    if (fwrite(data, 1, n, o->file) != n)
      o->status = cf_error_set(&o->err, CF_ERR_IO, "write failed");
    return;
  }
  if (o->cap - o->len < n) {
    size_t grown = o->cap ? o->cap : 4096;
    while (grown - o->len < n) grown *= 2;
    uint8_t *bigger = realloc(o->mem, grown);
    if (!bigger) {
      o->status = cf_error_set(&o->err, CF_ERR_NOMEM, "cannot grow output to %zu bytes", grown);
      return;
    }
    o->mem = bigger;
    o->cap = grown;
  }
  memcpy(o->mem + o->len, data, n);
  o->len += n;
}

cf_status cf_sink_out_finish(cf_sink_out *o, uint8_t **out, size_t *out_size, cf_error *err) {
  if (o->file && o->status == CF_OK && fflush(o->file) != 0)
    o->status = cf_error_set(&o->err, CF_ERR_IO, "write failed");
  if (o->status != CF_OK) {
    cf_error_set(err, o->status, "%s", o->err.msg);
    free(o->mem);
  } else if (!o->file) {
    if (out) *out = o->mem;
    else free(o->mem);
    if (out_size) *out_size = o->len;
  }
  o->mem = NULL;
  return o->status;
}
