/* cf_weights_scan.c: the wire-format scan of a payload, before protobuf-c
 * runs (cf_weights_pb.h): exact diagnostics (field path, byte offset) for
 * what protobuf-c would only call a failed unpack, and bounds on its
 * bookkeeping for hostile input. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weights/cf_weights_pb.h"

/* Most protobuf fields (and packed elements) a payload may hold: a real net
 * has a few hundred per layer. protobuf-c allocates per field, so this bounds
 * its bookkeeping on hostile input. */
#define CF_SCAN_MAX_FIELDS ((uint64_t)1 << 22)

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

cf_status cf_weights_scan(const uint8_t *payload, size_t len, cf_error *err) {
  scan_ctx scan = {.base = payload, .err = err};
  return scan_message(&scan, payload, len, &pblczero__net__descriptor);
}
