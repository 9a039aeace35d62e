/* cf_engine_weights.h: turns the WeightsFile option into a network:
 * a path, "<built in>" (the network embedded in the binary) or
 * "<autodiscover>" (the newest loadable .pb.gz / .pb in the given folders,
 * else the built-in one), created on the chosen backend. */
#ifndef CF_ENGINE_WEIGHTS_H
#define CF_ENGINE_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "net/cf_net.h"

/* WeightsFile's special values: the network embedded in the binary, and
 * the newest loadable one in the search folders. */
#define CF_WEIGHTS_AUTODISCOVER "<autodiscover>"
#define CF_WEIGHTS_BUILT_IN "<built in>"

/* The embedded default network (generated from
 * weights/default/cformer-default.pb.gz at build time). */
extern const unsigned char cf_default_net_data[];
extern const size_t cf_default_net_size;

typedef struct cf_engine_weights_spec {
  const char *weights;            /* path, CF_WEIGHTS_AUTODISCOVER or CF_WEIGHTS_BUILT_IN */
  const char *const *search_dirs; /* autodiscover folders, NULL-terminated (NULL: none) */
  cf_net_options net;             /* backend ("auto" = default), options, batch, history fill */
  cf_weights_load_options load;   /* payload limit (0 = automatic) and how a user raises it */
} cf_engine_weights_spec;

/* Files autodiscover tried before the one it loaded, and why each failed,
 * so the engine can say why a net beside it was not the one it plays. */
#define CF_ENGINE_SKIPPED_MAX 8
typedef struct cf_engine_skipped {
  char path[512];
  char why[CF_ERROR_MSG_MAX];
} cf_engine_skipped;

typedef struct cf_engine_weights_info {
  cf_engine_skipped skipped[CF_ENGINE_SKIPPED_MAX];
  int n_skipped;        /* listed in skipped (the first CF_ENGINE_SKIPPED_MAX) */
  int n_skipped_total;  /* all the files skipped */
  char source[1024];  /* the file loaded, or "<built in>" */
  char license[256];  /* the file's license field ("" if none) */
  bool untrained;     /* the license field marks the net untrained */
  int layers, d, heads;
  size_t params;
  /* What the file holds that was read but is not run (cf_weights.notes),
   * for the engine to show as warnings. */
  int n_notes;
  char notes[CF_WEIGHTS_NOTES_MAX][CF_WEIGHTS_NOTE_LEN];
} cf_engine_weights_info;

/* Networks whose license field contains this word are untrained
 * placeholders; the engine warns when it loads one. */
#define CF_UNTRAINED_MARKER "untrained"

/* The folders autodiscover searches, in order: exe_dir (may be NULL),
 * exe_dir/networks, $XDG_DATA_HOME/cformer (or $HOME/.local/share/cformer),
 * /usr/local/share/cformer, /usr/share/cformer. Writes up to max - 1
 * entries into buf (storage) and dirs (NULL-terminated). */
void cf_engine_default_search_dirs(const char *exe_dir, char buf[][1024], const char **dirs,
                                   int max);

cf_status cf_engine_load_net(const cf_engine_weights_spec *spec, cf_net **out,
                             cf_engine_weights_info *info, cf_error *err);

#endif /* CF_ENGINE_WEIGHTS_H */
