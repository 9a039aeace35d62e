/* cf_weights_internal.h: what the files of weights/ share and nothing above
 * weights/ sees: tensor codecs, the gzip layer and the field lists that tie
 * the protobuf messages (cf_net.proto) to the cf_weights structs. */
#ifndef CF_WEIGHTS_INTERNAL_H
#define CF_WEIGHTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "weights/cf_weights.h"

/* ---- tensor codecs (cf_weights_codec.c) ---- */

float cf_half_to_float(uint16_t h);
/* Round to nearest even; values beyond the binary16 range become +-inf. */
uint16_t cf_float_to_half(float f);
float cf_bf16_to_float(uint16_t b);
/* Round to nearest even; NaN stays NaN. */
uint16_t cf_float_to_bf16(float f);

/* Bytes per stored element (2 or 4), 0 for an unknown encoding. */
size_t cf_encoding_elem_size(cf_encoding enc);

/* Decodes n elements of bytes (n * elem_size bytes) into out. min/max are
 * used by LINEAR16 only. */
void cf_decode_params(const uint8_t *bytes, size_t n, cf_encoding enc, float min_val,
                      float max_val, float *out);

/* Encodes n floats into bytes (n * elem_size bytes); for LINEAR16 also
 * returns the range written to min_val/max_val. The input must be finite;
 * FLOAT16 fails (returns false, *bad = index) on a value beyond its range. */
bool cf_encode_params(const float *in, size_t n, cf_encoding enc, uint8_t *bytes,
                      float *min_val, float *max_val, size_t *bad);

/* Index of the first NaN or Inf in x[0..n), or n if all are finite. */
size_t cf_first_non_finite(const float *x, size_t n);

/* ---- gzip (cf_weights_gzip.c) ---- */

/* Where compressed or raw bytes come from: a memory block or an open file. */
typedef struct cf_byte_source {
  const uint8_t *mem; /* memory source when file == NULL */
  size_t mem_size;
  FILE *file;
  uint64_t file_size; /* for the truncation message and the size hint */
} cf_byte_source;

/* Inflates a gzip stream (one or more members; bytes after the last member
 * that are not a gzip member are ignored, as zlib's gzread does) into a new
 * malloc'd buffer. More than max_out decompressed bytes fail with
 * CF_ERR_NOMEM and *over_limit set, as soon as the excess is inflated and
 * before it is allocated; the buffer never exceeds twice what was inflated
 * (or the trailer's size hint, trusted up to 4x the compressed size). */
cf_status cf_gunzip(cf_byte_source *src, uint64_t max_out, uint8_t **out, size_t *out_size,
                    bool *over_limit, cf_error *err);

/* Where a sink's finished bytes go, for both gzip layers: written to
 * file, or (file NULL) appended to the growing buffer mem (len used of
 * cap). The first failure (CF_ERR_IO, CF_ERR_NOMEM) is kept in status and
 * err, and the bytes after it are dropped. */
typedef struct cf_sink_out {
  FILE *file;
  uint8_t *mem;
  size_t len, cap;
  cf_status status;
  cf_error err;
} cf_sink_out;

void cf_sink_out_emit(cf_sink_out *o, const uint8_t *data, size_t n);

/* The end of a sink's output: a file is flushed; the memory buffer goes to
 * *out (freed when out is NULL or on failure). Returns the kept status, or
 * CF_ERR_IO when the flush fails; err gets the message on failure. */
cf_status cf_sink_out_finish(cf_sink_out *o, uint8_t **out, size_t *out_size, cf_error *err);

/* A sink the writer streams the packed message into: a growing memory
 * buffer or a file, optionally through gzip (one of the two gzip layers). */
typedef struct cf_byte_sink cf_byte_sink;
cf_byte_sink *cf_sink_open(FILE *file, bool gzip, cf_error *err);
/* Appends; on failure the sink remembers the first error. */
void cf_sink_write(cf_byte_sink *s, const uint8_t *data, size_t len);
/* Flushes and frees the sink. For a memory sink (file == NULL), out and out_size
 * receive the malloc'd bytes. */
cf_status cf_sink_close(cf_byte_sink *s, uint8_t **out, size_t *out_size, cf_error *err);

/* ---- the Net message (cf_weights_message.c) ---- */

/* Parses a payload into a new cf_weights. If owned, frees payload as soon as
 * protobuf-c is done with it. was_gzip: the payload came out of gzip (for
 * the message when it is neither gzip nor a network). */
cf_status cf_weights_parse_payload(uint8_t *payload, size_t len, bool owned, bool was_gzip,
                                   cf_weights **out, cf_error *err);

/* ---- notes (cf_weights_notes.c) ---- */

/* Adds one note per message type that holds fields cformer's schema does
 * not declare (protobuf-c keeps them as unknown fields), with their count
 * and field numbers. root is the unpacked pblczero.Net. */
struct ProtobufCMessage;
void cf_weights_note_unknown_fields(cf_weights *w, const struct ProtobufCMessage *root);

/* ---- field lists: protobuf field names == cf_weights member names ---- */

#define CF_FFN_FIELDS(X) X(dense1_w) X(dense1_b) X(dense2_w) X(dense2_b)

#define CF_SMOLGEN_FIELDS(X)                                                          \
  X(compress) X(dense1_w) X(dense1_b) X(ln1_gammas) X(ln1_betas) X(dense2_w) X(dense2_b) \
  X(ln2_gammas) X(ln2_betas)

#define CF_MHA_FIELDS(X)                                                              \
  X(q_w) X(q_b) X(k_w) X(k_b) X(v_w) X(v_b) X(dense_w) X(dense_b) X(rpe_q) X(rpe_k)     \
  X(rpe_v)

#define CF_ENCODER_FIELDS(X) X(ln1_gammas) X(ln1_betas) X(ln2_gammas) X(ln2_betas)

#define CF_POLICY_HEAD_FIELDS(X)                                                      \
  X(ip_pol_w) X(ip_pol_b) X(ip2_pol_w) X(ip2_pol_b) X(ip3_pol_w) X(ip3_pol_b) X(ip4_pol_w)

#define CF_VALUE_HEAD_FIELDS(X)                                                       \
  X(ip_val_w) X(ip_val_b) X(ip1_val_w) X(ip1_val_b) X(ip2_val_w) X(ip2_val_b)           \
  X(ip_val_err_w) X(ip_val_err_b) X(ip_val_cat_w) X(ip_val_cat_b)

/* Top-level Weights tensors that keep their names in both layouts. */
#define CF_TOP_FIELDS(X)                                                              \
  X(ip_emb_preproc_w) X(ip_emb_preproc_b) X(ip_emb_w) X(ip_emb_b) X(ip_emb_ln_gammas)   \
  X(ip_emb_ln_betas) X(ip_mult_gate) X(ip_add_gate) X(ip_emb_ffn_ln_gammas)             \
  X(ip_emb_ffn_ln_betas) X(smolgen_w) X(smolgen_b) X(ip_mov_w) X(ip_mov_b) X(ip1_mov_w)  \
  X(ip1_mov_b) X(ip2_mov_w) X(ip2_mov_b)

/* Field names of the heads in PolicyHeads / ValueHeads, by cf id. */
extern const char *const cf_policy_head_field[CF_POLICY_HEAD_COUNT];
extern const char *const cf_value_head_field[CF_VALUE_HEAD_COUNT];

/* The highest engine version whose files cformer reads (Lc0 0.33.x). */
#define CF_WEIGHTS_MAX_MAJOR 0u
#define CF_WEIGHTS_MAX_MINOR 33u

#endif /* CF_WEIGHTS_INTERNAL_H */
