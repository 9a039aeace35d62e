/* cf_weights_codec.c: Layer.params <-> float32 for the four encodings of
 * NETWORK.md section 1. All stored values are little-endian; bytes are
 * assembled explicitly so the code is right on any host. */
#include <math.h>
#include <string.h>

#include "weights/cf_weights_internal.h"

static inline float bits_to_float(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static inline uint32_t float_to_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

float cf_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (man << 13)); /* inf, NaN */
  if (exp == 0) {
    /* Zero or subnormal: man * 2^-24, exact in float32. */
    float mag = (float)man * 0x1p-24f;
    return bits_to_float(sign | float_to_bits(mag));
  }
  return bits_to_float(sign | ((exp + 112u) << 23) | (man << 13));
}

uint16_t cf_float_to_half(float f) {
  uint32_t x = float_to_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* NaN */
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
  if (ax < 0x38800000u) {
    /* Below 2^-14: a multiple of 2^-24 (subnormal half); the scaling is
     * exact and nearbyintf rounds to nearest even. 1024 carries into the
     * smallest normal, which is the right encoding. */
    float m = nearbyintf(bits_to_float(ax) * 0x1p24f);
    return (uint16_t)(sign | (uint16_t)m);
  }
  uint32_t mant = ax & 0x7fffffu;
  uint32_t h = ((((ax >> 23) - 127u + 15u)) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* carry may reach the exponent */
  return (uint16_t)(sign | h);
}

float cf_bf16_to_float(uint16_t b) { return bits_to_float((uint32_t)b << 16); }

uint16_t cf_float_to_bf16(float f) {
  uint32_t x = float_to_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

size_t cf_encoding_elem_size(cf_encoding enc) {
  switch (enc) {
    case CF_ENC_LINEAR16:
    case CF_ENC_FLOAT16:
    case CF_ENC_BFLOAT16: return 2;
    case CF_ENC_FLOAT32: return 4;
    default: return 0;
  }
}

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static inline uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

void cf_decode_params(const uint8_t *bytes, size_t n, cf_encoding enc, float min_val,
                      float max_val, float *out) {
  switch (enc) {
    case CF_ENC_LINEAR16:
      /* In float32, t = u / 65535, value = min * (1 - t) + max * t: Lc0's
       * form. The LINEAR16 and FLOAT32 parity nets hold the same weights and
       * agree to the bit with it (min + (max - min) * t differs in 60% of
       * values by 1 ulp). Two statements, so no compiler fuses them into an
       * fma, which would break that. */
      for (size_t i = 0; i < n; i++) {
        const float t = (float)rd16(bytes + 2 * i) / 65535.0f;
        const float lo = min_val * (1.0f - t);
        const float hi = max_val * t;
        out[i] = lo + hi;
      }
      break;
    case CF_ENC_FLOAT16:
      for (size_t i = 0; i < n; i++) out[i] = cf_half_to_float(rd16(bytes + 2 * i));
      break;
    case CF_ENC_BFLOAT16:
      for (size_t i = 0; i < n; i++) out[i] = cf_bf16_to_float(rd16(bytes + 2 * i));
      break;
    case CF_ENC_FLOAT32:
      for (size_t i = 0; i < n; i++) out[i] = bits_to_float(rd32(bytes + 4 * i));
      break;
    default: break;
  }
}

static inline void wr16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

bool cf_encode_params(const float *in, size_t n, cf_encoding enc, uint8_t *bytes,
                      float *min_val, float *max_val, size_t *bad) {
  switch (enc) {
    case CF_ENC_LINEAR16: {
      float lo = n ? in[0] : 0.0f, hi = lo;
      for (size_t i = 1; i < n; i++) {
        if (in[i] < lo) lo = in[i];
        if (in[i] > hi) hi = in[i];
      }
      *min_val = lo;
      *max_val = hi;
      if (!isfinite(hi - lo)) { /* the decoder's float32 range would overflow */
        *bad = 0;
        return false;
      }
      double range = (double)hi - (double)lo;
      for (size_t i = 0; i < n; i++) {
        double u = range > 0 ? ((double)in[i] - lo) / range * 65535.0 : 0.0;
        long r = lround(u);
        wr16(bytes + 2 * i, (uint16_t)(r < 0 ? 0 : r > 65535 ? 65535 : r));
      }
      return true;
    }
    case CF_ENC_FLOAT16:
      for (size_t i = 0; i < n; i++) {
        uint16_t h = cf_float_to_half(in[i]);
        if ((h & 0x7c00u) == 0x7c00u) {
          *bad = i;
          return false;
        }
        wr16(bytes + 2 * i, h);
      }
      return true;
    case CF_ENC_BFLOAT16:
      for (size_t i = 0; i < n; i++) {
        uint16_t b = cf_float_to_bf16(in[i]);
        if ((b & 0x7f80u) == 0x7f80u) { /* rounds up to inf near FLT_MAX */
          *bad = i;
          return false;
        }
        wr16(bytes + 2 * i, b);
      }
      return true;
    case CF_ENC_FLOAT32:
      for (size_t i = 0; i < n; i++) {
        uint32_t v = float_to_bits(in[i]);
        bytes[4 * i] = (uint8_t)v;
        bytes[4 * i + 1] = (uint8_t)(v >> 8);
        bytes[4 * i + 2] = (uint8_t)(v >> 16);
        bytes[4 * i + 3] = (uint8_t)(v >> 24);
      }
      return true;
    default: *bad = 0; return false;
  }
}

size_t cf_first_non_finite(const float *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((float_to_bits(x[i]) & 0x7f800000u) == 0x7f800000u) return i;
  return n;
}
