/* cf_net_options.h: the network-level keys of a backend option string.
 *
 * Users give one option string (--backend-opts, UCI BackendOptions), e.g.
 * "threads=2,batch_size=64,policy_head=vanilla+soft". The keys the network
 * itself owns are taken out here, before the rest reaches the backend
 * (which rejects keys it does not know, naming them and itself):
 *   batch_size=N       positions per backend pass (cf_net_options.max_batch)
 *   lanes=N            threads splitting each pass (cf_net_options.lanes, 1 to 64)
 *   policy_head=A+B    policy heads to compute, by name (vanilla, soft, ...)
 *   value_head=A+B     extra value heads to compute, by name (q, st)
 * A key given here overrides the same setting in cf_net_options. */
#ifndef CF_NET_OPTIONS_H
#define CF_NET_OPTIONS_H

#include <stddef.h>

#include "common/cf_status.h"
#include "net/cf_net.h"

/* The largest batch_size accepted (larger is surely a typo). */
#define CF_NET_MAX_BATCH_OPTION 65536

/* *out = *in with the network keys of in->backend_options applied; the
 * remaining items are copied, comma-separated, into rest (rest_size bytes)
 * and out->backend_options points at rest (NULL when nothing remains). */
cf_status cf_net_options_resolve(const cf_net_options *in, cf_net_options *out, char *rest,
                                 size_t rest_size, cf_error *err);

/* The option string for a user's thread count (the engine's Threads, the
 * tools' --threads, cformer_options.threads): `lanes=N` in front of opts
 * (cf_net_lanes.h: N threads that split each pass and sleep between passes),
 * unless threads <= 1 or opts already sets lanes or the backend's own
 * `threads` (an OpenMP team inside each operation, for those who ask for it
 * by name). Returns out, or NULL when it does not fit in size bytes. */
const char *cf_net_options_for_threads(const char *opts, int threads, char *out, size_t size);

#endif /* CF_NET_OPTIONS_H */
