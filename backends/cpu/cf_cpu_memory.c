/* cf_cpu_memory.c: settings (with the kernel set), host memory and weight
 * records shared by the CPU backends. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "backends/cf_backend_fault.h"
#include "backends/cf_backend_options.h"
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
  c->attention_int8_rpe_k = false;
  const cf_backend_int_option known[] = {{"threads", 1, MAX_THREADS, &c->threads}};
  CF_TRY(cf_backend_options_parse(cfg->options, known, 1, err));
  return cf_cpu_kernels_select(&c->kernels, err);
}

size_t cf_cpu_layer_chunk_bytes(void *ctx) {
  const cf_cpu_ctx *c = ctx;
  return CF_CPU_LAYER_CHUNK_BYTES * (size_t)c->threads;
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
  if (cf_weight_role_is_rpe(w->role) &&
      (!build_rpe_table(w, shape->heads, fault, err) ||
       (bf16 && !build_rpe_table_bf16(w, fault, err)))) {
    cf_cpu_weight_free(ctx, w);
    return NULL;
  }
  return w;
}

void cf_cpu_weight_free(void *ctx, cf_bweight *w) {
  (void)ctx;
  if (!w) return;
  if (w->extra && w->extra_free) w->extra_free(w->extra);
  cf_cpu_free(w->table);
  cf_cpu_free((float *)(void *)w->table_bf16);
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
