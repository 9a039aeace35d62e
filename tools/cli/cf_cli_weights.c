/* cf_cli_weights.c: --weights for the tools: a file or <built in>, and
 * --weights-max-mb (cf_cli_net.h). */
#include <stdio.h>
#include <string.h>

#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "tools/cli/cf_cli_net.h"

_Static_assert(sizeof CF_CLI_WEIGHTS_BUILT_IN == sizeof CF_WEIGHTS_BUILT_IN,
               "one spelling of <built in>");

cf_status cf_cli_load_weights(const char *weights, const cf_weights_load_options *opts,
                              cf_weights **out, cf_error *err) {
  /* The embedded network is part of the binary, not a file to distrust:
   * the automatic limit, as the engine loads it (cf_engine_weights.c). */
  if (weights && strcmp(weights, CF_WEIGHTS_BUILT_IN) == 0)
    return cf_weights_load_memory(cf_default_net_data, cf_default_net_size, CF_WEIGHTS_BUILT_IN,
                                  NULL, out, err);
  const cf_weights_load_options automatic = CF_CLI_WEIGHTS_LOAD;
  return cf_weights_load_file(weights, opts ? opts : &automatic, out, err);
}

bool cf_cli_set_weights_max_mb(void *ctx, const char *value, char *why, size_t why_size) {
  cf_error err = {0};
  if (cf_weights_parse_max_mb(value, CF_CLI_WEIGHTS_MAX_MB, ctx, &err) == CF_OK) return true;
  /* The parser's wording ("bad value 'X' for --weights-max-mb: expected ..."),
   * as for the table's range check. */
  snprintf(why, why_size, "expected a whole number from 0 to %d", CF_WEIGHTS_MAX_MB_LIMIT);
  return false;
}
