/* cf_onednn_precision.c: ISA probe and conversions for bf16 and int8, see
 * the header. */
#include "backends/onednn/cf_onednn_precision.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_kernels.h"

/* The ISA names oneDNN's ONEDNN_MAX_CPU_ISA takes, for messages. */
static const char *isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41: return "SSE41";
    case dnnl_cpu_isa_avx: return "AVX";
    case dnnl_cpu_isa_avx2: return "AVX2";
    case dnnl_cpu_isa_avx512_mic: return "AVX512_MIC";
    case dnnl_cpu_isa_avx512_mic_4ops: return "AVX512_MIC_4OPS";
    case dnnl_cpu_isa_avx512_core: return "AVX512_CORE";
    case dnnl_cpu_isa_avx512_core_vnni: return "AVX512_CORE_VNNI";
    case dnnl_cpu_isa_avx512_core_bf16: return "AVX512_CORE_BF16";
    case dnnl_cpu_isa_avx512_core_amx: return "AVX512_CORE_AMX";
    case dnnl_cpu_isa_avx2_vnni: return "AVX2_VNNI";
    case dnnl_cpu_isa_all: break;
  }
  return "no JIT ISA";
}

/* The ISA values are bit sets, each containing the ones it extends. */
static bool isa_has(dnnl_cpu_isa_t isa, dnnl_cpu_isa_t want) {
  return ((unsigned)isa & (unsigned)want) == (unsigned)want;
}

cf_status cf_onednn_precision_check(cf_precision p, cf_error *err) {
  if (p == CF_PRECISION_F32) return CF_OK;
  /* The ISA oneDNN dispatches on: this CPU's, lowered by
   * ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA) when set. */
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  bool ok;
  const char *needs;
  if (p == CF_PRECISION_BF16) {
    /* Without AVX512_BF16 oneDNN emulates bf16 at a loss; not worth it. */
    ok = isa_has(isa, dnnl_cpu_isa_avx512_core_bf16);
    needs = "AVX512_BF16 (oneDNN ISA AVX512_CORE_BF16)";
  } else {
    /* Without VNNI the u8*s8 products go through 16-bit sums that can
     * saturate, and run no faster than float32. */
    ok = isa_has(isa, dnnl_cpu_isa_avx512_core_vnni) || isa_has(isa, dnnl_cpu_isa_avx2_vnni);
    needs = "AVX512_VNNI or AVX_VNNI (oneDNN ISA AVX512_CORE_VNNI or AVX2_VNNI)";
  }
  if (ok) return CF_OK;
  const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
  if (!cap || !*cap) cap = getenv("DNNL_MAX_CPU_ISA");
  return cf_error_set(err, CF_ERR_BACKEND,
                      "precision=%s needs %s; oneDNN runs %s on this CPU%s%s%s (use precision=f32)",
                      cf_precision_name(p), needs, isa_name(isa), cap && *cap ? " (capped by " : "",
                      cap && *cap ? cap : "", cap && *cap ? ")" : "");
}

void cf_onednn_lowp_free(cf_onednn_lowp *l) {
  free(l->plain);
  free(l->scales);
  free(l->u8_offset);
  *l = (cf_onednn_lowp){0};
}

static bool all_finite(size_t n, const float *w) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(w[i])) return false;
  return true;
}

static cf_status make_bf16(int out, int in, const float *w, cf_onednn_lowp *l, cf_error *err) {
  const size_t n = (size_t)out * (size_t)in;
  uint16_t *q = malloc(n * sizeof *q);
  if (!q) return cf_error_set(err, CF_ERR_NOMEM, "out of memory converting weights to bf16");
  /* The inputs' rounding (the portable kernels define it for every set),
   * one row at a time. */
  for (int o = 0; o < out; o++)
    cf_cpu_kernels_portable.to_bf16_row(in, w + (size_t)o * in, q + (size_t)o * in);
  for (size_t i = 0; i < n; i++) {
    /* Finite values past bf16's largest (~3.39e38) round to infinity. */
    if ((q[i] & 0x7f80u) == 0x7f80u) {
      free(q);
      l->why = "a value overflows bf16";
      return CF_OK;
    }
  }
  l->precision = CF_PRECISION_BF16;
  l->plain = q;
  return CF_OK;
}

/* Widest input an int8 weight may have: an output's u8 x s8 products,
 * |255 * 127| each, sum in int32 below 2^31 up to this many. */
enum { INT8_MAX_IN = 65536 };

static cf_status make_int8(int out, int in, const float *w, cf_onednn_lowp *l, cf_error *err) {
  if (in > INT8_MAX_IN) {
    l->why = "too wide for int8's int32 sums";
    return CF_OK;
  }
  int8_t *q = malloc((size_t)out * (size_t)in);
  float *scales = malloc((size_t)out * sizeof *scales);
  int32_t *offset = malloc((size_t)out * sizeof *offset);
  if (!q || !scales || !offset) {
    free(q);
    free(scales);
    free(offset);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory converting weights to int8");
  }
  double err2 = 0, norm2 = 0;
  for (int o = 0; o < out; o++) {
    const float *row = w + (size_t)o * in;
    float amax = 0;
    for (int i = 0; i < in; i++) amax = fmaxf(amax, fabsf(row[i]));
    const float s = amax > 0 ? amax / 127.0f : 1.0f;
    scales[o] = s;
    int32_t sum = 0; /* |128 sum| <= 128 * 127 * INT8_MAX_IN < 2^31 */
    for (int i = 0; i < in; i++) {
      float v = rintf(row[i] / s);
      v = fminf(fmaxf(v, -127.0f), 127.0f);
      q[(size_t)o * in + i] = (int8_t)v;
      sum += (int32_t)v;
      const double d = (double)row[i] - (double)v * s;
      err2 += d * d;
      norm2 += (double)row[i] * row[i];
    }
    offset[o] = 128 * sum;
  }
  /* A zero matrix converts exactly; otherwise the relative error decides. */
  if (norm2 > 0 && sqrt(err2 / norm2) > CF_ONEDNN_INT8_MAX_REL_ERR) {
    free(q);
    free(scales);
    free(offset);
    l->why = "int8 rounding error above 5% (outlying values)";
    return CF_OK;
  }
  l->precision = CF_PRECISION_INT8;
  l->plain = q;
  l->scales = scales;
  l->u8_offset = offset;
  return CF_OK;
}

cf_status cf_onednn_lowp_make(cf_precision p, int out, int in, const float *w,
                              cf_onednn_lowp *l, cf_error *err) {
  *l = (cf_onednn_lowp){.precision = CF_PRECISION_F32};
  if (p == CF_PRECISION_F32) return CF_OK;
  if (!all_finite((size_t)out * (size_t)in, w)) {
    l->why = "a value is not finite";
    return CF_OK;
  }
  return p == CF_PRECISION_BF16 ? make_bf16(out, in, w, l, err) : make_int8(out, in, w, l, err);
}

const char *cf_onednn_role_kept_why(cf_weight_use use) {
  switch (use) {
    case CF_WEIGHT_USE_INPUT_EMBEDDING: return "input embedding kept in float32 (f32_roles)";
    case CF_WEIGHT_USE_HEAD: return "head kept in float32 (f32_roles)";
    case CF_WEIGHT_USE_BODY:
    case CF_WEIGHT_USE_COUNT: break;
  }
  return "kept in float32 (f32_roles)";
}

void cf_onednn_tally_add(cf_onednn_tally *t, const cf_onednn_lowp *l) {
  if (l->precision != CF_PRECISION_F32) {
    t->n_lowp++;
    return;
  }
  t->n_kept++;
  for (int i = 0; i < t->n_why; i++)
    if (t->why[i] == l->why) return;
  if (t->n_why < CF_ONEDNN_KEPT_REASONS) t->why[t->n_why++] = l->why;
}

void cf_onednn_tally_text(const cf_onednn_tally *t, char *buf, size_t size) {
  size_t len = strlen(buf);
  if (!t->n_kept || len + 1 >= size) return;
  int n = snprintf(buf + len, size - len, " (%d of %d matrices kept f32: ", t->n_kept,
                   t->n_kept + t->n_lowp);
  for (int i = 0; i < t->n_why && n > 0; i++) {
    len = strlen(buf);
    n = snprintf(buf + len, size - len, "%s%s", i ? "; " : "", t->why[i]);
  }
  len = strlen(buf);
  if (len + 1 < size) snprintf(buf + len, size - len, ")");
}

/* Below this many floats a parallel region costs more than it saves (as
 * the CPU row ops, cf_cpu_rowops.c). */
enum { PARALLEL_MIN_FLOATS = 16384 };

static int threads_for(const cf_cpu_ctx *c, int rows, int cols) {
  return (long long)rows * cols >= PARALLEL_MIN_FLOATS ? c->threads : 1;
}

void cf_onednn_to_bf16(const cf_cpu_ctx *c, int rows, int cols, const float *x, uint16_t *y) {
  void (*row)(int, const float *, uint16_t *) = c->kernels->to_bf16_row;
  const int nt = threads_for(c, rows, cols);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) row(cols, x + (size_t)r * cols, y + (size_t)r * cols);
}

void cf_onednn_quantize_rows(const cf_cpu_ctx *c, int rows, int cols, const float *x, uint8_t *q,
                             float *scale) {
  float (*row)(int, const float *, uint8_t *) = c->kernels->quantize_row_u8;
  const int nt = threads_for(c, rows, cols);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) scale[r] = row(cols, x + (size_t)r * cols, q + (size_t)r * cols);
}

void cf_onednn_int8_epilogue(const cf_cpu_ctx *c, int rows, int cols, const int32_t *acc,
                             const int32_t *offset, const float *row_scale,
                             const float *col_scale, const float *bias, cf_op_act act, float *y) {
  void (*row)(int, const int32_t *, const int32_t *, float, const float *, const float *,
              cf_op_act, float *) = c->kernels->dequant_bias_act_row;
  const int nt = threads_for(c, rows, cols);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++)
    row(cols, acc + (size_t)r * cols, offset, row_scale[r], col_scale, bias, act,
        y + (size_t)r * cols);
}
