/* cf_weights_pb.h: what the reader's steps that see the protobuf-c
 * messages share (cf_net.proto, generated cf_net.pb-c.h): the allocator,
 * the wire-format scan, the layout upgrade and the tensor decode. Private to
 * weights/. The steps, in order (cf_weights_message.c runs them):
 *   cf_weights_scan      exact diagnostics before protobuf-c runs
 *   unpack               protobuf-c, with cf_weights_pb_allocator
 *   cf_weights_upgrade_layout   older layouts become the current one
 *   cf_weights_decode    tensors to float32, each protobuf-c copy freed at once */
#ifndef CF_WEIGHTS_PB_H
#define CF_WEIGHTS_PB_H

#include <protobuf-c/protobuf-c.h>

#include "cf_net.pb-c.h"
#include "weights/cf_weights_internal.h"

/* malloc and free: the layout upgrade adds messages that protobuf-c later
 * frees with it, and the decode frees tensor bytes early. */
extern ProtobufCAllocator cf_weights_pb_allocator;

/* Walks the payload's wire format against the Net descriptor: a truncated
 * field, a wrong wire type, too many fields or layers fail with the field's
 * path and byte offset before protobuf-c sees the bytes. */
cf_status cf_weights_scan(const uint8_t *payload, size_t len, cf_error *err);

/* Older layouts become the current one, in the unpacked message (see
 * cf_weights_layout.c); *network may change (134 -> 7). */
cf_status cf_weights_upgrade_layout(Pblczero__Weights *pw, int *network, cf_error *err);

/* Every tensor of pw into w (float32), freeing each protobuf-c copy of its
 * bytes as it goes; notes the quantisation scales the file holds. */
cf_status cf_weights_decode(Pblczero__Weights *pw, cf_weights *w, cf_error *err);

#endif /* CF_WEIGHTS_PB_H */
