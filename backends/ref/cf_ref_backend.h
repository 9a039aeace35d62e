/* cf_ref_backend.h: the reference backend's registry entry.
 *
 * Plain single-threaded float32 C, written to be read next to NETWORK.md:
 * one small function per op, a shape comment on every tensor, no tricks.
 * It is the oracle the fast backends are tested against, not a fast path.
 * Speed on the parity nets (d 64, 2-3 layers; one core, evals per CPU
 * second, `cformer eval --weights NET.pb.gz --cases NET.jsonl --backend ref
 * --batch 1 --bench 20`): cf-rpe-rms ~250-320, cf-rpe-ln-canonical ~400,
 * lc0-smolgen-relu2 ~550-680, lc0-map-classic ~640. */
#ifndef CF_REF_BACKEND_H
#define CF_REF_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_ref_desc;

#endif /* CF_REF_BACKEND_H */
