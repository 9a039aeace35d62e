/* cf_net_stream.h: passes of a net run on a thread of their own, in the
 * order they were submitted, as a device's stream runs its work: the caller
 * goes on (gathers the next batch) while a pass computes, and collects the
 * passes in order.
 *
 *     cf_net_stream *st;
 *     cf_net_stream_create(net, 2, &st, &err);       // at most 2 passes queued
 *     cf_net_stream_submit(st, n, req, out, &err);   // returns at once
 *     ... gather the next batch, submit it ...
 *     cf_net_stream_wait(st, &err);                  // the oldest pass is done
 *     cf_net_stream_free(st);                        // waits for the rest
 *
 * While a stream exists its net is used only by the stream's thread, and
 * each pass's requests and outputs belong to it from submit to its wait. */
#ifndef CF_NET_STREAM_H
#define CF_NET_STREAM_H

#include "common/cf_status.h"
#include "net/cf_net.h"

/* The most passes a stream may hold. */
#define CF_NET_STREAM_MAX 16

typedef struct cf_net_stream cf_net_stream;

/* A stream of at most depth (1 to CF_NET_STREAM_MAX) passes of net. */
cf_status cf_net_stream_create(cf_net *net, int depth, cf_net_stream **out, cf_error *err);

/* Waits for every submitted pass (their outputs are written), then ends
 * the thread. Accepts NULL. */
void cf_net_stream_free(cf_net_stream *s);

/* Queues a pass of n positions (cf_net_eval's arguments); fails with
 * CF_ERR_ARG when depth passes are already queued. */
cf_status cf_net_stream_submit(cf_net_stream *s, int n, const cf_net_request *requests,
                               cf_net_output *outputs, cf_error *err);

/* Waits for the oldest queued pass and gives its status (cf_net_eval's);
 * CF_ERR_ARG when none is queued. */
cf_status cf_net_stream_wait(cf_net_stream *s, cf_error *err);

/* Passes submitted and not yet waited for. */
int cf_net_stream_pending(cf_net_stream *s);

#endif /* CF_NET_STREAM_H */
