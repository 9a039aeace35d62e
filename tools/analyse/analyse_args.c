/* analyse_args.c: the network and the engine's options a parsed command
 * line of `cformer analyse` asks for (analyse_args.h). */
#include "tools/analyse/analyse_args.h"

#include "common/cf_kv.h"
#include "engine/cf_agent.h"
#include "engine/cf_engine_weights.h"
#include "tools/cli/cf_cli_net.h"

cf_status analyse_open_net(const analyse_args *a, cf_net **net, cf_error *err) {
  cf_kv *kv = NULL;
  CF_TRY(cf_cli_backend_options(a->backend_opts, a->threads, &kv, err));
  cf_engine_weights_spec spec = {
      .weights = a->weights,
      .net = {.backend = a->backend, .backend_kv = kv, .max_batch = a->agent ? 256 : a->batch},
      .load = a->load,
  };
  cf_engine_weights_info info;
  cf_status st = cf_engine_load_net(&spec, net, &info, err);
  cf_kv_free(kv);
  return st;
}

analyse_engine_options analyse_engine_options_of(const analyse_args *a) {
  return (analyse_engine_options){.batch = a->batch, .top_k = a->top_k,
                                  .agent = a->agent ? cf_agent_find(a->agent) : NULL,
                                  .nodes = a->nodes, .movetime_ms = a->movetime,
                                  .multipv = a->multipv};
}
