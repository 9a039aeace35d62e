/* cf_uci_ignored.c: Lc0's thread-tuning options, taken and ignored
 * (cf_uci_ignored.h). Names, flags, types, defaults and ranges are Lc0's. */
#include "engine/uci/cf_uci_ignored.h"

#include <pthread.h>
#include <strings.h>

#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_state.h"

#define WHY_THREADS "Lc0's search threads and task workers; this engine's one search thread gathers"

static const cf_uci_option_desc table[] = {
    {"TaskWorkers", "task-workers", NULL, 0, CF_OPT_TYPE_SPIN, "-1", -1, 128, {NULL},
     WHY_THREADS, {{NULL, NULL}}, NULL},
    {"MinimumProcessingWork", "minimum-processing-work", NULL, 0, CF_OPT_TYPE_SPIN, "20", 2,
     100000, {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"MinimumPickingWork", "minimum-picking-work", NULL, 0, CF_OPT_TYPE_SPIN, "1", 1, 100000,
     {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"MinimumRemainingPickingWork", "minimum-remaining-picking-work", NULL, 0, CF_OPT_TYPE_SPIN,
     "20", 0, 100000, {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"MinimumPerTaskProcessing", "minimum-per-task-processing", NULL, 0, CF_OPT_TYPE_SPIN, "8", 1,
     100000, {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"IdlingMinimumWork", "idling-minimum-work", NULL, 0, CF_OPT_TYPE_SPIN, "0", 0, 10000, {NULL},
     WHY_THREADS, {{NULL, NULL}}, NULL},
    {"ThreadIdlingThreshold", "thread-idling-threshold", NULL, 0, CF_OPT_TYPE_SPIN, "1", 0, 128,
     {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"MaxConcurrentSearchers", "max-concurrent-searchers", NULL, 0, CF_OPT_TYPE_SPIN, "1", 0, 128,
     {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"SearchSpinBackoff", "search-spin-backoff", NULL, 0, CF_OPT_TYPE_CHECK, "false", 0, 0,
     {NULL}, WHY_THREADS, {{NULL, NULL}}, NULL},
    {"GarbageCollectionDelay", "garbage-collection-delay", NULL, 0, CF_OPT_TYPE_FLOAT, "10", 0,
     100, {NULL}, "Lc0 frees the old tree on a thread of its own; this engine frees it at once",
     {{NULL, NULL}}, NULL},
    {"SolidTreeThreshold", "solid-tree-threshold", NULL, 0, CF_OPT_TYPE_SPIN, "100", 1,
     2000000000, {NULL}, "Lc0's memory layout of its tree's nodes; this engine's is fixed",
     {{NULL, NULL}}, NULL},
};

#define COUNT ((int)(sizeof table / sizeof table[0]))

int cf_uci_ignored_count(void) { return COUNT; }

const cf_uci_option_desc *cf_uci_ignored_at(int i) { return i >= 0 && i < COUNT ? &table[i] : NULL; }

const cf_uci_option_desc *cf_uci_ignored_by_name(const char *name) {
  for (int i = 0; name && i < COUNT; i++)
    if (strcasecmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

cf_status cf_uci_set_ignored(cf_uci *u, const cf_uci_option_desc *o, const char *value,
                             cf_error *err) {
  cf_uci_value v;
  CF_TRY(cf_uci_option_check(o, value, &v, err));
  cf_uci_note(u, "info string %s is ignored (%s)", o->name, o->help);
  return CF_OK;
}

cf_status cf_uci_set_ignored_flag(cf_uci *u, const cf_uci_option_desc *o, const char *value,
                                  cf_error *err) {
  pthread_mutex_lock(&u->cmd_mu);
  const cf_status st = cf_uci_set_ignored(u, o, value, err);
  pthread_mutex_unlock(&u->cmd_mu);
  return st;
}
