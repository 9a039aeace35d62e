/* cf_net_options.h: the network-level keys of a backend option list.
 *
 * Users give one option string (--backend-opts, UCI BackendOptions), e.g.
 * "threads=2,batch_size=64,policy_head=vanilla+soft", parsed once into a
 * list (common/cf_kv.h) that the network and then the backend read their
 * keys from; cf_net_create refuses a key neither read, naming the backend
 * and the keys they read. The keys the network itself owns:
 *   batch_size=N       positions per backend pass (cf_net_options.max_batch)
 *   lanes=N            threads splitting each pass (cf_net_options.lanes, 1 to 64)
 *   policy_head=A+B    policy heads to compute, by name (vanilla, soft, ...)
 *   value_head=A+B     extra value heads to compute, by name (q, st)
 * A key given here overrides the same setting in cf_net_options. */
#ifndef CF_NET_OPTIONS_H
#define CF_NET_OPTIONS_H

#include "common/cf_kv.h"
#include "common/cf_status.h"
#include "net/cf_net.h"

/* The largest batch_size accepted (larger is surely a typo). */
#define CF_NET_MAX_BATCH_OPTION 65536

/* Reads the network keys of kv into *o (the settings of the keys given;
 * the others left as they are). */
cf_status cf_net_options_read(cf_kv *kv, cf_net_options *o, cf_error *err);

/* The default for a user's thread count (the engine's Threads, the tools'
 * --threads, cformer_options.threads), set on kv: lanes=threads
 * (cf_net_lanes.h: that many threads split each pass and sleep between
 * passes), unless threads <= 1 or kv already names lanes or the backend's
 * own threads (an OpenMP team inside each operation, for those who ask for
 * it by name). */
cf_status cf_net_options_default_lanes(cf_kv *kv, int threads, cf_error *err);

#endif /* CF_NET_OPTIONS_H */
