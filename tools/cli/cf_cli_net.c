/* cf_cli_net.c: --backend, --backend-opts with --threads, --history-fill
 * for the tools (cf_cli_net.h); --weights is cf_cli_weights.c, apart, so a
 * tool that only reads networks (netconv) links no backend. */
#include "tools/cli/cf_cli_net.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net_options.h"
#include "net/cf_net_planes.h"

cf_status cf_cli_backend_options(const char *opts, int threads, cf_kv **out, cf_error *err) {
  cf_status st = cf_kv_parse(opts, out, err);
  if (st == CF_OK) st = cf_net_options_default_lanes(*out, threads, err);
  if (st != CF_OK) {
    cf_kv_free(*out);
    *out = NULL;
    cf_error_prefix(err, "--backend-opts");
  }
  return st;
}

bool cf_cli_check_backend(void *ctx, const char *value, char *why, size_t why_size) {
  if (strcmp(value, "auto") == 0 || (ctx && strcmp(value, "all") == 0)) return true;
  /* A backend never chosen by itself (the simulated device, priority < 0)
   * is taken when named: the search's and analyse's benchmarks use it. */
  if (cf_backend_find(value)) return true;
  size_t at = (size_t)snprintf(why, why_size, "expected auto%s", ctx ? ", all" : "");
  for (int i = 0; i < cf_backend_count() && at < why_size; i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    at += (size_t)snprintf(why + at, why_size - at, ", %s%s", d->name,
                           d->priority < 0 ? " (for testing)" : "");
  }
  return false;
}

bool cf_cli_set_history_fill(void *ctx, const char *value, char *why, size_t why_size) {
  cf_error err = {0};
  if (cf_history_fill_parse(value, ctx, &err) == CF_OK) return true;
  snprintf(why, why_size, "%s", err.msg);
  return false;
}

int cf_cli_net_failure_status(cf_status status) { return status == CF_ERR_ARG ? 2 : 1; }
