/* cf_planes.h: the network's input as Lc0 feeds it: 112 planes of 64
 * squares, each a bit mask and one value (NETWORK.md section 3).
 *
 * Plane j is `value[j]` on square t (t = 8 rank + file in the side to move's
 * frame, after the canonical transform) when bit t of `mask[j]` is set, and
 * 0 elsewhere. Token t of the encoder sees feature j = plane j at square t. */
#ifndef CF_PLANES_H
#define CF_PLANES_H

#include <stdint.h>

#define CF_PLANE_COUNT 112
#define CF_PLANES_PER_BOARD 13 /* 12 piece planes + "occurred before" */
#define CF_AUX_PLANE_BASE 104  /* 8 history boards * 13 */

typedef struct cf_planes {
  uint64_t mask[CF_PLANE_COUNT];
  float value[CF_PLANE_COUNT];
} cf_planes;

#endif /* CF_PLANES_H */
