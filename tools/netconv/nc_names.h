/* nc_names.h: the tensor name tables of `netconv import/export`.
 *
 * Every tensor slot of a cf_weights has two names: our trainer's (exactly
 * the PyTorch state_dict names of training/model.py where the model has the
 * tensor, the same style beyond it; docs/TRAINER_NAMES.md) and the
 * Chessformer trainer's (lczero-training's TensorFlow variable names,
 * NETWORK.md section 9). In our naming a 2-D tensor
 * is [out][in] (nn.Linear), as in cf_weights; in the Chessformer naming
 * every 2-D tensor is transposed ([in][out], TensorFlow's Dense). */
#ifndef NC_NAMES_H
#define NC_NAMES_H

#include <stdbool.h>

#include "weights/cf_weights.h"

typedef enum nc_naming { NC_NAMING_OURS, NC_NAMING_CHESSFORMER } nc_naming;

typedef struct nc_slot {
  cf_tensor *t;
  char name[2][96];  /* [nc_naming] */
  int rows;          /* 2-D: rows in cf_weights layout ([out][in]) from arch; 0 = 1-D */
  bool matrix;
  bool required;     /* an importer without it cannot build a net */
} nc_slot;

/* Every tensor slot of w (present or not) in file order, with rows from
 * w->arch (0 while the arch is not inferred). Layers come from w->arch.layers
 * and w->layers; smolgen slots only for layers with has_smolgen. *count
 * receives the number; returns a malloc'd array (NULL when out of memory). */
nc_slot *nc_slots(cf_weights *w, int *count);

/* The slot named name in naming n, or NULL. */
nc_slot *nc_slot_find(nc_slot *slots, int count, nc_naming n, const char *name);

/* Encoder layer index (0-based) a name belongs to, or -1: "encoder.N." in
 * our naming, "encoder_N/" (N from 1) in the Chessformer naming. */
int nc_name_layer(nc_naming n, const char *name);

/* Whether name belongs to a layer's smolgen. */
bool nc_name_is_smolgen(nc_naming n, const char *name);

const char *nc_naming_name(nc_naming n); /* "ours", "chessformer" */

/* Longest tensor name the tables and the importer handle. */
#define NC_NAME_MAX 128

/* A name as the tables spell it, into buf. In the Chessformer naming a
 * TensorFlow variable name's output suffix ":0" is dropped
 * ("encoder_1/mha/wq/kernel:0"), and "smolgen_weights/" (what cformer wrote
 * before it used the trainer's own name) is read as "smol_weight_gen/".
 * Our naming is returned as is. */
const char *nc_name_canonical(nc_naming n, const char *name, char *buf, size_t size);

/* Chessformer-trainer tensors that cformer reads but does not run. */
typedef enum nc_ignored {
  NC_USED = 0,
  NC_IGNORED_SCALE, /* a quantisation step size: .../mha/.../s, .../ffn/.../s */
  NC_IGNORED_NEXT,  /* the `next` policy head: policy/next/... */
} nc_ignored;

/* What a (canonical) name is; NC_USED for our naming and every other name. */
nc_ignored nc_name_ignored(nc_naming n, const char *name);

/* The Chessformer trainer feeds rule50/99 for input formats 1-3 where
 * engines feed the raw count (NETWORK.md section 9), so its embedding
 * kernel's input column 109 is 99 times the engine's. */
#define NC_RULE50_COLUMN 109
#define NC_RULE50_SCALE 99.0f
static inline bool nc_needs_rule50_fold(int input_format) {
  return input_format >= 1 && input_format <= 3;
}

#endif /* NC_NAMES_H */
