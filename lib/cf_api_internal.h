/* cf_api_internal.h: what libcformer's files share behind cformer.h. */
#ifndef CF_API_INTERNAL_H
#define CF_API_INTERNAL_H

#include "common/cf_status.h"
#include "lib/cformer.h"
#include "chess/cf_game.h"
#include "net/cf_net.h"

struct cformer_net {
  cf_net *net;
  cf_history_fill fill;
  cformer_net_info info;
};

/* Copies a status and message into the public error (err may be NULL) and
 * returns the status. */
cformer_status cf_api_fail(cformer_error *out, cf_status st, const cf_error *err);
cformer_status cf_api_ok(cformer_error *out);
/* CFORMER_ERR_ARG with a fixed message. */
cformer_status cf_api_arg(cformer_error *out, const char *what);

/* Replays public position p (number index, for messages) into game, which
 * the caller frees on success; on failure nothing is left to free. */
cf_status cf_api_replay(const cformer_position *p, int index, cf_game *game, cf_error *err);

/* Planes as the public layout: out[plane * 64 + square], 112 * 64 floats. */
void cf_api_write_planes(const cf_planes *p, float *out);

#endif /* CF_API_INTERNAL_H */
