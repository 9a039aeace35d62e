/* cf_weights_protobuf_tree.c: the part of the protobuf-c runtime that the
 * generated cf_net.pb-c.c and weights/ call, for builds that have no
 * libprotobuf-c to link (WebAssembly: Debian ships the library built for
 * the machine, not its source). The build compiles this file or links
 * libprotobuf-c, never both (weights/meson.build, option protobuf_c).
 *
 * It reads the descriptors protoc-c generates (the structs of Debian's
 * <protobuf-c/protobuf-c.h>) and gives the library's results: unpack with
 * proto2 merge semantics (a repeated message field merges, scalars keep
 * the last value, repeated fields append, packed or not), unknown fields
 * kept as protobuf-c keeps them (tag = field number, data = the bytes after
 * the key), and pack writing the fields in descriptor order then the
 * unknown fields, so a message packs to the same bytes as with protobuf-c
 * (tests/weights, the tree variant, checks a round trip of real nets).
 * Group wire types (3, 4) are refused as protobuf-c refuses them. */
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char protobuf_c_empty_string[] = "";

enum { MAX_DEPTH = 64 }; /* nested messages; the Net descriptor nests 6 deep */

/* ---- shared ---- */

static void *do_alloc(ProtobufCAllocator *a, size_t n) {
  if (n == 0) n = 1;
  return a ? a->alloc(a->allocator_data, n) : malloc(n);
}

static void do_free(ProtobufCAllocator *a, void *p) {
  if (!p) return;
  if (a) a->free(a->allocator_data, p);
  else free(p);
}

static void *member(const void *msg, unsigned offset) { return (char *)(uintptr_t)msg + offset; }

/* Bytes one element of a field takes in the message (or its array). */
static size_t elem_size(ProtobufCType t) {
  switch (t) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return 8;
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
    default: return 4;
  }
}

static ProtobufCWireType wire_of(ProtobufCType t) {
  switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT: return PROTOBUF_C_WIRE_TYPE_32BIT;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return PROTOBUF_C_WIRE_TYPE_64BIT;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE: return PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    default: return PROTOBUF_C_WIRE_TYPE_VARINT;
  }
}

const ProtobufCFieldDescriptor *protobuf_c_message_descriptor_get_field(
    const ProtobufCMessageDescriptor *desc, unsigned value) {
  unsigned lo = 0, hi = desc->n_fields; /* fields are in order of number */
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (desc->fields[mid].id == value) return &desc->fields[mid];
    if (desc->fields[mid].id < value) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* ---- free ---- */

static void free_value(const ProtobufCFieldDescriptor *f, void *at, ProtobufCAllocator *a,
                       bool repeated) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
      char *s = *(char **)at;
      if (s && (repeated || s != f->default_value)) do_free(a, s);
      break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
      ProtobufCBinaryData *b = at;
      const ProtobufCBinaryData *def = f->default_value;
      if (b->data && (repeated || !def || b->data != def->data)) do_free(a, b->data);
      break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
      ProtobufCMessage *m = *(ProtobufCMessage **)at;
      if (m && (repeated || (const void *)m != f->default_value))
        protobuf_c_message_free_unpacked(m, a);
      break;
    }
    default: break;
  }
}

void protobuf_c_message_free_unpacked(ProtobufCMessage *msg, ProtobufCAllocator *a) {
  if (!msg) return;
  const ProtobufCMessageDescriptor *d = msg->descriptor;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(size_t *)member(msg, f->quantifier_offset);
      char *arr = *(char **)member(msg, f->offset);
      for (size_t k = 0; arr && k < n; k++) free_value(f, arr + k * elem_size(f->type), a, true);
      do_free(a, arr);
    } else if (!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) ||
               *(uint32_t *)member(msg, f->quantifier_offset) == f->id) {
      free_value(f, member(msg, f->offset), a, false);
    }
  }
  for (unsigned k = 0; k < msg->n_unknown_fields; k++) do_free(a, msg->unknown_fields[k].data);
  do_free(a, msg->unknown_fields);
  do_free(a, msg);
}

/* ---- unpack ---- */

typedef struct reader {
  const uint8_t *p, *end;
} reader;

static bool read_varint(reader *r, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 10; i++) {
    if (r->p >= r->end) return false;
    uint8_t b = *r->p++;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

static uint64_t read_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* Room for one more element in an array of n that grows by doubling: the
 * capacity is the power of two at or above n, so it needs no record. */
static bool grow(ProtobufCAllocator *a, void **arr, size_t n, size_t size) {
  if (n & (n - 1)) return true; /* n is not a power of two: room left */
  size_t cap = n ? n * 2 : 1;
  if (cap > SIZE_MAX / size) return false;
  void *na = do_alloc(a, cap * size);
  if (!na) return false;
  if (n) memcpy(na, *arr, n * size);
  do_free(a, *arr);
  *arr = na;
  return true;
}

static bool parse_message(const ProtobufCMessageDescriptor *d, ProtobufCMessage *msg,
                          ProtobufCAllocator *a, const uint8_t *data, size_t len, int depth);

/* One scalar value of wire type wt from r into at. */
static bool read_scalar(ProtobufCType t, ProtobufCWireType wt, reader *r, void *at) {
  if (wt != wire_of(t)) return false;
  if (wt == PROTOBUF_C_WIRE_TYPE_32BIT || wt == PROTOBUF_C_WIRE_TYPE_64BIT) {
    const int n = wt == PROTOBUF_C_WIRE_TYPE_32BIT ? 4 : 8;
    if (r->end - r->p < n) return false;
    uint64_t v = read_le(r->p, n);
    r->p += n;
    if (n == 4) {
      uint32_t v32 = (uint32_t)v;
      memcpy(at, &v32, 4);
    } else {
      memcpy(at, &v, 8);
    }
    return true;
  }
  uint64_t v;
  if (!read_varint(r, &v)) return false;
  switch (t) {
    case PROTOBUF_C_TYPE_SINT32: {
      int32_t s = (int32_t)((uint32_t)(v >> 1) ^ (uint32_t)-(int32_t)(v & 1));
      memcpy(at, &s, 4);
      break;
    }
    case PROTOBUF_C_TYPE_SINT64: {
      int64_t s = (int64_t)((v >> 1) ^ (uint64_t)-(int64_t)(v & 1));
      memcpy(at, &s, 8);
      break;
    }
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64: memcpy(at, &v, 8); break;
    case PROTOBUF_C_TYPE_BOOL: {
      protobuf_c_boolean b = v != 0;
      memcpy(at, &b, sizeof b);
      break;
    }
    default: { /* int32, uint32, enum: the low 32 bits */
      uint32_t v32 = (uint32_t)v;
      memcpy(at, &v32, 4);
      break;
    }
  }
  return true;
}

/* A string, bytes or message value (its payload p[0..n)) into at, an
 * element or the field itself; a message already there is merged into. */
static bool read_pointer(const ProtobufCFieldDescriptor *f, ProtobufCAllocator *a, const uint8_t *p,
                         size_t n, void *at, bool repeated, int depth) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
      char *s = do_alloc(a, n + 1);
      if (!s) return false;
      memcpy(s, p, n);
      s[n] = 0;
      free_value(f, at, a, repeated);
      *(char **)at = s;
      return true;
    }
    case PROTOBUF_C_TYPE_BYTES: {
      uint8_t *b = NULL;
      if (n) {
        b = do_alloc(a, n);
        if (!b) return false;
        memcpy(b, p, n);
      }
      free_value(f, at, a, repeated);
      ((ProtobufCBinaryData *)at)->len = n;
      ((ProtobufCBinaryData *)at)->data = b;
      return true;
    }
    default: { /* message */
      const ProtobufCMessageDescriptor *sd = f->descriptor;
      ProtobufCMessage **m = at;
      if (!repeated && *m && (const void *)*m != f->default_value)
        return parse_message(sd, *m, a, p, n, depth + 1);
      ProtobufCMessage *sub = do_alloc(a, sd->sizeof_message);
      if (!sub) return false;
      sd->message_init(sub);
      *m = sub; /* first: a failed parse leaves it to the caller's free */
      return parse_message(sd, sub, a, p, n, depth + 1);
    }
  }
}

static bool keep_unknown(ProtobufCMessage *msg, ProtobufCAllocator *a, uint32_t number,
                         ProtobufCWireType wt, const uint8_t *p, size_t n) {
  void *arr = msg->unknown_fields;
  if (!grow(a, &arr, msg->n_unknown_fields, sizeof(ProtobufCMessageUnknownField))) return false;
  msg->unknown_fields = arr;
  uint8_t *copy = do_alloc(a, n);
  if (!copy) return false;
  memcpy(copy, p, n);
  ProtobufCMessageUnknownField *u = &msg->unknown_fields[msg->n_unknown_fields++];
  u->tag = number;
  u->wire_type = wt;
  u->len = n;
  u->data = copy;
  return true;
}

/* Skips one value of wire type wt; false when it does not fit. */
static bool skip_value(ProtobufCWireType wt, reader *r) {
  uint64_t v;
  switch (wt) {
    case PROTOBUF_C_WIRE_TYPE_VARINT: return read_varint(r, &v);
    case PROTOBUF_C_WIRE_TYPE_64BIT:
      if (r->end - r->p < 8) return false;
      r->p += 8;
      return true;
    case PROTOBUF_C_WIRE_TYPE_32BIT:
      if (r->end - r->p < 4) return false;
      r->p += 4;
      return true;
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
      if (!read_varint(r, &v) || v > (uint64_t)(r->end - r->p)) return false;
      r->p += v;
      return true;
    default: return false;
  }
}

static bool parse_field(const ProtobufCFieldDescriptor *f, ProtobufCMessage *msg,
                        ProtobufCAllocator *a, ProtobufCWireType wt, reader *r, int depth) {
  const bool is_pointer = f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES ||
                          f->type == PROTOBUF_C_TYPE_MESSAGE;
  const uint8_t *payload = NULL;
  size_t plen = 0;
  if (wt == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) {
    uint64_t n;
    if (!read_varint(r, &n) || n > (uint64_t)(r->end - r->p)) return false;
    payload = r->p;
    plen = (size_t)n;
    r->p += n;
  }
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    size_t *count = member(msg, f->quantifier_offset);
    void **arr = member(msg, f->offset);
    const size_t es = elem_size(f->type);
    if (!is_pointer && wt == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) { /* packed */
      reader pr = {payload, payload + plen};
      while (pr.p < pr.end) {
        if (!grow(a, arr, *count, es)) return false;
        if (!read_scalar(f->type, wire_of(f->type), &pr, (char *)*arr + *count * es)) return false;
        ++*count;
      }
      return true;
    }
    if (!grow(a, arr, *count, es)) return false;
    char *at = (char *)*arr + *count * es;
    if (!is_pointer) {
      if (!read_scalar(f->type, wt, r, at)) return false;
      ++*count;
      return true;
    }
    if (wt != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) return false;
    memset(at, 0, es);
    ++*count; /* counted before it is filled: a failure frees what it holds */
    return read_pointer(f, a, payload, plen, at, true, depth);
  }
  void *at = member(msg, f->offset);
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
    uint32_t *which = member(msg, f->quantifier_offset);
    if (*which != f->id && *which != 0) {
      const ProtobufCFieldDescriptor *old =
          protobuf_c_message_descriptor_get_field(msg->descriptor, *which);
      if (old) {
        free_value(old, member(msg, old->offset), a, false);
        memset(member(msg, old->offset), 0, elem_size(old->type));
      }
    }
    *which = f->id;
  } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_STRING &&
             f->type != PROTOBUF_C_TYPE_MESSAGE) {
    *(protobuf_c_boolean *)member(msg, f->quantifier_offset) = 1;
  }
  if (!is_pointer) return read_scalar(f->type, wt, r, at);
  if (wt != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) return false;
  return read_pointer(f, a, payload, plen, at, false, depth);
}

static bool parse_message(const ProtobufCMessageDescriptor *d, ProtobufCMessage *msg,
                          ProtobufCAllocator *a, const uint8_t *data, size_t len, int depth) {
  if (depth > MAX_DEPTH) return false;
  reader r = {data, data + len};
  while (r.p < r.end) {
    uint64_t key;
    if (!read_varint(&r, &key) || key >> 3 == 0 || key >> 3 > 0x1fffffff) return false;
    const uint32_t number = (uint32_t)(key >> 3);
    const ProtobufCWireType wt = (ProtobufCWireType)(key & 7);
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(d, number);
    if (!f) {
      const uint8_t *start = r.p;
      if (!skip_value(wt, &r)) return false;
      if (!keep_unknown(msg, a, number, wt, start, (size_t)(r.p - start))) return false;
      continue;
    }
    if (!parse_field(f, msg, a, wt, &r, depth)) return false;
  }
  return true;
}

ProtobufCMessage *protobuf_c_message_unpack(const ProtobufCMessageDescriptor *d,
                                            ProtobufCAllocator *a, size_t len,
                                            const uint8_t *data) {
  ProtobufCMessage *msg = do_alloc(a, d->sizeof_message);
  if (!msg) return NULL;
  d->message_init(msg);
  if (!parse_message(d, msg, a, data, len, 0)) {
    protobuf_c_message_free_unpacked(msg, a);
    return NULL;
  }
  return msg;
}

/* ---- pack ---- */

/* Output that counts (out NULL) or writes. */
typedef struct writer {
  uint8_t *out;
  ProtobufCBuffer *buffer;
  size_t n;
} writer;

static void put(writer *w, const void *p, size_t n) {
  if (n == 0) return; /* p may be NULL then (an empty string or bytes) */
  if (w->out) memcpy(w->out + w->n, p, n);
  else if (w->buffer) w->buffer->append(w->buffer, n, p);
  w->n += n;
}

static void put_varint(writer *w, uint64_t v) {
  uint8_t b[10];
  int n = 0;
  do {
    b[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) b[n] |= 0x80;
    n++;
  } while (v);
  put(w, b, (size_t)n);
}

static void put_le(writer *w, uint64_t v, int n) {
  uint8_t b[8];
  for (int i = 0; i < n; i++) b[i] = (uint8_t)(v >> (8 * i));
  put(w, b, (size_t)n);
}

static size_t pack_into(const ProtobufCMessage *msg, writer *w);

/* One element's bytes without its key. */
static void put_value(writer *w, ProtobufCType t, const void *at) {
  uint32_t u32;
  uint64_t u64;
  switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
      memcpy(&u32, at, 4);
      put_le(w, u32, 4);
      break;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      memcpy(&u64, at, 8);
      put_le(w, u64, 8);
      break;
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_ENUM: {
      int32_t s;
      memcpy(&s, at, 4);
      put_varint(w, (uint64_t)(int64_t)s); /* negative: ten bytes, as protobuf */
      break;
    }
    case PROTOBUF_C_TYPE_SINT32: {
      int32_t s;
      memcpy(&s, at, 4);
      put_varint(w, ((uint32_t)s << 1) ^ (uint32_t)(s >> 31));
      break;
    }
    case PROTOBUF_C_TYPE_SINT64: {
      int64_t s;
      memcpy(&s, at, 8);
      put_varint(w, ((uint64_t)s << 1) ^ (uint64_t)(s >> 63));
      break;
    }
    case PROTOBUF_C_TYPE_UINT32:
      memcpy(&u32, at, 4);
      put_varint(w, u32);
      break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
      memcpy(&u64, at, 8);
      put_varint(w, u64);
      break;
    case PROTOBUF_C_TYPE_BOOL: {
      protobuf_c_boolean b;
      memcpy(&b, at, sizeof b);
      put_varint(w, b ? 1 : 0);
      break;
    }
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(const char *const *)at;
      size_t n = s ? strlen(s) : 0;
      put_varint(w, n);
      put(w, s, n);
      break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *b = at;
      put_varint(w, b->len);
      put(w, b->data, b->len);
      break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
      const ProtobufCMessage *m = *(const ProtobufCMessage *const *)at;
      writer count = {0};
      if (m) pack_into(m, &count);
      put_varint(w, count.n);
      if (m) pack_into(m, w);
      break;
    }
  }
}

static void put_key(writer *w, uint32_t number, ProtobufCWireType wt) {
  put_varint(w, (uint64_t)number << 3 | (uint64_t)wt);
}

/* Whether a singular field is written: a required one always, an optional
 * pointer when set and not its default, an optional scalar when has_ is
 * set, a oneof member when chosen, a proto3 field when not zero/empty. */
static bool present(const ProtobufCFieldDescriptor *f, const ProtobufCMessage *msg) {
  const void *at = member(msg, f->offset);
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)member(msg, f->quantifier_offset) == f->id;
  if (f->label == PROTOBUF_C_LABEL_REQUIRED) return true;
  if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE) {
    const void *p = *(const void *const *)at;
    if (f->label == PROTOBUF_C_LABEL_NONE && f->type == PROTOBUF_C_TYPE_STRING)
      return p && *(const char *)p;
    return p && p != f->default_value;
  }
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL)
    return *(const protobuf_c_boolean *)member(msg, f->quantifier_offset) != 0;
  /* LABEL_NONE: not all zero bytes */
  if (f->type == PROTOBUF_C_TYPE_BYTES) return ((const ProtobufCBinaryData *)at)->len > 0;
  const uint8_t *b = at;
  for (size_t i = 0; i < elem_size(f->type); i++)
    if (b[i]) return true;
  return false;
}

static size_t pack_into(const ProtobufCMessage *msg, writer *w) {
  const size_t start = w->n;
  const ProtobufCMessageDescriptor *d = msg->descriptor;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->label != PROTOBUF_C_LABEL_REPEATED) {
      if (!present(f, msg)) continue;
      put_key(w, f->id, wire_of(f->type));
      put_value(w, f->type, member(msg, f->offset));
      continue;
    }
    const size_t n = *(const size_t *)member(msg, f->quantifier_offset);
    const char *arr = *(const char *const *)member(msg, f->offset);
    const size_t es = elem_size(f->type);
    if (n == 0) continue;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) {
      writer count = {0};
      for (size_t k = 0; k < n; k++) put_value(&count, f->type, arr + k * es);
      put_key(w, f->id, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
      put_varint(w, count.n);
      for (size_t k = 0; k < n; k++) put_value(w, f->type, arr + k * es);
      continue;
    }
    for (size_t k = 0; k < n; k++) {
      put_key(w, f->id, wire_of(f->type));
      put_value(w, f->type, arr + k * es);
    }
  }
  for (unsigned k = 0; k < msg->n_unknown_fields; k++) {
    const ProtobufCMessageUnknownField *u = &msg->unknown_fields[k];
    put_key(w, u->tag, u->wire_type);
    put(w, u->data, u->len);
  }
  return w->n - start;
}

size_t protobuf_c_message_get_packed_size(const ProtobufCMessage *msg) {
  writer w = {0};
  return pack_into(msg, &w);
}

size_t protobuf_c_message_pack(const ProtobufCMessage *msg, uint8_t *out) {
  writer w = {.out = out};
  return pack_into(msg, &w);
}

size_t protobuf_c_message_pack_to_buffer(const ProtobufCMessage *msg, ProtobufCBuffer *buffer) {
  writer w = {.buffer = buffer};
  return pack_into(msg, &w);
}
