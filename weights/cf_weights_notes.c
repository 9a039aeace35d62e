/* cf_weights_notes.c: the notes a loaded network carries (cf_weights.notes):
 * fields that were read but are not run, and fields no schema here declares.
 * A file from a newer or different trainer still loads, but never drops what
 * it holds without a word. */
#include <protobuf-c/protobuf-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weights/cf_weights_internal.h"

void cf_weights_add_note(cf_weights *w, const char *fmt, ...) {
  if (!w) return;
  if (w->n_notes >= CF_WEIGHTS_NOTES_MAX) {
    /* Full: the last note gives way to a line that says so. */
    w->n_notes = CF_WEIGHTS_NOTES_MAX;
    snprintf(w->notes[CF_WEIGHTS_NOTES_MAX - 1], CF_WEIGHTS_NOTE_LEN,
             "more notes about ignored fields were left out");
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->notes[w->n_notes++], CF_WEIGHTS_NOTE_LEN, fmt, ap);
  va_end(ap);
}

/* ---- unknown fields ---- */

/* Unknown fields of one message type, summed over its instances. */
#define TALLY_TYPES 16
#define TALLY_NUMBERS 6
typedef struct type_tally {
  const ProtobufCMessageDescriptor *d;
  size_t count;
  uint32_t numbers[TALLY_NUMBERS]; /* the first distinct field numbers */
  int n_numbers;
  bool more_numbers;
} type_tally;

typedef struct tally {
  type_tally t[TALLY_TYPES];
  int n;
  size_t other; /* in message types beyond TALLY_TYPES */
} tally;

static void tally_message(tally *ty, const ProtobufCMessage *m) {
  type_tally *e = NULL;
  for (int i = 0; i < ty->n && !e; i++)
    if (ty->t[i].d == m->descriptor) e = &ty->t[i];
  if (!e) {
    if (ty->n == TALLY_TYPES) {
      ty->other += m->n_unknown_fields;
      return;
    }
    e = &ty->t[ty->n++];
    e->d = m->descriptor;
  }
  for (unsigned k = 0; k < m->n_unknown_fields; k++) {
    const uint32_t tag = m->unknown_fields[k].tag;
    e->count++;
    bool seen = false;
    for (int j = 0; j < e->n_numbers && !seen; j++) seen = e->numbers[j] == tag;
    if (seen) continue;
    if (e->n_numbers < TALLY_NUMBERS) e->numbers[e->n_numbers++] = tag;
    else e->more_numbers = true;
  }
}

/* Walks every message under m through the descriptors, as protobuf-c lays
 * them out: a sub-message is a pointer at the field's offset, a repeated one
 * an array of pointers with its count at the quantifier offset. */
static void walk(tally *ty, const ProtobufCMessage *m) {
  if (m->n_unknown_fields) tally_message(ty, m);
  const ProtobufCMessageDescriptor *d = m->descriptor;
  const char *base = (const char *)m;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n;
      memcpy(&n, base + f->quantifier_offset, sizeof n);
      ProtobufCMessage **arr;
      memcpy(&arr, base + f->offset, sizeof arr);
      for (size_t k = 0; k < n; k++)
        if (arr[k]) walk(ty, arr[k]);
    } else {
      ProtobufCMessage *sub;
      memcpy(&sub, base + f->offset, sizeof sub);
      if (sub) walk(ty, sub);
    }
  }
}

/* "Weights.MHA" for "pblczero.Weights.MHA". */
static const char *type_name(const ProtobufCMessageDescriptor *d) {
  const char *pkg = d->package_name;
  size_t n = pkg ? strlen(pkg) : 0;
  if (n && strncmp(d->name, pkg, n) == 0 && d->name[n] == '.') return d->name + n + 1;
  return d->name;
}

void cf_weights_note_unknown_fields(cf_weights *w, const struct ProtobufCMessage *root) {
  tally ty = {0};
  walk(&ty, root);
  for (int i = 0; i < ty.n; i++) {
    const type_tally *e = &ty.t[i];
    char nums[96] = "";
    size_t k = 0;
    for (int j = 0; j < e->n_numbers && k < sizeof nums; j++)
      k += (size_t)snprintf(nums + k, sizeof nums - k, "%s%u", j ? ", " : "", e->numbers[j]);
    cf_weights_add_note(w, "ignored %zu unknown field%s in %s (field number%s %s%s): not in "
                        "cformer's schema",
                        e->count, e->count == 1 ? "" : "s", type_name(e->d),
                        e->n_numbers == 1 ? "" : "s", nums, e->more_numbers ? ", ..." : "");
  }
  if (ty.other)
    cf_weights_add_note(w, "ignored %zu unknown fields in other messages", ty.other);
}
