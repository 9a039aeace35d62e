/* cf_backend_options.h: the option keys every backend takes, read by
 * cf_backend_create from the instance's option list (common/cf_kv.h;
 * cf_backend_config.kv): precision=f32|bf16|int8|auto and
 * f32_roles=ROLE[+ROLE...]|none. Each backend reads its own keys from the
 * same list in its create (cf_kv_get_int and friends). */
#ifndef CF_BACKEND_OPTIONS_H
#define CF_BACKEND_OPTIONS_H

#include <stdbool.h>

#include "backends/cf_backend.h"
#include "common/cf_kv.h"
#include "common/cf_status.h"

/* precision=f32|bf16|int8|auto from kv: *precision gets it (F32 when
 * absent; F32 for auto, with *automatic set). automatic NULL: the caller
 * takes no auto, which is then refused like any unknown value, naming the
 * known ones. */
cf_status cf_backend_read_precision(cf_kv *kv, cf_precision *precision, bool *automatic,
                                    cf_error *err);

/* f32_roles=ROLE[+ROLE...] (ROLE: embedding, heads) or none from kv:
 * *uses gets bit (1u << cf_weight_use) for each named use (0 when absent
 * or none). '+' joins roles because ',' separates options. Fails on an
 * unknown role, naming the valid ones. */
cf_status cf_backend_read_f32_roles(cf_kv *kv, unsigned *uses, cf_error *err);

#endif /* CF_BACKEND_OPTIONS_H */
