/* cf_api_internal.h: what libcformer's files share behind cformer.h. */
#ifndef CF_API_INTERNAL_H
#define CF_API_INTERNAL_H

#include "common/cf_status.h"
#include "lib/cformer.h"
#include "net/cf_net.h"

struct cformer_net {
  cf_net *net;
  cf_history_fill fill;
  cformer_net_info info;
  char backend_opts[1024]; /* the options string handed to the backend */
};

/* Copies a status and message into the public error (err may be NULL) and
 * returns the status. */
cformer_status cf_api_fail(cformer_error *out, cf_status st, const cf_error *err);
cformer_status cf_api_ok(cformer_error *out);
/* CFORMER_ERR_ARG with a fixed message. */
cformer_status cf_api_arg(cformer_error *out, const char *what);

#endif /* CF_API_INTERNAL_H */
