/* cf_cli_net.h: what the tools' network flags share. --weights takes a
 * file or "<built in>" (the network embedded in the binary) wherever a
 * network is read, within --weights-max-mb's payload limit; --threads N
 * gives the network lanes=N unless --backend-opts sets lanes or threads
 * itself (as the engine's Threads option). */
#ifndef CF_CLI_NET_H
#define CF_CLI_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_kv.h"
#include "common/cf_status.h"
#include "weights/cf_weights.h"

/* "<built in>" (engine/uci/cf_uci_options.h's CF_WEIGHTS_BUILT_IN). */
#define CF_CLI_WEIGHTS_BUILT_IN "<built in>"

/* Loads a network file within opts' payload limit (NULL: automatic, named
 * as --weights-max-mb; only a regular file is read, cf_weights_load_file),
 * or the embedded network for "<built in>" (with the automatic limit, as
 * the engine loads it: the limit guards against files). */
cf_status cf_cli_load_weights(const char *weights, const cf_weights_load_options *opts,
                              cf_weights **out, cf_error *err);

/* --weights-max-mb MB, the flag of every tool that reads a network: a
 * whole number of MiB from 0 (automatic) to CF_WEIGHTS_MAX_MB_LIMIT, given
 * to cf_weights_parse_max_mb by cf_cli_set_weights_max_mb (ctx: the
 * tool's cf_weights_load_options, which starts as CF_CLI_WEIGHTS_LOAD). */
#define CF_CLI_WEIGHTS_MAX_MB "--weights-max-mb"
#define CF_CLI_WEIGHTS_LOAD ((cf_weights_load_options){.limit_name = CF_CLI_WEIGHTS_MAX_MB})
#define CF_CLI_WEIGHTS_MAX_MB_HELP                                                 \
  "largest network the file may inflate to, in MiB\n(default 0 = automatic: 16 " \
  "times the file, 64 to 4096 MiB)"
#define CF_CLI_WEIGHTS_MAX_MB_FLAG(load)                                                 \
  {.name = "weights-max-mb", .kind = CF_CLI_LONG, .imin = 0,                             \
   .imax = CF_WEIGHTS_MAX_MB_LIMIT, .arg = "MB", .set = cf_cli_set_weights_max_mb,        \
   .ctx = (load), .help = CF_CLI_WEIGHTS_MAX_MB_HELP}
bool cf_cli_set_weights_max_mb(void *ctx, const char *value, char *why, size_t why_size);

/* The flags of a tool that loads one network: --weights, --backend,
 * --backend-opts and --weights-max-mb, into the tool's own variables
 * (pointers; load as for CF_CLI_WEIGHTS_MAX_MB_FLAG). */
#define CF_CLI_NET_FLAGS(weights, backend, backend_opts, load)                                  \
  {.name = "weights", .letter = 'w', .kind = CF_CLI_STRING, .dest = (weights), .arg = "FILE",   \
   .help = "network file, or \"<built in>\" (default)"},                                        \
      {.name = "backend", .letter = 'b', .kind = CF_CLI_STRING, .dest = (backend),              \
       .set = cf_cli_check_backend, .help = "compute backend (default auto)"},                  \
      {.name = "backend-opts", .kind = CF_CLI_STRING, .dest = (backend_opts), .arg = "K=V,...", \
       .help = "backend options (docs/BACKENDS.md)"},                                           \
      CF_CLI_WEIGHTS_MAX_MB_FLAG(load)

/* --backend-opts (opts; NULL: none) parsed, once, into *out for the net
 * (cf_net_options.backend_kv; the caller frees it), with --threads N set on
 * it as lanes=N unless opts names lanes or threads (net/cf_net_options.h).
 * Fails naming --backend-opts and a malformed item. */
cf_status cf_cli_backend_options(const char *opts, int threads, cf_kv **out, cf_error *err);

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
