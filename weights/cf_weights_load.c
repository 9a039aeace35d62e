/* cf_weights_load.c: file -> payload -> pblczero.Net -> cf_weights.
 *
 * Memory plan (peak RSS must stay well under 2.5x the decoded float32 size):
 * the compressed file is streamed through zlib in 1 MiB chunks, never held
 * whole; the decompressed payload lives only until protobuf-c has unpacked
 * it; then each tensor is decoded to float32 and its protobuf-c copy freed at
 * once. The peak is therefore payload + unpacked copies (2x the stored size)
 * or decoded floats + what is left of the copies, whichever is larger. */
#include <errno.h>
#include <fcntl.h>
#include <protobuf-c/protobuf-c.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_net.pb-c.h"
#include "weights/cf_weights_internal.h"

#define CF_NET_MAGIC 0x1c0u
/* Most protobuf fields (and packed elements) a payload may hold: a real net
 * has a few hundred per layer. protobuf-c allocates per field, so this bounds
 * its bookkeeping on hostile input. */
#define CF_SCAN_MAX_FIELDS ((uint64_t)1 << 22)

static void *pb_alloc(void *data, size_t size) {
  (void)data;
  return malloc(size);
}

static void pb_free(void *data, void *p) {
  (void)data;
  free(p);
}

/* protobuf-c takes a non-const allocator; nothing writes to it. */
static ProtobufCAllocator pb_allocator = {pb_alloc, pb_free, NULL};

/* ---- wire-format scan: exact diagnostics before protobuf-c runs ---- */

typedef struct scan_ctx {
  const uint8_t *base;
  uint64_t fields;
  cf_error *err;
  char path[CF_WEIGHTS_PATH_MAX];
} scan_ctx;

static cf_status scan_fail(scan_ctx *s, cf_status st, const uint8_t *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static cf_status scan_fail(scan_ctx *s, cf_status st, const uint8_t *at, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cf_error_set(s->err, st, "protobuf parse failure at byte %zu in %s: %s",
                      (size_t)(at - s->base), s->path[0] ? s->path : "Net", what);
}

/* A varint of at most max_bytes bytes; false if unterminated. */
static bool scan_varint(const uint8_t **p, const uint8_t *end, int max_bytes, uint64_t *v) {
  uint64_t r = 0;
  for (int i = 0; i < max_bytes && *p < end; i++) {
    uint8_t b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

static int wire_type_of(ProtobufCType t) {
  switch (t) {
    case PROTOBUF_C_TYPE_MESSAGE:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_STRING: return 2;
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32: return 5;
    case PROTOBUF_C_TYPE_DOUBLE:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64: return 1;
    default: return 0;
  }
}

static cf_status scan_message(scan_ctx *s, const uint8_t *p, size_t len,
                              const ProtobufCMessageDescriptor *d) {
  const uint8_t *end = p + len;
  const size_t path_len = strlen(s->path);
  unsigned counts[64] = {0};
  while (p < end) {
    const uint8_t *field_at = p;
    uint64_t tag, v;
    if (!scan_varint(&p, end, 5, &tag))
      return scan_fail(s, CF_ERR_FORMAT, field_at, "bad field tag");
    const uint32_t number = (uint32_t)(tag >> 3);
    const int wt = (int)(tag & 7);
    if (number == 0) return scan_fail(s, CF_ERR_FORMAT, field_at, "field number 0");
    if (++s->fields > CF_SCAN_MAX_FIELDS)
      return scan_fail(s, CF_ERR_FORMAT, field_at, "more than %llu fields: not a network file",
                       (unsigned long long)CF_SCAN_MAX_FIELDS);
    const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, number);
    const char *fname = fd ? fd->name : "unknown field";
    const uint8_t *body = p;
    size_t body_len = 0;
    switch (wt) {
      case 0:
        if (!scan_varint(&p, end, 10, &v))
          return scan_fail(s, CF_ERR_FORMAT, field_at, "field %u (%s): unterminated varint", number,
                           fname);
        break;
      case 1:
      case 5: {
        size_t n = wt == 1 ? 8 : 4;
        if ((size_t)(end - p) < n)
          return scan_fail(s, CF_ERR_FORMAT, field_at,
                           "field %u (%s): %zu-byte value runs past the end (%zu bytes left)",
                           number, fname, n, (size_t)(end - p));
        p += n;
        break;
      }
      case 2:
        if (!scan_varint(&p, end, 5, &v))
          return scan_fail(s, CF_ERR_FORMAT, field_at, "field %u (%s): bad length prefix", number,
                           fname);
        if (v > 0x7fffffffu)
          return scan_fail(s, CF_ERR_UNSUPPORTED, field_at,
                           "field %u (%s): %llu bytes exceeds protobuf's 2 GiB field limit",
                           number, fname, (unsigned long long)v);
        if (v > (uint64_t)(end - p))
          return scan_fail(s, CF_ERR_FORMAT, field_at,
                           "field %u (%s): length %llu runs past the end of its message (%zu "
                           "bytes left)",
                           number, fname, (unsigned long long)v, (size_t)(end - p));
        body = p;
        body_len = (size_t)v;
        p += v;
        break;
      case 3:
      case 4:
        return scan_fail(s, CF_ERR_FORMAT, field_at,
                         "field %u: groups (wire type %d) are not supported", number, wt);
      default:
        return scan_fail(s, CF_ERR_FORMAT, field_at, "field %u: invalid wire type %d", number, wt);
    }
    if (!fd) continue; /* unknown field: skipped */
    const int want = wire_type_of(fd->type);
    const bool repeated = fd->label == PROTOBUF_C_LABEL_REPEATED;
    if (wt != want) {
      if (!(repeated && wt == 2)) /* packed repeated scalars */
        return scan_fail(s, CF_ERR_FORMAT, field_at, "field %u (%s): wire type %d, expected %d",
                         number, fname, wt, want);
      /* Packed: a run of varints or of fixed-size values. */
      if (want == 0) {
        const uint8_t *q = body, *qend = body + body_len;
        while (q < qend) {
          if (!scan_varint(&q, qend, 10, &v))
            return scan_fail(s, CF_ERR_FORMAT, field_at, "field %u (%s): bad packed varint",
                             number, fname);
          if (++s->fields > CF_SCAN_MAX_FIELDS)
            return scan_fail(s, CF_ERR_FORMAT, field_at, "too many packed values");
        }
      } else if (body_len % (want == 5 ? 4u : 8u) != 0) {
        return scan_fail(s, CF_ERR_FORMAT, field_at,
                         "field %u (%s): packed length %zu is not a multiple of the value size",
                         number, fname, body_len);
      }
      continue;
    }
    if (fd->type != PROTOBUF_C_TYPE_MESSAGE) continue;
    size_t idx = (size_t)(fd - d->fields);
    unsigned count = idx < 64 ? counts[idx]++ : 0;
    if (d == &pblczero__weights__descriptor && number == 27 && count >= CF_WEIGHTS_MAX_LAYERS)
      return scan_fail(s, CF_ERR_UNSUPPORTED, field_at, "more than %d encoder layers",
                       CF_WEIGHTS_MAX_LAYERS);
    if (repeated)
      snprintf(s->path + path_len, sizeof s->path - path_len, "%s%s[%u]", path_len ? "." : "",
               fd->name, count);
    else
      snprintf(s->path + path_len, sizeof s->path - path_len, "%s%s", path_len ? "." : "",
               fd->name);
    CF_TRY(scan_message(s, body, body_len, fd->descriptor));
    s->path[path_len] = '\0';
  }
  return CF_OK;
}

/* ---- protobuf -> cf_weights ---- */

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
  pb_free(NULL, pl->params.data);
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

/* ---- older layouts ---- */

static bool any_layer(Pblczero__Weights__Layer *const *ls, int n) {
  for (int i = 0; i < n; i++)
    if (ls[i]) return true;
  return false;
}

/* The one place where older layouts become the current one:
 *  - network 134 (the Chessformer trainer's AB_LEGACY_WITH_MULTIHEADFORMAT)
 *    is network 7, as Lc0 treats it;
 *  - single-head attention nets (network 6) keep their heads at top level:
 *    ip_pol_w/b become the shared policy embedding, ip2/ip3/ip4_pol the
 *    vanilla head, ip_val/ip1_val/ip2_val the winner value head.
 * Works on the unpacked message, so everything after it sees one layout. */
static cf_status normalise_layout(Pblczero__Weights *pw, int *network, cf_error *err) {
  if (*network == 134) *network = 7;

  Pblczero__Weights__Layer *pol[] = {pw->ip_pol_w, pw->ip_pol_b, pw->ip2_pol_w, pw->ip2_pol_b,
                                     pw->ip3_pol_w, pw->ip3_pol_b, pw->ip4_pol_w};
  if (any_layer(pol, (int)(sizeof pol / sizeof pol[0]))) {
    if (pw->policy_heads)
      return cf_error_set(err, CF_ERR_FORMAT,
                          "weights: both top-level policy tensors (ip_pol_w, ip2_pol_w, ...) and "
                          "policy_heads are present");
    Pblczero__Weights__PolicyHeads *ph = pb_alloc(NULL, sizeof *ph);
    Pblczero__Weights__PolicyHead *v = pb_alloc(NULL, sizeof *v);
    if (!ph || !v) {
      pb_free(NULL, ph);
      pb_free(NULL, v);
      return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    }
    pblczero__weights__policy_heads__init(ph);
    pblczero__weights__policy_head__init(v);
    ph->ip_pol_w = pw->ip_pol_w;
    ph->ip_pol_b = pw->ip_pol_b;
    v->ip2_pol_w = pw->ip2_pol_w;
    v->ip2_pol_b = pw->ip2_pol_b;
    v->ip3_pol_w = pw->ip3_pol_w;
    v->ip3_pol_b = pw->ip3_pol_b;
    v->ip4_pol_w = pw->ip4_pol_w;
    ph->vanilla = v;
    pw->policy_heads = ph;
    pw->ip_pol_w = pw->ip_pol_b = pw->ip2_pol_w = pw->ip2_pol_b = NULL;
    pw->ip3_pol_w = pw->ip3_pol_b = pw->ip4_pol_w = NULL;
  }

  Pblczero__Weights__Layer *val[] = {pw->ip_val_w,  pw->ip_val_b,  pw->ip1_val_w,
                                     pw->ip1_val_b, pw->ip2_val_w, pw->ip2_val_b};
  if (any_layer(val, (int)(sizeof val / sizeof val[0]))) {
    if (pw->value_heads)
      return cf_error_set(err, CF_ERR_FORMAT,
                          "weights: both top-level value tensors (ip_val_w, ip1_val_w, ...) and "
                          "value_heads are present");
    Pblczero__Weights__ValueHeads *vh = pb_alloc(NULL, sizeof *vh);
    Pblczero__Weights__ValueHead *v = pb_alloc(NULL, sizeof *v);
    if (!vh || !v) {
      pb_free(NULL, vh);
      pb_free(NULL, v);
      return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    }
    pblczero__weights__value_heads__init(vh);
    pblczero__weights__value_head__init(v);
    v->ip_val_w = pw->ip_val_w;
    v->ip_val_b = pw->ip_val_b;
    v->ip1_val_w = pw->ip1_val_w;
    v->ip1_val_b = pw->ip1_val_b;
    v->ip2_val_w = pw->ip2_val_w;
    v->ip2_val_b = pw->ip2_val_b;
    vh->winner = v;
    pw->value_heads = vh;
    pw->ip_val_w = pw->ip_val_b = pw->ip1_val_w = pw->ip1_val_b = NULL;
    pw->ip2_val_w = pw->ip2_val_b = NULL;
  }
  return CF_OK;
}

/* ---- the Net message ---- */

static const char *network_name(int n) {
  switch (n) {
    case 1: return "CLASSICAL";
    case 2: return "SE";
    case 3: return "CLASSICAL_WITH_HEADFORMAT";
    case 4: return "SE_WITH_HEADFORMAT";
    default: return "?";
  }
}

/* Checks the Net envelope and fills w's format fields. */
static cf_status read_envelope(const Pblczero__Net *net, cf_weights *w, int *network,
                               cf_error *err) {
  if (net->min_version) {
    const Pblczero__EngineVersion *v = net->min_version;
    w->min_version = (cf_version){v->major, v->minor, v->patch};
    if (v->major > CF_WEIGHTS_MAX_MAJOR ||
        (v->major == CF_WEIGHTS_MAX_MAJOR && v->minor > CF_WEIGHTS_MAX_MINOR))
      return cf_error_set(err, CF_ERR_UNSUPPORTED,
                          "min_version: the file requires engine version %u.%u.%u or newer; "
                          "cformer reads network files up to version %u.%u",
                          v->major, v->minor, v->patch, CF_WEIGHTS_MAX_MAJOR, CF_WEIGHTS_MAX_MINOR);
  }
  if (net->has_onnx_model)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "onnx_model: embedded ONNX networks are not supported (%zu bytes)",
                        net->onnx_model.len);
  const Pblczero__Format *f = net->format;
  const Pblczero__NetworkFormat *nf = f ? f->network_format : NULL;
  if (f && f->has_weights_encoding && f->weights_encoding != PBLCZERO__FORMAT__ENCODING__UNKNOWN &&
      f->weights_encoding != PBLCZERO__FORMAT__ENCODING__LINEAR16)
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "format.weights_encoding: unknown encoding %d",
                        (int)f->weights_encoding);
  const int n = nf && nf->has_network ? (int)nf->network : 0;
  *network = n;
  if (n == 0)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.network: missing; a net without a network format "
                        "(an old residual net) is not supported");
  if (n >= 1 && n <= 4)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.network: %d (%s) is a residual (convolutional) "
                        "network; cformer runs only attention-body networks (6, 7, 134)",
                        n, network_name(n));
  if (n == 5)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.network: 5 is an embedded ONNX network; not "
                        "supported");
  if (n != 6 && n != 7 && n != 134)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.network: unknown network format %d (attention "
                        "bodies are 6, 7, 134)",
                        n);
  cf_net_arch *a = &w->arch;
  a->input_format = nf->has_input ? (int)nf->input : 0;
  a->output_format = nf->has_output ? (int)nf->output : 0;
  a->policy_format = nf->has_policy ? (int)nf->policy : 0;
  a->value_format = nf->has_value ? (int)nf->value : 0;
  a->moves_left_format = nf->has_moves_left ? (int)nf->moves_left : 0;
  a->input_embedding = nf->has_input_embedding ? (int)nf->input_embedding : 0;
  const int da = nf->has_default_activation ? (int)nf->default_activation : 0;
  if (da != 0 && da != 1)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.default_activation: unknown value %d (0 relu, 1 "
                        "mish)",
                        da);
  a->default_act = da == 1 ? CF_ACT_MISH : CF_ACT_RELU;
  a->smolgen_act =
      nf->has_smolgen_activation ? (cf_activation)nf->smolgen_activation : CF_ACT_DEFAULT;
  a->ffn_act = nf->has_ffn_activation ? (cf_activation)nf->ffn_activation : CF_ACT_DEFAULT;
  return CF_OK;
}

static bool is_text_format(const uint8_t *p, size_t n) {
  return n >= 2 && (p[0] == '1' || p[0] == '2') && (p[1] == '\n' || p[1] == '\r');
}

/* Parses a payload into a new cf_weights. If owned, frees payload as soon as
 * protobuf-c is done with it. */
static cf_status load_payload(uint8_t *payload, size_t len, bool owned, bool was_gzip,
                              cf_weights **out, cf_error *err) {
  cf_status st;
  Pblczero__Net *net = NULL;
  cf_weights *w = NULL;
  /* A bare payload that fails to parse is called "not gzip" too, unless it
   * opens with the magic field (fixed32 0x1c0): then it is a broken net. */
  static const uint8_t magic_field[5] = {0x0d, 0xc0, 0x01, 0x00, 0x00};
  char not_gzip[96] = "";
  if (!was_gzip && len > 0 && !(len >= 5 && memcmp(payload, magic_field, 5) == 0))
    snprintf(not_gzip, sizeof not_gzip,
             "not a gzip stream (starts with %02x %02x %02x %02x) and not a valid network",
             payload[0], len > 1 ? payload[1] : 0, len > 2 ? payload[2] : 0,
             len > 3 ? payload[3] : 0);

  if (len == 0) {
    st = cf_error_set(err, CF_ERR_FORMAT, was_gzip ? "empty payload after decompression"
                                                   : "empty file");
    goto done;
  }
  if (is_text_format(payload, len)) {
    st = cf_error_set(err, CF_ERR_UNSUPPORTED,
                      "obsolete text weight format (version %c); only protobuf networks are "
                      "supported",
                      payload[0]);
    goto done;
  }
  scan_ctx scan = {.base = payload, .err = err};
  st = scan_message(&scan, payload, len, &pblczero__net__descriptor);
  if (st != CF_OK) {
    if (not_gzip[0]) cf_error_prefix(err, "%s", not_gzip);
    goto done;
  }
  net = (Pblczero__Net *)protobuf_c_message_unpack(&pblczero__net__descriptor, &pb_allocator, len,
                                                   payload);
  if (owned) {
    free(payload);
    payload = NULL;
  }
  if (!net) {
    st = cf_error_set(err, CF_ERR_NOMEM,
                      "protobuf-c could not unpack the message (%zu bytes): out of memory?", len);
    goto done;
  }
  if (!net->has_magic || net->magic != CF_NET_MAGIC) {
    char got[32];
    if (net->has_magic)
      snprintf(got, sizeof got, "0x%x", net->magic);
    else
      snprintf(got, sizeof got, "absent");
    st = cf_error_set(err, CF_ERR_FORMAT, "%s%sbad magic %s (expected 0x1c0)", not_gzip,
                      not_gzip[0] ? ": " : "", got);
    goto done;
  }
  w = calloc(1, sizeof *w);
  if (!w) {
    st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    goto done;
  }
  int network = 0;
  st = read_envelope(net, w, &network, err);
  if (st != CF_OK) goto done;
  w->raw_network_format = network;
  if (net->license) {
    w->license = strdup(net->license);
    if (!w->license) {
      st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
      goto done;
    }
  }
  if (!net->weights) {
    st = cf_error_set(err, CF_ERR_FORMAT, "weights: missing");
    goto done;
  }
  Pblczero__Weights *pw = net->weights;
  st = normalise_layout(pw, &network, err);
  if (st != CF_OK) goto done;
  w->arch.network_format = network;
  if (pw->headcount > 0x7fffffffu) {
    st = cf_error_set(err, CF_ERR_FORMAT, "weights.headcount: %u is too large", pw->headcount);
    goto done;
  }
  w->arch.heads = (int)pw->headcount;
  take_ctx tc = {.w = w, .err = err};
  st = take_weights(&tc, pw);
  if (st != CF_OK) goto done;
  cf_weights_note_unknown_fields(w, &net->base);
  protobuf_c_message_free_unpacked(&net->base, &pb_allocator);
  net = NULL;
  st = cf_weights_infer_arch(w, err);

done:
  if (owned) free(payload);
  if (net) protobuf_c_message_free_unpacked(&net->base, &pb_allocator);
  if (st != CF_OK) {
    cf_weights_free(w);
    w = NULL;
  }
  *out = w;
  return st;
}

uint64_t cf_weights_max_payload(const cf_weights_load_options *opts, uint64_t source_size) {
  if (opts && opts->max_decompressed_bytes) return opts->max_decompressed_bytes;
  uint64_t limit = source_size > CF_WEIGHTS_AUTO_MAX / CF_WEIGHTS_AUTO_RATIO
                       ? CF_WEIGHTS_AUTO_MAX
                       : source_size * CF_WEIGHTS_AUTO_RATIO;
  return limit < CF_WEIGHTS_AUTO_MIN ? CF_WEIGHTS_AUTO_MIN : limit;
}

cf_status cf_weights_parse_max_mb(const char *text, const char *limit_name,
                                  cf_weights_load_options *opts, cf_error *err) {
  char *end;
  errno = 0;
  long long mb = text ? strtoll(text, &end, 10) : -1;
  if (!text || !*text || *end || errno || text[0] < '0' || text[0] > '9' || mb < 0 ||
      mb > CF_WEIGHTS_MAX_MB_LIMIT)
    return cf_error_set(err, CF_ERR_ARG, "%s: bad value '%s' (expected MiB, 0 = automatic, to %d)",
                        limit_name, text ? text : "", CF_WEIGHTS_MAX_MB_LIMIT);
  opts->max_decompressed_bytes = (uint64_t)mb << 20;
  opts->limit_name = limit_name;
  return CF_OK;
}

/* Completes the message of a payload over the limit: how the limit was
 * chosen and how the user raises it (opts->limit_name). */
static cf_status over_limit(cf_error *err, const cf_weights_load_options *opts,
                            uint64_t source_size, bool gzip) {
  char why[160];
  /* Only the automatic rule suspects a bomb; a set limit was a choice. */
  const bool bomb = gzip && !(opts && opts->max_decompressed_bytes);
  if (opts && opts->max_decompressed_bytes)
    snprintf(why, sizeof why, " (as set)");
  else
    snprintf(why, sizeof why, " (automatic: %u times the %llu-byte file, at least %llu MiB)%s",
             CF_WEIGHTS_AUTO_RATIO, (unsigned long long)source_size,
             (unsigned long long)(CF_WEIGHTS_AUTO_MIN >> 20),
             bomb ? ": a decompression bomb?" : "");
  const char *name = opts ? opts->limit_name : NULL;
  char msg[CF_ERROR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
  if (!name) return cf_error_set(err, CF_ERR_NOMEM, "%s%s", msg, why);
  return cf_error_set(err, CF_ERR_NOMEM, "%s%s%s the limit with %s to load it%s", msg, why,
                      bomb ? " Raise" : "; raise", name, bomb ? " anyway" : "");
}

static cf_status too_big(cf_error *err, const cf_weights_load_options *opts, uint64_t size,
                         uint64_t limit) {
  cf_error_set(err, CF_ERR_NOMEM,
               "uncompressed payload of %llu bytes exceeds the limit of %llu bytes",
               (unsigned long long)size, (unsigned long long)limit);
  return over_limit(err, opts, size, false);
}

/* Inflates src within the limit for its size and parses the payload. */
static cf_status load_gzip(cf_byte_source *src, uint64_t source_size,
                           const cf_weights_load_options *opts, cf_weights **out, cf_error *err) {
  uint8_t *payload;
  size_t len;
  bool over = false;
  cf_status st = cf_gunzip(src, cf_weights_max_payload(opts, source_size), &payload, &len, &over,
                           err);
  if (over) return over_limit(err, opts, source_size, true);
  if (st != CF_OK) return st;
  return load_payload(payload, len, true, true, out, err);
}

static cf_status load_memory(const void *data, size_t size, const cf_weights_load_options *opts,
                             cf_weights **out, cf_error *err) {
  const uint8_t *p = data;
  if (size >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
    cf_byte_source src = {.mem = p, .mem_size = size};
    return load_gzip(&src, size, opts, out, err);
  }
  const uint64_t limit = cf_weights_max_payload(opts, size);
  if (size > limit) return too_big(err, opts, size, limit);
  return load_payload((uint8_t *)(uintptr_t)p, size, false, false, out, err);
}

cf_status cf_weights_load_memory(const void *data, size_t size, const char *name,
                                 const cf_weights_load_options *opts, cf_weights **out,
                                 cf_error *err) {
  if (!out) return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_memory: out is NULL");
  *out = NULL;
  if (!data && size)
    return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_memory: data is NULL");
  cf_status st = load_memory(size ? data : "", size, opts, out, err);
  if (st != CF_OK) cf_error_prefix(err, "%s", name ? name : "(memory)");
  return st;
}

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "of an unknown kind";
}

static cf_status not_regular(cf_error *err, mode_t mode) {
  return cf_error_set(err, CF_ERR_IO, "is %s, not a regular file", file_kind(mode));
}

/* Opens path for reading only if it is a regular file. Anything else is
 * refused before a read that could block or eat someone else's input:
 * opening a FIFO waits for a writer, /dev/stdin or a terminal would take
 * the engine's own UCI input, a device may never end. stat() decides before
 * anything is opened (opening some devices has effects); O_NONBLOCK and
 * fstat() on the descriptor catch a path swapped for a FIFO in between. */
static cf_status open_regular(const char *path, FILE **out, uint64_t *size, cf_error *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  if (!S_ISREG(sb.st_mode)) return not_regular(err, sb.st_mode);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  cf_status st = CF_OK;
  int flags;
  if (fstat(fd, &sb) != 0)
    st = cf_error_set(err, CF_ERR_IO, "cannot stat: %s", strerror(errno));
  else if (!S_ISREG(sb.st_mode))
    st = not_regular(err, sb.st_mode);
  /* A regular file ignores O_NONBLOCK; it is dropped so stdio sees an
   * ordinary descriptor. */
  else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
    st = cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  FILE *f = st == CF_OK ? fdopen(fd, "rb") : NULL;
  if (st == CF_OK && !f) st = cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  if (st != CF_OK) {
    close(fd);
    return st;
  }
  *out = f;
  *size = (uint64_t)sb.st_size;
  return CF_OK;
}

static cf_status load_file(FILE *f, uint64_t size, const cf_weights_load_options *opts,
                           cf_weights **out, cf_error *err) {
  uint8_t head[2];
  size_t got = fread(head, 1, 2, f);
  if (got < 2 && ferror(f)) return cf_error_set(err, CF_ERR_IO, "read error: %s", strerror(errno));
  if (got == 0) return cf_error_set(err, CF_ERR_FORMAT, "empty file");
  if (fseek(f, 0, SEEK_SET) != 0)
    return cf_error_set(err, CF_ERR_IO, "cannot seek: %s", strerror(errno));
  if (got == 2 && head[0] == 0x1f && head[1] == 0x8b) {
    cf_byte_source src = {.file = f, .file_size = size};
    return load_gzip(&src, size, opts, out, err);
  }
  const uint64_t limit = cf_weights_max_payload(opts, size);
  if (size > limit) return too_big(err, opts, size, limit);
  uint8_t *buf = malloc(size ? (size_t)size : 1);
  if (!buf)
    return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate %llu bytes", (unsigned long long)size);
  size_t n = fread(buf, 1, (size_t)size, f);
  if (n != size) {
    free(buf);
    return cf_error_set(err, CF_ERR_IO, "read error after %zu of %llu bytes", n,
                        (unsigned long long)size);
  }
  return load_payload(buf, (size_t)size, true, false, out, err);
}

cf_status cf_weights_load_file(const char *path, const cf_weights_load_options *opts,
                               cf_weights **out, cf_error *err) {
  if (!out) return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_file: out is NULL");
  *out = NULL;
  if (!path) return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_file: path is NULL");
  FILE *f = NULL;
  uint64_t size = 0;
  cf_status st = open_regular(path, &f, &size, err);
  if (st == CF_OK) {
    st = load_file(f, size, opts, out, err);
    fclose(f);
  }
  if (st != CF_OK) cf_error_prefix(err, "%s", path);
  return st;
}
