/* cf_fast_math.h: Lc0's fast log and logistic (its utils/fastmath.h), for
 * the formulas where Lc0's numbers come from them (the WDL rescaling).
 * They are approximations (log2 to about 0.005 absolute, exp2 to about 0.2%
 * relative); using them, not exact functions, makes a rescaled value the
 * one Lc0 backs up (to float rounding), so that a search with contempt
 * takes the same turns as Lc0's. */
#ifndef CF_FAST_MATH_H
#define CF_FAST_MATH_H

#include <stdint.h>
#include <string.h>

/* log2(a), a > 0: the exponent bits plus a quadratic in the mantissa. */
static inline float cf_fast_log2(float a) {
  uint32_t bits;
  memcpy(&bits, &a, sizeof bits);
  const uint32_t exponent = bits >> 23;
  bits = (bits & 0x7fffffu) | (0x7fu << 23);
  float m;
  memcpy(&m, &bits, sizeof m);
  m -= 1.0f;
  return m * (1.3465552f - 0.34655523f * m) - 127 + (float)exponent;
}

/* 2^a: the integer part into the exponent bits, a quadratic for the rest
 * (Lc0 rounds a negative a down as (int)(a - 1): for an integer a the
 * quadratic at 1 gives 2, so the result is still 2^a). */
static inline float cf_fast_exp2(float a) {
  int32_t e;
  if (a < 0) {
    if (a < -126) return 0.0f;
    e = (int32_t)(a - 1);
  } else {
    e = (int32_t)a;
  }
  float out = a - (float)e;
  out = 1.0f + out * (0.6602339f + 0.33976606f * out);
  int32_t bits;
  memcpy(&bits, &out, sizeof bits);
  bits += (int32_t)((uint32_t)e << 23);
  memcpy(&out, &bits, sizeof out);
  return out;
}

static inline float cf_fast_log(float a) { return 0.6931471805599453f * cf_fast_log2(a); }

static inline float cf_fast_logistic(float a) {
  if (a > 20.0f) return 1.0f;
  if (a < -20.0f) return 0.0f;
  return 1.0f / (1.0f + cf_fast_exp2(1.442695040f * -a));
}

#endif /* CF_FAST_MATH_H */
