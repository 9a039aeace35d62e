/* cf_net_options.c: the network keys of the option list (see the header). */
#include "net/cf_net_options.h"

#include "net/cf_net_lanes.h"

cf_status cf_net_options_read(cf_kv *kv, cf_net_options *o, cf_error *err) {
  const char *policy[CF_POLICY_HEAD_COUNT], *value[CF_VALUE_HEAD_COUNT];
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    policy[h] = cf_policy_head_name((cf_policy_head_id)h);
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    value[h] = cf_value_head_name((cf_value_head_id)h);
  CF_TRY(cf_kv_get_int(kv, "batch_size", 1, CF_NET_MAX_BATCH_OPTION, &o->max_batch, err));
  CF_TRY(cf_kv_get_int(kv, "lanes", 1, CF_NET_MAX_LANES, &o->lanes, err));
  CF_TRY(cf_kv_get_set(kv, "policy_head", policy, CF_POLICY_HEAD_COUNT, NULL, &o->policy_heads,
                       err));
  unsigned mask = o->value_heads;
  CF_TRY(cf_kv_get_set(kv, "value_head", value, CF_VALUE_HEAD_COUNT, NULL, &mask, err));
  o->value_heads = mask & ~(1u << CF_VALUE_WINNER); /* the winner head is always computed */
  return CF_OK;
}

cf_status cf_net_options_default_lanes(cf_kv *kv, int threads, cf_error *err) {
  if (threads <= 1 || cf_kv_has(kv, "lanes") || cf_kv_has(kv, "threads")) return CF_OK;
  return cf_kv_set_default_int(kv, "lanes", threads, err);
}
