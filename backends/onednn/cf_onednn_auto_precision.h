/* cf_onednn_auto_precision.h: what precision=auto runs on the oneDNN
 * backend on this CPU, decided by timing rather than by CPU flags.
 *
 * AVX512_BF16 alone does not make bf16 the faster: on AMD Zen 5 bf16 made
 * the networks 1.17x-1.64x as fast as float32, while on an Intel Xeon whose
 * hypervisor hides AMX (AVX512_BF16 without tiles) oneDNN's bf16 matmul ran
 * at 0.51x-0.58x its float32 rate and the networks at 0.61x-0.77x
 * (docs/PRECISION.md "precision=auto").
 * So auto times one projection-sized matmul in both precisions, once per
 * process, on one thread, and runs bf16 only where it wins by a margin
 * wide enough that the same machine gives the same answer run after run.
 * int8 is never auto's pick (its accuracy is beyond auto's bound). */
#ifndef CF_ONEDNN_AUTO_PRECISION_H
#define CF_ONEDNN_AUTO_PRECISION_H

#include "backends/cf_backend.h"

/* bf16 is picked when the probe's f32 time is at least this many times
 * its bf16 time. The network moves less than the matmul (it has norms,
 * activations, the attention core and the input conversions besides): on
 * the Xeon above a 0.51x matmul made a 0.61x-0.77x network. */
#define CF_ONEDNN_AUTO_BF16_MIN_SPEEDUP 1.25

/* The probe's shape: 16 positions' rows (16 x 64 squares) through a
 * 256 -> 256 projection (CF-6M's width), about 67M multiply-adds. */
enum { CF_ONEDNN_AUTO_M = 1024, CF_ONEDNN_AUTO_K = 256, CF_ONEDNN_AUTO_N = 256 };

typedef struct cf_onednn_auto_pick {
  cf_precision precision; /* F32 or BF16 */
  bool timed;             /* both precisions were timed (else: why says) */
  double f32_s, bf16_s;   /* best time of the probe's matmul in each, when timed */
  char why[96];           /* for the variant: "bf16 0.51x f32 here", "no native bf16" */
} cf_onednn_auto_pick;

/* The rule, apart from the clock: BF16 when both times are positive and
 * f32_s >= CF_ONEDNN_AUTO_BF16_MIN_SPEEDUP * bf16_s, else F32. */
cf_precision cf_onednn_auto_decide(double f32_s, double bf16_s);

/* The pick for this process: probed on the first call (about 15 ms: two
 * primitives built, then each run best of several, interleaved), the same
 * answer after that from any thread. Where oneDNN does not run bf16
 * natively (cf_onednn_precision_check) nothing is timed: F32. Where the
 * probe cannot build or run a primitive: F32, said in why. */
const cf_onednn_auto_pick *cf_onednn_auto_pick_get(void);

#endif /* CF_ONEDNN_AUTO_PRECISION_H */
