/* cf_weights_message.c: a payload -> pblczero.Net -> cf_weights: the
 * steps of cf_weights_pb.h in order, and the checks of the Net envelope
 * (magic, version, format). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights/cf_weights_pb.h"

#define CF_NET_MAGIC 0x1c0u

static void *pb_alloc(void *data, size_t size) {
  (void)data;
  return malloc(size);
}

static void pb_free(void *data, void *p) {
  (void)data;
  free(p);
}

/* protobuf-c takes a non-const allocator; nothing writes to it. */
ProtobufCAllocator cf_weights_pb_allocator = {pb_alloc, pb_free, NULL};

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
cf_status cf_weights_parse_payload(uint8_t *payload, size_t len, bool owned, bool was_gzip,
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
  st = cf_weights_scan(payload, len, err);
  if (st != CF_OK) {
    if (not_gzip[0]) cf_error_prefix(err, "%s", not_gzip);
    goto done;
  }
  net = (Pblczero__Net *)protobuf_c_message_unpack(&pblczero__net__descriptor, &cf_weights_pb_allocator, len,
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
  st = cf_weights_upgrade_layout(pw, &network, err);
  if (st != CF_OK) goto done;
  w->arch.network_format = network;
  if (pw->headcount > 0x7fffffffu) {
    st = cf_error_set(err, CF_ERR_FORMAT, "weights.headcount: %u is too large", pw->headcount);
    goto done;
  }
  w->arch.heads = (int)pw->headcount;
  st = cf_weights_decode(pw, w, err);
  if (st != CF_OK) goto done;
  cf_weights_note_unknown_fields(w, &net->base);
  protobuf_c_message_free_unpacked(&net->base, &cf_weights_pb_allocator);
  net = NULL;
  st = cf_weights_infer_arch(w, err);

done:
  if (owned) free(payload);
  if (net) protobuf_c_message_free_unpacked(&net->base, &cf_weights_pb_allocator);
  if (st != CF_OK) {
    cf_weights_free(w);
    w = NULL;
  }
  *out = w;
  return st;
}
