/* cf_parity.h: the parity case files of data/parity (one JSON
 * object per line; schema in that folder's README), read with cJSON into
 * plain structs the tests compare against. */
#ifndef CF_PARITY_H
#define CF_PARITY_H

#include <stdbool.h>

#include "encoder/cf_planes.h"
#include "weights/cf_weights.h"

#define CF_PARITY_MAX_MOVES 256
#define CF_PARITY_MAX_PLIES 64
#define CF_PARITY_MAX_CAT 128

/* The parity nets, in the README's order. */
extern const char *const cf_parity_nets[];
extern const int cf_parity_net_count;

typedef struct cf_parity_value {
  bool present;
  float q, err;
  bool has_err;
  int n_cat;
  float cat[CF_PARITY_MAX_CAT];
} cf_parity_value;

typedef struct cf_parity_move {
  char uci[6];
  float logit[CF_POLICY_HEAD_COUNT]; /* per head present in the case */
  int index;                         /* policy_index, -1 if absent */
} cf_parity_move;

typedef struct cf_parity_case {
  char id[64];
  char fen[128];
  char played[CF_PARITY_MAX_PLIES][6]; /* history moves from fen, UCI */
  int n_played;
  int input_format;
  int transform;
  cf_planes planes;
  float wdl[3], q;
  bool has_moves_left;
  float moves_left;
  cf_parity_value value[CF_VALUE_HEAD_COUNT]; /* extra heads only: q, st */
  unsigned policy_heads;                      /* bits 1u << cf_policy_head_id present */
  int n_legal;
  cf_parity_move legal[CF_PARITY_MAX_MOVES]; /* keys of the expected policy */
} cf_parity_case;

/* Reads <dir>/<net>.jsonl into a malloc'd array (*out, *count). Returns
 * false with a message in msg on any problem. */
bool cf_parity_load(const char *dir, const char *net, cf_parity_case **out, int *count, char *msg,
                    int msg_size);

/* Reads one JSON case line (the same schema) into c. */
bool cf_parity_parse_line(const char *line, cf_parity_case *c, char *msg, int msg_size);

/* Reads the cases of parity net `net` (as cf_parity_load, from
 * cf_parity_dir()) and loads its weights file into *w. Returns false with a
 * message in msg, nothing left allocated, on any problem. */
bool cf_parity_load_net(const char *net, cf_parity_case **cases, int *count, cf_weights **w,
                        char *msg, int msg_size);

/* The same for net files and cases kept in another folder (dir). */
bool cf_parity_load_net_in(const char *dir, const char *net, cf_parity_case **cases, int *count,
                           cf_weights **w, char *msg, int msg_size);
/* <testdata>/parity */
const char *cf_parity_dir(void);

/* Index of uci in c->legal, or -1. */
int cf_parity_find_move(const cf_parity_case *c, const char *uci);

#endif /* CF_PARITY_H */
