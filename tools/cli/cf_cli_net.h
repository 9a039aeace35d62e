/* cf_cli_net.h: what the tools' network flags share. --weights takes a
 * file or "<built in>" (the network embedded in the binary) wherever a
 * network is read; --threads N goes to the backend as threads=N unless
 * --backend-opts sets threads itself (as the engine's Threads option). */
#ifndef CF_CLI_NET_H
#define CF_CLI_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "weights/cf_weights.h"

/* "<built in>" (engine/cf_uci_options.h's CF_WEIGHTS_BUILT_IN). */
#define CF_CLI_WEIGHTS_BUILT_IN "<built in>"

/* Loads a network file, or the embedded network for "<built in>". */
cf_status cf_cli_load_weights(const char *weights, cf_weights **out, cf_error *err);

/* opts (NULL: none) led by threads=N when threads > 0 and opts does not
 * set threads; into out. Returns out, or NULL when it does not fit. */
const char *cf_cli_backend_options(const char *opts, int threads, char *out, size_t size);

/* A cf_cli_set_fn for --backend: "auto" or a registered backend's name
 * ("all" too when ctx is not NULL, as for cformer bench). */
bool cf_cli_check_backend(void *ctx, const char *value, char *why, size_t why_size);

/* A cf_cli_set_fn for --history-fill: ctx is a cf_history_fill *. */
bool cf_cli_set_history_fill(void *ctx, const char *value, char *why, size_t why_size);

/* The exit status of a failure to open a network from the command line's
 * choices: 2 when the backend refused --backend/--backend-opts/--threads
 * (CF_ERR_ARG: a bad flag value found late), else 1. */
int cf_cli_net_failure_status(cf_status status);

#endif /* CF_CLI_NET_H */
