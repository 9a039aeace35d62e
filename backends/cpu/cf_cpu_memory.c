/* cf_cpu_memory.c: settings (with the kernel set), host memory and weight
 * records shared by the CPU backends. */
#define _DEFAULT_SOURCE /* madvise */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "backends/cf_backend_fault.h"
#include "common/cf_kv.h"
#include "backends/cpu/cf_cpu_amx.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

/* The most threads an option may ask for; more is surely a typo. */
enum { MAX_THREADS = 256 };

cf_status cf_cpu_ctx_init(cf_cpu_ctx *c, const cf_backend_config *cfg,
                          cf_error *err) {
  c->max_batch = cfg->max_batch;
  c->threads = 1;
  c->fault = cfg->fault;
  c->attention_bf16 = NULL; /* float32 attention unless the backend asks */
  c->attention_int8 = NULL;
  c->attention_amx = false;
  c->amx_scratch = NULL;
  c->amx_scratch_bytes = 0;
  c->qkv_wide = NULL;
  c->qkv_wide_floats = 0;
  CF_TRY(cf_kv_get_int(cfg->kv, "threads", 1, MAX_THREADS, &c->threads, err));
  return cf_cpu_kernels_select(&c->kernels, err);
}

cf_status cf_cpu_iface_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  cf_cpu_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  cf_status st = cf_cpu_ctx_init(c, cfg, err);
  if (st != CF_OK) {
    free(c);
    return st;
  }
  *ctx = c;
  return CF_OK;
}

void cf_cpu_ctx_release(cf_cpu_ctx *c) {
  free(c->amx_scratch);
  c->amx_scratch = NULL;
  c->amx_scratch_bytes = 0;
  free(c->qkv_wide);
  c->qkv_wide = NULL;
  c->qkv_wide_floats = 0;
}

void cf_cpu_iface_destroy(void *ctx) {
  if (ctx) cf_cpu_ctx_release(ctx);
  free(ctx);
}

size_t cf_cpu_layer_chunk_bytes(void *ctx) {
  const cf_cpu_ctx *c = ctx;
  /* The AMX attention reads a head's joined tables once per group of 16
   * positions: chunks of 9 CF-6M positions left the tiles' rows half
   * empty (with 16, CF-6M 1.04-1.12x as fast at batches 16-256 on an
   * Intel Xeon with AMX, docs/results/2026-12-03-intel-xeon-amx.md). */
  const size_t per_thread = CF_CPU_LAYER_CHUNK_BYTES * (c->attention_amx ? 2 : 1);
  return per_thread * (size_t)c->threads;
}

const char *cf_cpu_kernels_name(void *ctx) {
  const cf_cpu_ctx *c = ctx;
  return c->kernels->name;
}

/* Buffers this large go on 2 MB pages where the OS offers them. */
enum { HUGE_PAGE = 2 * 1024 * 1024 };

float *cf_cpu_alloc(size_t n) {
  size_t bytes = (n ? n : 1) * sizeof(float);
  size_t align = 64;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  /* At large batches the activations (50 MB of q/k/v at batch 256 for
   * CF-6M) are read in strides of a few KB (a head's slice of each token,
   * a GEMM's column panel): with 4 KB pages nearly every row is a new page
   * and a TLB miss. Transparent huge pages are often enabled only on
   * request (madvise mode), so ask. */
  if (bytes >= HUGE_PAGE) align = HUGE_PAGE;
#endif
  const size_t used = bytes;
  bytes = (bytes + align - 1) / align * align; /* aligned_alloc wants a multiple */
  float *p = aligned_alloc(align, bytes);
  if (!p) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == HUGE_PAGE) (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
  memset(p, 0, used); /* the padding stays untouched (unbacked, where it spans whole pages) */
  return p;
}

void cf_cpu_free(float *p) { free(p); }

float *cf_cpu_iface_alloc(void *ctx, size_t n, cf_error *err) {
  (void)ctx;
  float *p = cf_cpu_alloc(n);
  if (!p) cf_error_set(err, CF_ERR_NOMEM, "aligned_alloc of %zu floats failed", n);
  return p;
}

void cf_cpu_iface_free(void *ctx, float *p) {
  (void)ctx;
  cf_cpu_free(p);
}

void cf_cpu_iface_copy(void *ctx, float *dst, const float *src, size_t n) {
  (void)ctx;
  if (n) memcpy(dst, src, n * sizeof(float));
}

bool cf_cpu_rpe_reversed(cf_weight_role role, int depth) {
  return role != CF_WEIGHT_RPE_V && depth <= CF_CPU_MAX_FAST_DEPTH;
}

/* w->table from w->data [225][dh*H] (element (p, i*H + h)): reversed
 * [H][dh][225], element (h, i, j) = e[224 - j][i*H + h], or rows
 * [H][225][dh]. Built here, at upload, so the attention op never
 * allocates (and so cannot fail for want of memory). */
static bool build_rpe_table(cf_bweight *w, int heads, cf_backend_fault *fault, cf_error *err) {
  enum { TABLE = CF_CPU_RPE_TABLE };
  if (w->rows != TABLE || heads < 1 || w->cols % heads != 0) {
    cf_error_set(err, CF_ERR_INTERNAL, "a relative position table is %d x %d, for %d heads",
                 w->rows, w->cols, heads);
    return false;
  }
  if (cf_backend_fault_alloc(fault, err)) return false;
  w->table = cf_cpu_alloc((size_t)w->rows * w->cols);
  if (!w->table) {
    cf_error_set(err, CF_ERR_NOMEM, "aligned_alloc of the %d-head table failed", heads);
    return false;
  }
  w->heads = heads;
  const int dh = w->cols / heads;
  if (cf_cpu_rpe_reversed(w->role, dh)) {
    for (int h = 0; h < heads; h++)
      for (int i = 0; i < dh; i++)
        for (int j = 0; j < TABLE; j++)
          w->table[((size_t)h * dh + i) * TABLE + j] =
              w->data[(size_t)(TABLE - 1 - j) * w->cols + (size_t)i * heads + h];
  } else {
    for (int p = 0; p < TABLE; p++)
      for (int i = 0; i < dh; i++)
        for (int h = 0; h < heads; h++)
          w->table[((size_t)h * TABLE + p) * dh + i] =
              w->data[(size_t)p * w->cols + (size_t)i * heads + h];
  }
  return true;
}

/* The joined form (cf_cpu_attention_layout.h) of a query or key side's
 * reversed table src ([heads][rows][225] 4-byte words: dh floats or dq
 * int8 quads), or NULL with err set when the allocation fails. */
static void *joined_table(const void *src, int heads, int rows, const char *what,
                          cf_backend_fault *fault, cf_error *err) {
  if (cf_backend_fault_alloc(fault, err)) return NULL;
  float *out = cf_cpu_alloc((size_t)heads * 8 * cf_cpu_joined_block(rows));
  if (!out) {
    cf_error_set(err, CF_ERR_NOMEM, "aligned_alloc of the %d-head joined %s table failed", heads,
                 what);
    return NULL;
  }
  for (int h = 0; h < heads; h++)
    cf_cpu_join_head(rows, (const char *)src + 4 * (size_t)h * rows * CF_CPU_RPE_TABLE,
                     out + (size_t)h * 8 * cf_cpu_joined_block(rows));
  return out;
}

/* w->table_joined from w->table, and with int8 w->table_int8_joined from
 * w->table_int8 (both built first), for a query or key side at a depth up
 * to CF_CPU_JOINED_MAX_DEPTH; nothing elsewhere. */
static bool build_rpe_tables_joined(cf_bweight *w, bool f32, bool int8, cf_backend_fault *fault,
                                    cf_error *err) {
  const int heads = w->heads, dh = w->cols / heads;
  if (w->role == CF_WEIGHT_RPE_V || dh > CF_CPU_JOINED_MAX_DEPTH) return true;
  if (f32 && !(w->table_joined = joined_table(w->table, heads, dh, "float32", fault, err)))
    return false;
  if (int8 && w->table_int8 &&
      !(w->table_int8_joined =
            joined_table(w->table_int8, heads, (dh + 3) / 4, "int8", fault, err)))
    return false;
  return true;
}

/* e[p][i*H + h] of an RPE weight, 0 outside the table or past the depth
 * (the pad of an odd depth). */
static float rpe_at(const cf_bweight *w, int p, int i, int h, int dh) {
  if (p < 0 || i >= dh) return 0.0f;
  return w->data[(size_t)p * w->cols + (size_t)i * w->heads + h];
}

/* Two values as bf16 (the portable set's rounding, the one every set
 * shares) packed in a word, lo first. */
static uint32_t bf16_pair(float lo, float hi) {
  const float x[2] = {lo, hi};
  uint16_t y[2];
  cf_cpu_kernels_portable.to_bf16_row(2, x, y);
  return y[0] | (uint32_t)y[1] << 16;
}

/* True when every value of w rounds to a finite bf16 (a non-finite value,
 * or one beyond bf16's largest finite ~3.39e38, does not). */
static bool bf16_finite(const cf_bweight *w) {
  for (size_t i = 0; i < (size_t)w->rows * w->cols; i++) {
    const uint32_t b = bf16_pair(w->data[i], 0.0f) & 0xFFFFu;
    if ((b & 0x7F80u) == 0x7F80u) return false;
  }
  return true;
}

/* w->table_bf16 (cf_bweight) from w->data, after build_rpe_table; left
 * NULL (the float32 core runs this weight's calls) when the depth is past
 * the bf16 path or a value does not survive bf16. */
static bool build_rpe_table_bf16(cf_bweight *w, cf_backend_fault *fault, cf_error *err) {
  enum { TABLE = CF_CPU_RPE_TABLE };
  const int heads = w->heads, dh = w->cols / heads, dp = (dh + 1) / 2;
  if (dh > CF_CPU_MAX_FAST_DEPTH || !bf16_finite(w)) return true;
  const bool v = w->role == CF_WEIGHT_RPE_V;
  if (cf_backend_fault_alloc(fault, err)) return false;
  w->table_bf16 = (uint32_t *)(void *)cf_cpu_alloc((size_t)heads * TABLE * (v ? dh : dp));
  if (!w->table_bf16) {
    cf_error_set(err, CF_ERR_NOMEM, "aligned_alloc of the %d-head bf16 table failed", heads);
    return false;
  }
  for (int h = 0; h < heads; h++) {
    uint32_t *t = w->table_bf16 + (size_t)h * TABLE * (v ? dh : dp);
    if (v) { /* word (p, i): keys 2m and 2m + 1 sit at displacements p and p - 1 */
      for (int p = 0; p < TABLE; p++)
        for (int i = 0; i < dh; i++)
          t[(size_t)p * dh + i] = bf16_pair(rpe_at(w, p, i, h, dh), rpe_at(w, p - 1, i, h, dh));
    } else { /* word (j, jj): depths 2j, 2j + 1 of displacement 224 - jj */
      for (int j = 0; j < dp; j++)
        for (int jj = 0; jj < TABLE; jj++)
          t[(size_t)j * TABLE + jj] = bf16_pair(rpe_at(w, TABLE - 1 - jj, 2 * j, h, dh),
                                                rpe_at(w, TABLE - 1 - jj, 2 * j + 1, h, dh));
    }
  }
  return true;
}

/* w->table_amx (cf_bweight) from w->data; left NULL (the bf16 cores run
 * this weight's calls) past CF_AMX_MAX_DEPTH or where a value does not
 * survive bf16. */
static bool build_rpe_table_amx(cf_bweight *w, cf_backend_fault *fault, cf_error *err) {
  const int heads = w->heads, dh = w->cols / heads;
  if (dh > CF_AMX_MAX_DEPTH || !bf16_finite(w)) return true;
  const size_t per_head = cf_amx_table_elems(w->role, dh);
  if (cf_backend_fault_alloc(fault, err)) return false;
  /* cf_cpu_alloc counts floats: two bf16 each. */
  w->table_amx = (uint16_t *)(void *)cf_cpu_alloc((size_t)heads * per_head / 2);
  bool built = w->table_amx != NULL;
  for (int h = 0; h < heads && built; h++)
    built = cf_amx_table_build(w->role, heads, dh, h, w->data, w->table_amx + (size_t)h * per_head);
  if (!built) {
    cf_error_set(err, CF_ERR_NOMEM, "out of memory building the %d-head AMX table", heads);
    return false;
  }
  return true;
}

/* True when every value of w is finite (int8's scales come from maxima). */
static bool all_finite(const cf_bweight *w) {
  for (size_t i = 0; i < (size_t)w->rows * w->cols; i++)
    if (!isfinite(w->data[i])) return false;
  return true;
}

/* Four bytes packed in a word, b[0] lowest (the order of a vector load). */
static uint32_t pack4(int b0, int b1, int b2, int b3) {
  return (uint32_t)(uint8_t)b0 | (uint32_t)(uint8_t)b1 << 8 | (uint32_t)(uint8_t)b2 << 16 |
         (uint32_t)(uint8_t)b3 << 24;
}

/* w->table_int8 and its scales and corrections (cf_bweight, laid out as
 * cf_cpu_int8_rpe) from w->data, after build_rpe_table; left NULL (the
 * float32 core runs this weight's calls) when the depth is past the int8
 * path or a value is not finite. Runs are quantized with the portable
 * set's quantize_row (every set rounds the same). */
static bool build_rpe_table_int8(cf_bweight *w, cf_backend_fault *fault, cf_error *err) {
  enum { TABLE = CF_CPU_RPE_TABLE, MAXD = CF_CPU_MAX_FAST_DEPTH };
  const int heads = w->heads, dh = w->cols / heads, dq = (dh + 3) / 4;
  if (dh > MAXD || !all_finite(w)) return true;
  const bool v = w->role == CF_WEIGHT_RPE_V, q = w->role == CF_WEIGHT_RPE_Q;
  const size_t words = (size_t)heads * TABLE * (v ? dh : dq);
  const size_t scales = (size_t)heads * (v ? dh : TABLE);
  if (cf_backend_fault_alloc(fault, err)) return false;
  w->table_int8 = (uint32_t *)(void *)cf_cpu_alloc(words);
  w->table_int8_scale = cf_cpu_alloc(scales);
  w->table_int8_corr = q ? (int32_t *)(void *)cf_cpu_alloc((size_t)heads * TABLE) : NULL;
  if (!w->table_int8 || !w->table_int8_scale || (q && !w->table_int8_corr)) {
    cf_error_set(err, CF_ERR_NOMEM, "aligned_alloc of the %d-head int8 table failed", heads);
    return false;
  }
  float (*quantize)(int, const float *, int8_t *) = cf_cpu_kernels_portable.quantize_row;
  float x[TABLE > MAXD ? TABLE : MAXD];
  int8_t b[TABLE > 4 * ((MAXD + 3) / 4) ? TABLE : 4 * ((MAXD + 3) / 4)];
  for (int h = 0; h < heads; h++) {
    uint32_t *t = w->table_int8 + (size_t)h * TABLE * (v ? dh : dq);
    if (v) { /* a column over the displacements, then word (p, i) = p, p - 1, p - 2, p - 3 */
      int8_t col[MAXD][TABLE]; /* 28 KB at the largest depth */
      for (int i = 0; i < dh; i++) {
        for (int p = 0; p < TABLE; p++) x[p] = rpe_at(w, p, i, h, dh);
        w->table_int8_scale[(size_t)h * dh + i] = quantize(TABLE, x, col[i]);
      }
      for (int p = 0; p < TABLE; p++)
        for (int i = 0; i < dh; i++) {
          int c[4];
          for (int u = 0; u < 4; u++) c[u] = p - u >= 0 ? col[i][p - u] : 0;
          t[(size_t)p * dh + i] = pack4(c[0], c[1], c[2], c[3]);
        }
    } else { /* a displacement's row over depth (reversed: jj = 224 - p) */
      float *sc = w->table_int8_scale + (size_t)h * TABLE;
      int32_t *corr = q ? w->table_int8_corr + (size_t)h * TABLE : NULL;
      for (int jj = 0; jj < TABLE; jj++) {
        for (int i = 0; i < 4 * dq; i++) x[i] = rpe_at(w, TABLE - 1 - jj, i, h, dh);
        sc[jj] = quantize(dh, x, b);
        for (int i = dh; i < 4 * dq; i++) b[i] = 0;
        int32_t sum = 0;
        for (int i = 0; i < dh; i++) sum += b[i];
        if (corr) corr[jj] = 128 * sum;
        const int bias = q ? 0 : 128; /* the key side as u8 */
        for (int j = 0; j < dq; j++)
          t[(size_t)j * TABLE + jj] = pack4(b[4 * j] + bias, b[4 * j + 1] + bias,
                                            b[4 * j + 2] + bias, b[4 * j + 3] + bias);
      }
    }
  }
  return true;
}

cf_bweight *cf_cpu_weight_create(void *ctx, const cf_weight_shape *shape, const float *data,
                                 cf_error *err) {
  /* ctx may be NULL (a bench building weights without a backend). */
  cf_backend_fault *fault = ctx ? ((cf_cpu_ctx *)ctx)->fault : NULL;
  const int rows = shape->rows, cols = shape->cols;
  size_t n = (size_t)rows * (size_t)cols;
  cf_bweight *w = calloc(1, sizeof *w);
  if (!w) {
    cf_error_set(err, CF_ERR_NOMEM, "calloc of a weight record failed");
    return NULL;
  }
  w->role = shape->role;
  w->rows = rows;
  w->cols = cols;
  w->data = cf_backend_fault_alloc(fault, err) ? NULL : cf_cpu_alloc(n);
  if (!w->data) {
    free(w);
    if (err && err->status != CF_OK) return NULL; /* the hook's message */
    cf_error_set(err, CF_ERR_NOMEM, "aligned_alloc of %zu floats failed", n);
    return NULL;
  }
  if (w->role == CF_WEIGHT_GATE) {
    /* [d][64] -> [64][d] */
    for (int c = 0; c < rows; c++)
      for (int t = 0; t < cols; t++) w->data[(size_t)t * rows + c] = data[(size_t)c * cols + t];
  } else {
    memcpy(w->data, data, n * sizeof(float));
  }
  const bool bf16 = ctx && ((cf_cpu_ctx *)ctx)->attention_bf16;
  const bool int8 = ctx && ((cf_cpu_ctx *)ctx)->attention_int8;
  const bool joined = ctx && ((cf_cpu_ctx *)ctx)->kernels->attention->scores_file;
  const bool int8_joined = int8 && ((cf_cpu_ctx *)ctx)->attention_int8->scores_file;
  const bool amx = ctx && ((cf_cpu_ctx *)ctx)->attention_amx;
  if (cf_weight_role_is_rpe(w->role) &&
      (!build_rpe_table(w, shape->heads, fault, err) ||
       (bf16 && !build_rpe_table_bf16(w, fault, err)) ||
       (int8 && !build_rpe_table_int8(w, fault, err)) ||
       (amx && !build_rpe_table_amx(w, fault, err)) ||
       ((joined || int8_joined) &&
        !build_rpe_tables_joined(w, joined, int8_joined, fault, err)))) {
    cf_cpu_weight_free(ctx, w);
    return NULL;
  }
  return w;
}

float *cf_cpu_gemm_panels(const cf_bweight *w) {
  const size_t n = cf_cpu_gemm_panels_floats(w->rows, w->cols);
  float *p = cf_cpu_alloc(n);
  if (!p) return NULL;
  memset(p, 0, n * sizeof *p); /* the last panel's columns past rows */
  for (int o = 0; o < w->rows; o++)
    for (int i = 0; i < w->cols; i++)
      p[((size_t)(o / CF_CPU_GEMM_PANEL) * w->cols + i) * CF_CPU_GEMM_PANEL +
        o % CF_CPU_GEMM_PANEL] = w->data[(size_t)o * w->cols + i];
  return p;
}

void cf_cpu_weight_free(void *ctx, cf_bweight *w) {
  (void)ctx;
  if (!w) return;
  if (w->extra && w->extra_free) w->extra_free(w->extra);
  cf_cpu_free(w->table);
  cf_cpu_free((float *)(void *)w->table_bf16);
  cf_cpu_free((float *)(void *)w->table_int8);
  cf_cpu_free(w->table_int8_scale);
  cf_cpu_free((float *)(void *)w->table_int8_corr);
  cf_cpu_free(w->table_joined);
  cf_cpu_free((float *)(void *)w->table_int8_joined);
  cf_cpu_free((float *)(void *)w->table_amx);
  cf_cpu_free(w->data_panels);
  cf_cpu_free(w->data);
  free(w);
}

cf_status cf_cpu_sync(void *ctx, cf_error *err) {
  cf_cpu_ctx *c = ctx;
  return cf_backend_take_failure(&c->first, err);
}

void cf_cpu_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                    int ld_dst) {
  (void)ctx;
  for (int r = 0; r < rows; r++)
    memcpy(dst + (size_t)r * ld_dst, src + (size_t)r * ld_src, (size_t)cols * sizeof(float));
}
