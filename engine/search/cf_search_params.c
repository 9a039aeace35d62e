/* cf_search_params.c: the parameter table's rows made from
 * CF_SEARCH_OPTIONS and CF_SEARCH_KNOBS (cf_search_params.h), the
 * defaults and the range check that read them, and the minibatch rule. */
#include "engine/search/cf_search_params.h"

#include <math.h>
#include <string.h>

#include "backends/cf_backend.h"

/* The MinibatchSize for a backend name no registered backend has. */
#define FALLBACK_MINIBATCH 32

/* Each row's typed access to its field, as a number. */
#define ACCESSORS(field, ctype, ...)                                                               \
  static double get_##field(const cf_search_params *p) { return (double)p->field; }             \
  static void set_##field(cf_search_params *p, double v) { p->field = (ctype)v; }
CF_SEARCH_OPTIONS(ACCESSORS)
CF_SEARCH_KNOBS(ACCESSORS)
#undef ACCESSORS

#define ROW(field, ctype, kind, name, flag, alias, def, min, max, choices, help)                  \
  [CF_SEARCH_PARAM_##field] = {#field, name, flag, alias, CF_SEARCH_PARAM_##kind, def, min, max, \
                               choices, help, get_##field, set_##field},
static const cf_search_param rows[CF_SEARCH_PARAM_COUNT] = {
    CF_SEARCH_OPTIONS(ROW) CF_SEARCH_KNOBS(ROW)};
#undef ROW

const cf_search_param *cf_search_param_at(int id) {
  return id >= 0 && id < CF_SEARCH_PARAM_COUNT ? &rows[id] : NULL;
}

void cf_search_params_default(cf_search_params *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < CF_SEARCH_PARAM_COUNT; i++) rows[i].set(p, rows[i].def);
}

cf_status cf_search_params_check(const cf_search_params *p, cf_error *err) {
  for (int i = 0; i < CF_SEARCH_PARAM_COUNT; i++) {
    const cf_search_param *r = &rows[i];
    const double v = r->get(p);
    /* A float field holds its bounds rounded to float (0.999 becomes a
     * little more): they pass too. */
    const bool fl = r->kind == CF_SEARCH_PARAM_FLOAT;
    const double lo = fl && (double)(float)r->min < r->min ? (double)(float)r->min : r->min;
    const double hi = fl && (double)(float)r->max > r->max ? (double)(float)r->max : r->max;
    if (isfinite(v) && v >= lo && v <= hi) continue;
    return cf_error_set(err, CF_ERR_ARG, "search: %s must be %g to %g (is %g)",
                        r->name ? r->name : r->field, r->min, r->max, v);
  }
  return CF_OK;
}

int cf_search_default_minibatch(const char *backend) {
  /* "auto" is whatever backend a net gets by default: a GPU when there is one */
  const bool by_default = !backend || !*backend || strcmp(backend, "auto") == 0;
  const cf_backend_desc *d = by_default ? cf_backend_default() : cf_backend_find(backend);
  return d && d->default_minibatch > 0 ? d->default_minibatch : FALLBACK_MINIBATCH;
}

int cf_search_minibatch(const cf_search_params *p, const char *backend) {
  return p->minibatch_size > 0 ? p->minibatch_size : cf_search_default_minibatch(backend);
}
