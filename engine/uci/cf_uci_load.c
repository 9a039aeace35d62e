/* cf_uci_load.c: the network as the options name it. The key of a net
 * (weights, backend, its options, history fill, batch) says whether the one
 * loaded is still right; a load runs on the loader's thread
 * (cf_engine_loader.h) and, when it ends, reports what it has to say and
 * runs the commands that waited for it (cf_uci_queue.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cf_kv.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_load.h"
#include "engine/uci/cf_uci_queue.h"
#include "engine/uci/cf_uci_search.h"
#include "net/cf_net_options.h"
#include "net/cf_net_planes.h"

cf_status cf_uci_backend_options_changed(cf_uci *u, cf_error *err) {
  (void)err;
  cf_kv *kv = NULL;
  u->backend_kv_err = (cf_error){0};
  cf_kv_parse(u->opt[CF_OPT_BACKEND_OPTIONS].text, &kv, &u->backend_kv_err);
  cf_kv_free(u->backend_kv);
  u->backend_kv = kv;
  return CF_OK;
}

/* The backend options the net is created with: a copy of the list
 * BackendOptions was parsed into when it was set, with the engine's
 * defaults set on it where it names none:
 * precision=CF_UCI_DEFAULT_PRECISION (docs/PRECISION.md "precision=auto"),
 * and on a CPU backend lanes=Threads when Threads is above 1 and
 * BackendOptions sets neither lanes nor the backend's own threads (Threads
 * is how Lc0 users ask for more cores; on a CPU the network splits each
 * batch across that many sleeping threads: net/cf_net_lanes.h; on a device
 * they are batches in flight: cf_uci_search_params). */
static cf_status backend_options(const cf_uci *u, cf_kv **out, cf_error *err) {
  cf_status st = u->backend_kv
                     ? cf_kv_clone(u->backend_kv, out, err)
                     : cf_error_set(err, u->backend_kv_err.status, "%s", u->backend_kv_err.msg);
  if (st == CF_OK) st = cf_kv_set_default(*out, "precision", CF_UCI_DEFAULT_PRECISION, err);
  if (st == CF_OK && !cf_uci_device_backend(u))
    st = cf_net_options_default_lanes(*out, (int)u->opt[CF_OPT_THREADS].i, err);
  if (st != CF_OK) {
    cf_kv_free(*out);
    *out = NULL;
    cf_error_prefix(err, "BackendOptions");
  }
  return st;
}

/* Positions per network pass: the search's MinibatchSize when set, else
 * the larger of the engine's batch and the backend's default minibatch. */
static int net_batch(const cf_uci *u) {
  const cf_search_params *p = cf_search_get_params(u->search);
  const int mb = cf_search_minibatch(p, u->opt[CF_OPT_BACKEND].text);
  return p->minibatch_size > 0 || mb > u->max_batch ? mb : u->max_batch;
}

/* The key of the net the options name: its backend options as the list
 * renders them, so equal lists are one key. When BackendOptions does not
 * parse, the key holds its text after a newline (which no rendering has)
 * and err says why; else *opts (when not NULL) gets the list. */
static cf_status net_key(const cf_uci *u, char *key, size_t size, cf_kv **opts, cf_error *err) {
  cf_kv *kv = NULL;
  cf_status st = backend_options(u, &kv, err);
  char *text = st == CF_OK ? cf_kv_render(kv) : NULL;
  if (st == CF_OK && !text) st = cf_error_set(err, CF_ERR_NOMEM, "BackendOptions: out of memory");
  snprintf(key, size, "%s\n%s\n%s%s\n%s\n%d", u->opt[CF_OPT_WEIGHTS_FILE].text,
           u->opt[CF_OPT_BACKEND].text, text ? "" : "\n",
           text ? text : u->opt[CF_OPT_BACKEND_OPTIONS].text, u->opt[CF_OPT_HISTORY_FILL].text,
           net_batch(u));
  free(text);
  if (st == CF_OK && opts) *opts = kv;
  else cf_kv_free(kv);
  return st;
}

/* WeightsMaxMb as the loader's limit; a refused file's message names the
 * option and its flag (name is the storage). */
static cf_weights_load_options weights_limit(const cf_uci *u, char *name, size_t size) {
  snprintf(name, size, "%s (--%s)", CF_UCI_WEIGHTS_MAX_MB_NAME, CF_UCI_WEIGHTS_MAX_MB_FLAG);
  return (cf_weights_load_options){
      .max_decompressed_bytes = (uint64_t)u->opt[CF_OPT_WEIGHTS_MAX_MB].i << 20,
      .limit_name = name};
}

/* Whether the loaded net is the one the options ask for. */
bool cf_uci_net_ready(const cf_uci *u) {
  char key[CF_UCI_NET_KEY_MAX];
  net_key(u, key, sizeof key, NULL, NULL);
  return u->net && strcmp(key, u->net_key) == 0;
}

/* What a network load said: the net and its notes, or the error. */
static void report_load(cf_uci *u, const cf_engine_weights_info *info) {
  /* The backend's variant says which kernels and, for precision=auto
   * (the engine's default), which precision this CPU got. */
  const cf_net_info *ni = cf_net_get_info(u->net);
  cf_uci_say(u, "loaded network %s (%d layers, d %d, %d heads, %zu parameters) on %s%s%s%s",
       info->source, info->layers, info->d, info->heads, info->params, ni->backend,
       ni->backend_variant ? " (" : "", ni->backend_variant ? ni->backend_variant : "",
       ni->backend_variant ? ")" : "");
  /* Fields of the file that were read but are not run (weights/). */
  for (int i = 0; i < info->n_notes; i++) cf_uci_say(u, "warning: %s", info->notes[i]);
  /* Autodiscover's choice: say which newer files it passed over, and why,
   * or a user wonders why the net beside the binary is not the one played. */
  for (int i = 0; i < info->n_skipped; i++) {
    const char *why = info->skipped[i].why;
    if (strstr(why, info->skipped[i].path))
      cf_uci_say(u, "warning: autodiscover skipped %s", why);
    else
      cf_uci_say(u, "warning: autodiscover skipped %s: %s", info->skipped[i].path, why);
  }
  if (info->n_skipped_total > info->n_skipped)
    cf_uci_say(u, "warning: autodiscover skipped %d more files",
         info->n_skipped_total - info->n_skipped);
  if (info->untrained)
    cf_uci_say(u, "warning: this network is untrained (random weights: \"%s\"); its moves "
            "are meaningless. Set WeightsFile (or --weights) to a trained network.",
         info->license);
}

static void record_failure(cf_uci *u, const char *key, const char *msg) {
  snprintf(u->failed_key, sizeof u->failed_key, "%s", key);
  snprintf(u->failed_msg, sizeof u->failed_msg, "%s", msg);
  cf_uci_emit(u, "info string error: %s", msg);
}

/* A load ended, on the loader's thread: the net (or the error) is taken
 * and the commands that waited for it run. */
static bool on_loaded(void *user, cf_engine_loader *l) {
  cf_uci *u = user;
  pthread_mutex_lock(&u->cmd_mu);
  if (u->closing || u->loader != l) { /* cf_uci_free releases it */
    pthread_mutex_unlock(&u->cmd_mu);
    return false;
  }
  cf_error err = {0};
  cf_engine_weights_info info;
  if (cf_engine_loader_take(l, &u->net, &info, &err) == CF_OK) {
    snprintf(u->net_key, sizeof u->net_key, "%s", u->loading_key);
    u->failed_key[0] = 0;
    report_load(u, &info);
  } else {
    record_failure(u, u->loading_key, err.msg);
  }
  u->loader = NULL;
  cf_uci_pump(u);
  pthread_cond_broadcast(&u->idle_cv);
  pthread_mutex_unlock(&u->cmd_mu);
  return true;
}

/* Makes the net match the options: ready, failed (the load error is
 * reported once per setting, as isready may come often, until setoption
 * WeightsFile or WeightsMaxMb, or a go, clears failed_key to try again),
 * or loading now: a load was started on the loader's thread (or one is
 * under way), and what waits for it runs when it ends (on_loaded). Without
 * background loading the load runs here and is ready or failed on return.
 * Under cmd_mu. */
cf_uci_net_state cf_uci_start_load(cf_uci *u) {
  if (u->loader) return CF_UCI_NET_LOADING; /* the options are looked at again when it ends */
  char key[CF_UCI_NET_KEY_MAX];
  cf_kv *opts = NULL;
  cf_error opts_err = {0};
  const cf_status opts_st = net_key(u, key, sizeof key, &opts, &opts_err);
  const bool ready = u->net && strcmp(key, u->net_key) == 0;
  if (ready || strcmp(key, u->failed_key) == 0) {
    cf_kv_free(opts);
    return ready ? CF_UCI_NET_READY : CF_UCI_NET_FAILED;
  }
  /* One net in memory at a time; no search runs during a load. */
  cf_net_free(u->net);
  u->net = NULL;
  char limit_name[128];
  cf_engine_weights_spec spec = {
      .weights = u->opt[CF_OPT_WEIGHTS_FILE].text,
      .search_dirs = (const char *const *)u->search_dirs,
      .net = {.backend = u->opt[CF_OPT_BACKEND].text,
              .backend_kv = opts,
              .max_batch = net_batch(u)},
      .load = weights_limit(u, limit_name, sizeof limit_name),
  };
  /* A new network makes the tree and the cached outputs meaningless. */
  cf_search_reset(u->search);
  cf_error err = opts_err;
  cf_status st = opts_st;
  if (st == CF_OK)
    st = cf_history_fill_parse(u->opt[CF_OPT_HISTORY_FILL].text, &spec.net.history_fill, &err);
  if (st == CF_OK && !u->background_load) {
    /* The caller waits for the load anyway: it runs here, with no thread
     * to start and hand over to (a library user's engine, the tests). */
    cf_engine_weights_info info;
    st = cf_engine_load_net(&spec, &u->net, &info, &err);
    cf_kv_free(opts);
    if (st == CF_OK) {
      snprintf(u->net_key, sizeof u->net_key, "%s", key);
      u->failed_key[0] = 0;
      report_load(u, &info);
      return CF_UCI_NET_READY;
    }
  } else if (st == CF_OK) {
    st = cf_engine_loader_start(&spec, on_loaded, u, &u->loader, &err);
    cf_kv_free(opts); /* the loader has its copy */
  } else {
    cf_kv_free(opts);
  }
  if (st != CF_OK) {
    record_failure(u, key, err.msg);
    return CF_UCI_NET_FAILED;
  }
  snprintf(u->loading_key, sizeof u->loading_key, "%s", key);
  return CF_UCI_NET_LOADING;
}

cf_status cf_uci_weights_changed(cf_uci *u, cf_error *err) {
  (void)err;
  u->failed_key[0] = 0;
  return CF_OK;
}

cf_status cf_uci_threads_changed(cf_uci *u, cf_error *err) {
  CF_TRY(cf_uci_search_changed(u, err)); /* batches in flight on a device */
  /* More threads than cores is allowed (the GUI may know better, or share
   * the machine on purpose), with a word about it. */
  const long threads = u->opt[CF_OPT_THREADS].i;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores > 0 && threads > cores)
    cf_uci_note(u, "info string warning: Threads %ld is more than the %ld CPU cores online; the "
                "backend's threads will compete for them", threads, cores);
  return CF_OK;
}

void cf_uci_load_forget_failure(cf_uci *u) {
  u->failed_key[0] = 0;
  u->failed_msg[0] = 0;
}
