/* cf_api_net.c: libcformer's networks: opening (file, bytes, built in),
 * information, closing, and the status names (cformer.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_move.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "lib/cf_api_internal.h"
#include "net/cf_net_options.h"
#include "weights/cf_weights.h"

/* The public status values are the internal ones, number for number. */
_Static_assert((int)CFORMER_OK == (int)CF_OK, "status values");
_Static_assert((int)CFORMER_ERR_ARG == (int)CF_ERR_ARG, "status values");
_Static_assert((int)CFORMER_ERR_IO == (int)CF_ERR_IO, "status values");
_Static_assert((int)CFORMER_ERR_FORMAT == (int)CF_ERR_FORMAT, "status values");
_Static_assert((int)CFORMER_ERR_UNSUPPORTED == (int)CF_ERR_UNSUPPORTED, "status values");
_Static_assert((int)CFORMER_ERR_NOMEM == (int)CF_ERR_NOMEM, "status values");
_Static_assert((int)CFORMER_ERR_BACKEND == (int)CF_ERR_BACKEND, "status values");
_Static_assert((int)CFORMER_ERR_INTERNAL == (int)CF_ERR_INTERNAL, "status values");
_Static_assert(CFORMER_ERROR_MAX >= CF_ERROR_MSG_MAX, "message size");
_Static_assert(CFORMER_MAX_MOVES >= CF_MAX_MOVES, "move list size");
_Static_assert(CFORMER_MOVE_MAX >= CF_UCI_MOVE_MAX, "move text size");
_Static_assert(CFORMER_PLANES == CF_PLANE_COUNT, "plane count");

#define DEFAULT_MAX_BATCH 64
#define MAX_MAX_BATCH 4096

const char *cformer_version(void) { return CFORMER_VERSION_STRING; }

const char *cformer_status_name(cformer_status status) {
  switch (status) {
    case CFORMER_OK: return "ok";
    case CFORMER_ERR_ARG: return "bad argument";
    case CFORMER_ERR_IO: return "i/o error";
    case CFORMER_ERR_FORMAT: return "malformed file";
    case CFORMER_ERR_UNSUPPORTED: return "unsupported";
    case CFORMER_ERR_NOMEM: return "out of memory";
    case CFORMER_ERR_BACKEND: return "backend error";
    case CFORMER_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

cformer_status cf_api_fail(cformer_error *out, cf_status st, const cf_error *err) {
  if (out) {
    out->status = (cformer_status)st;
    snprintf(out->message, sizeof out->message, "%s",
             err && err->msg[0] ? err->msg : cformer_status_name((cformer_status)st));
  }
  return (cformer_status)st;
}

cformer_status cf_api_ok(cformer_error *out) {
  if (out) {
    out->status = CFORMER_OK;
    out->message[0] = 0;
  }
  return CFORMER_OK;
}

cformer_status cf_api_arg(cformer_error *out, const char *what) {
  cf_error e;
  cf_error_set(&e, CF_ERR_ARG, "%s", what);
  return cf_api_fail(out, CF_ERR_ARG, &e);
}

/* The network options of opts: backend "auto" is the default;
 * backend_options is parsed here, once, into *kv (for the caller to free),
 * where threads becomes lanes=N unless it sets lanes or threads (as the
 * engine's Threads option does: net/cf_net_options.h). */
static cf_status net_options(const cformer_options *opts, cf_kv **kv, cf_net_options *o,
                             cf_error *err) {
  *o = (cf_net_options){.max_batch = DEFAULT_MAX_BATCH, .history_fill = CF_HISTORY_FILL_FEN_ONLY};
  *kv = NULL;
  if (!opts) return CF_OK;
  if (opts->backend && *opts->backend && strcmp(opts->backend, "auto") != 0)
    o->backend = opts->backend;
  if (opts->max_batch < 0 || opts->max_batch > MAX_MAX_BATCH)
    return cf_error_set(err, CF_ERR_ARG, "max_batch %d out of range (0 to %d)", opts->max_batch,
                        MAX_MAX_BATCH);
  if (opts->max_batch > 0) o->max_batch = opts->max_batch;
  if (opts->threads < 0) return cf_error_set(err, CF_ERR_ARG, "threads %d is negative", opts->threads);
  if (opts->history_fill)
    CF_TRY(cf_history_fill_parse(opts->history_fill, &o->history_fill, err));
  CF_TRY(cf_kv_parse(opts->backend_options, kv, err));
  o->backend_kv = *kv;
  return cf_net_options_default_lanes(*kv, opts->threads, err);
}

/* Creates the net from loaded weights (always freed). */
static cformer_status open_weights(cf_weights *w, const cformer_options *opts, cformer_net **out,
                                   cformer_error *err) {
  cf_error e = {0};
  cformer_net *n = calloc(1, sizeof *n);
  if (!n) {
    cf_weights_free(w);
    cf_error_set(&e, CF_ERR_NOMEM, "out of memory");
    return cf_api_fail(err, CF_ERR_NOMEM, &e);
  }
  cf_net_options o;
  cf_kv *kv = NULL;
  cf_status st = net_options(opts, &kv, &o, &e);
  if (st == CF_OK) st = cf_net_create(w, &o, &n->net, &e);
  cf_kv_free(kv);
  if (st != CF_OK) {
    cf_weights_free(w);
    free(n);
    return cf_api_fail(err, st, &e);
  }
  const cf_net_info *ni = cf_net_get_info(n->net);
  n->fill = o.history_fill;
  n->info = (cformer_net_info){
      .backend = ni->backend,
      .layers = w->arch.layers,
      .d_model = w->arch.d,
      .heads = w->arch.heads,
      .dff = w->arch.dff,
      .params = w->param_count,
      .input_format = ni->input_format,
      .has_moves_left = ni->has_moves_left,
      .max_batch = ni->max_batch,
  };
  cf_weights_free(w);
  *out = n;
  return cf_api_ok(err);
}

cformer_status cformer_open_file(const char *path, const cformer_options *opts, cformer_net **out,
                                 cformer_error *err) {
  if (!out) return cf_api_arg(err, "cformer_open_file: out is NULL");
  *out = NULL;
  if (!path || !*path) return cf_api_arg(err, "cformer_open_file: no path given");
  cf_weights *w;
  cf_error e = {0};
  cf_status st = cf_weights_load_file(path, NULL, &w, &e);
  if (st != CF_OK) return cf_api_fail(err, st, &e);
  return open_weights(w, opts, out, err);
}

cformer_status cformer_open_bytes(const void *data, size_t size, const char *name,
                                  const cformer_options *opts, cformer_net **out,
                                  cformer_error *err) {
  if (!out) return cf_api_arg(err, "cformer_open_bytes: out is NULL");
  *out = NULL;
  if (!data && size) return cf_api_arg(err, "cformer_open_bytes: data is NULL");
  cf_weights *w;
  cf_error e = {0};
  cf_status st = cf_weights_load_memory(data, size, name ? name : "<memory>", NULL, &w, &e);
  if (st != CF_OK) return cf_api_fail(err, st, &e);
  return open_weights(w, opts, out, err);
}

cformer_status cformer_open_builtin(const cformer_options *opts, cformer_net **out,
                                    cformer_error *err) {
  return cformer_open_bytes(cf_default_net_data, cf_default_net_size, CF_WEIGHTS_BUILT_IN, opts,
                            out, err);
}

void cformer_close(cformer_net *net) {
  if (!net) return;
  cf_net_free(net->net);
  free(net);
}

cformer_status cformer_net_get_info(const cformer_net *net, cformer_net_info *out,
                                    cformer_error *err) {
  if (!net || !out) return cf_api_arg(err, "cformer_net_get_info: net or out is NULL");
  *out = net->info;
  return cf_api_ok(err);
}
