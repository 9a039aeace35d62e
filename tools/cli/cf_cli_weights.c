/* cf_cli_weights.c: --weights for the tools: a file or <built in>
 * (cf_cli_net.h). */
#include <string.h>

#include "engine/cf_engine_weights.h"
#include "engine/cf_uci_options.h"
#include "tools/cli/cf_cli_net.h"

_Static_assert(sizeof CF_CLI_WEIGHTS_BUILT_IN == sizeof CF_WEIGHTS_BUILT_IN,
               "one spelling of <built in>");

cf_status cf_cli_load_weights(const char *weights, cf_weights **out, cf_error *err) {
  if (weights && strcmp(weights, CF_WEIGHTS_BUILT_IN) == 0)
    return cf_weights_load_memory(cf_default_net_data, cf_default_net_size, CF_WEIGHTS_BUILT_IN,
                                  NULL, out, err);
  return cf_weights_load_file(weights, NULL, out, err);
}
