/* bench_arch.h: the --arch argument of `cformer bench`: a preset name
 * (cf-6m, cf-240m) or a shape LxD[xH[xF]] (layers x width [x heads [x FFN
 * width]]) built in the CF-6M style (old embedding with gating, RPE q/k/v,
 * RMSNorm, no q/k/v biases, vanilla + soft policy, winner + q + st value
 * heads, moves-left). Defaults: H = D/32 (head depth 32, as both presets;
 * at least 1), F = D (as CF-6M). */
#ifndef BENCH_ARCH_H
#define BENCH_ARCH_H

#include <stddef.h>

#include "common/cf_status.h"
#include "weights/cf_weights.h"
#include "tools/random_net/cf_weights_random.h"

/* Parses text into a random-net spec with the given seed. CF_ERR_ARG with a
 * message saying what is accepted. */
cf_status bench_arch_parse(const char *text, unsigned long long seed, cf_random_spec *out,
                           cf_error *err);

/* A one-line summary of an architecture: "8 layers, d 256, 8 heads, dff 256,
 * old embedding (gated), RPE qkv, RMSNorm". */
void bench_arch_summary(const cf_net_arch *a, char *out, size_t n);

#endif /* BENCH_ARCH_H */
