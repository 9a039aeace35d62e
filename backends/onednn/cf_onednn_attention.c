/* cf_onednn_attention.c: the attention op as oneDNN batched products (see
 * the header): the choice of path, the scratch, the five products and the
 * row loops between them. */
#include "backends/onednn/cf_onednn_attention.h"
#include "backends/cpu/cf_cpu_amx.h"

#include <oneapi/dnnl/dnnl_debug.h>
#include <omp.h>
#include <stdlib.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/onednn/cf_onednn_attention_rows.h"
#include "backends/onednn/cf_onednn_bmm.h"

/* Positions per run of the products: a larger call runs in slices, so
 * what the products write and the row loops read back (the Rq and Rk
 * products take 64 x 225 floats per head and position, the scores 64 x
 * 64) stays within SLICE_BYTES, about a core's L2, instead of going out
 * to memory and back (16 positions of CF-6M's 8 heads: 15 MB). At most
 * MAX_SLICE batch sizes then need primitives. */
enum { T = CF_ONEDNN_RPE_T, MAX_SHAPES = 8, MAX_SLICE = 16 };
static const size_t SLICE_BYTES = 2u << 20;

static int slice_of(int heads) {
  const size_t per_position = (size_t)heads * 64 * (2 * T + 64) * sizeof(float);
  const size_t n = per_position ? SLICE_BYTES / per_position : MAX_SLICE;
  return n < 1 ? 1 : n > MAX_SLICE ? MAX_SLICE : (int)n;
}

/* A (heads, depth) the op was called with and which terms it had. */
typedef struct attn_shape {
  int heads, depth;
  bool q, k, v;
} attn_shape;

struct cf_onednn_attention {
  cf_precision p;
  cf_onednn_attention_env env;
  cf_onednn_bmm_cache products;
  char *scratch; /* cf_cpu_alloc'd, grown as shapes need */
  size_t scratch_bytes;
  attn_shape shapes[MAX_SHAPES];
  int n_shapes;
  bool too_many_shapes;
};

cf_status cf_onednn_attention_choose(cf_kv *kv, cf_precision p, cf_onednn_attention_choice *out,
                                     cf_error *err) {
  static const char *const names[] = {"auto", "cpu", "onednn", "amx"};
  int v = 0;
  CF_TRY(cf_kv_get_choice(kv, "attention", names, 4, &v, err));
  const bool amx = cf_amx_usable();
  if (v == 1) *out = (cf_onednn_attention_choice){false, false, "attention=cpu"};
  else if (v == 2) *out = (cf_onednn_attention_choice){true, false, "attention=onednn"};
  else if (v == 3 && !amx)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "attention=amx: this CPU or OS runs no AMX tiles (it needs amx_tile, "
                        "amx_bf16 and avx512_bf16 with the OS's tile state, and the avx512 "
                        "kernels); the paths here: cpu, onednn");
  else if (v == 3 && p == CF_PRECISION_F32)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "attention=amx runs at precision=bf16 or int8 (its products are bf16; "
                        "this is f32); the paths here: cpu, onednn");
  else if (v == 3) *out = (cf_onednn_attention_choice){false, true, "attention=amx"};
  /* auto: the tiles where they run (at int8 too, in bf16), else the CPU
   * cores. At int8 the tiles made CF-6M 1.11-1.23x as fast as the int8
   * cores at batches 1 to 256 and the built-in net 1.03-1.14x
   * (2026-12-04, docs/BACKENDS.md). The oneDNN
   * path never: on an Intel Xeon with AMX it made CF-6M 2.1x (bf16) and
   * 3.5x (int8) slower and the built-in net 2.6-2.9x slower than the cores
   * (2026-12-03, docs/BACKENDS.md): the 225-displacement products and
   * their gathers cost more than AMX saves. */
  else if (amx && p != CF_PRECISION_F32)
    *out = (cf_onednn_attention_choice){false, true, "auto: AMX"};
  else *out = (cf_onednn_attention_choice){false, false, "auto"};
  return CF_OK;
}

cf_status cf_onednn_attention_create(cf_precision p, const cf_onednn_attention_env *env,
                                     cf_onednn_attention **out, cf_error *err) {
  cf_onednn_attention *a = calloc(1, sizeof *a);
  if (!a) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  a->p = p;
  a->env = *env;
  a->products.builds = env->builds;
  *out = a;
  return CF_OK;
}

void cf_onednn_attention_free(cf_onednn_attention *a) {
  if (!a) return;
  cf_onednn_bmm_cache_free(&a->products);
  cf_cpu_free((float *)(void *)a->scratch);
  free(a);
}

cf_status cf_onednn_attention_table(const cf_onednn_attention *a, const cf_weight_shape *shape,
                                    const float *data, void **table, cf_error *err) {
  cf_onednn_rpe *t = calloc(1, sizeof *t);
  const char *why = NULL;
  if (!t || !cf_onednn_rpe_build(a->p, shape, data, t, &why)) {
    free(t);
    if (!why) return cf_error_set(err, CF_ERR_NOMEM, "out of memory building an RPE table");
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "%s: attention=onednn at precision=%s cannot run it (attention=cpu "
                        "keeps such a table in float32)",
                        why, cf_precision_name(a->p));
  }
  *table = t;
  return CF_OK;
}

void cf_onednn_attention_table_free(void *table) {
  cf_onednn_rpe *t = table;
  if (!t) return;
  free(t->rows);
  free(t->scale);
  free(t);
}

/* The scratch of one call, carved from one allocation. */
typedef struct bufs {
  char *qc, *kc, *vt, *ac, *apc;       /* operands in the precision */
  float *sq, *sk, *sv, *sa;            /* their int8 row scales (1 otherwise) */
  float *s, *rq, *rk, *o1, *o2;        /* products, float32 */
} bufs;

/* Lays the buffers of B positions out from base (NULL: only measures);
 * returns the bytes. */
static size_t layout(const cf_onednn_attention *a, int B, int H, int dh, char *base, bufs *b) {
  const size_t es = cf_onednn_attn_size(a->p), rows = (size_t)H * B * 64;
  size_t off = 0;
#define CARVE(field, type, bytes)                                 \
  do {                                                            \
    b->field = base ? (type *)(void *)(base + off) : NULL;        \
    off += ((size_t)(bytes) + 63) / 64 * 64;                      \
  } while (0)
  CARVE(qc, char, rows * dh * es);
  CARVE(kc, char, rows * dh * es);
  CARVE(vt, char, rows * dh * es);
  CARVE(ac, char, rows * 64 * es);
  CARVE(apc, char, rows * T * es);
  CARVE(sq, float, rows * 4);
  CARVE(sk, float, rows * 4);
  CARVE(sv, float, (size_t)H * B * dh * 4);
  CARVE(sa, float, rows * 4);
  CARVE(s, float, rows * 64 * 4);
  CARVE(rq, float, rows * T * 4);
  CARVE(rk, float, rows * T * 4);
  CARVE(o1, float, rows * dh * 4);
  CARVE(o2, float, rows * dh * 4);
#undef CARVE
  return off;
}

static void fail(cf_onednn_attention *a, dnnl_status_t s, const char *call) {
  cf_backend_note_failure(a->env.first, s == dnnl_out_of_memory ? CF_ERR_NOMEM : CF_ERR_BACKEND,
                          "attention", "%s: %s", call, dnnl_status2str(s));
}

/* The scratch for B positions; false (recorded) when out of memory. */
static bool grow(cf_onednn_attention *a, int B, int H, int dh) {
  bufs b;
  const size_t need = layout(a, B, H, dh, NULL, &b);
  if (need <= a->scratch_bytes) return true;
  cf_cpu_free((float *)(void *)a->scratch);
  a->scratch = (char *)cf_cpu_alloc((need + 3) / 4);
  a->scratch_bytes = a->scratch ? need : 0;
  if (!a->scratch) {
    fail(a, dnnl_out_of_memory, "allocating the attention's scratch");
    return false;
  }
  ++*a->env.builds;
  return true;
}

/* The five products' primitives for B positions (those the terms need). */
typedef struct products {
  cf_onednn_bmm *qk, *rpe, *av, *apv;
} products;

static bool get_products(cf_onednn_attention *a, int B, int H, int dh, bool rpe_qk, bool rpe_v,
                         products *pr) {
  dnnl_status_t s = dnnl_success;
  cf_onednn_bmm_cache *c = &a->products;
  *pr = (products){0};
  pr->qk = cf_onednn_bmm_get(c, a->env.engine, H * B, 64, dh, 64, a->p, false, &s);
  if (pr->qk && rpe_qk)
    pr->rpe = cf_onednn_bmm_get(c, a->env.engine, H, B * 64, dh, T, a->p, false, &s);
  /* The softmax weights in u8 under int8: twice the levels of s8. */
  if (s == dnnl_success)
    pr->av = cf_onednn_bmm_get(c, a->env.engine, H * B, 64, 64, dh, a->p, true, &s);
  if (s == dnnl_success && rpe_v)
    pr->apv = cf_onednn_bmm_get(c, a->env.engine, H, B * 64, T, dh, a->p, true, &s);
  if (s != dnnl_success) fail(a, s, "creating a batched matmul primitive");
  return s == dnnl_success;
}

static void remember(cf_onednn_attention *a, const cf_attention_args *g) {
  for (int i = 0; i < a->n_shapes; i++) {
    attn_shape *e = &a->shapes[i];
    if (e->heads == g->heads && e->depth == g->depth) {
      e->q |= g->rpe_q != NULL, e->k |= g->rpe_k != NULL, e->v |= g->rpe_v != NULL;
      return;
    }
  }
  if (a->n_shapes == MAX_SHAPES) {
    a->too_many_shapes = true;
    return;
  }
  a->shapes[a->n_shapes++] = (attn_shape){g->heads, g->depth, g->rpe_q != NULL,
                                          g->rpe_k != NULL, g->rpe_v != NULL};
}

static const cf_onednn_rpe *table_of(const cf_bweight *w) { return w ? w->extra : NULL; }

static void run_slice(cf_onednn_attention *a, const cf_attention_args *g);

void cf_onednn_attention_run(cf_onednn_attention *a, const cf_attention_args *g) {
  const size_t dm = (size_t)g->heads * g->depth;
  const int slice = slice_of(g->heads);
  for (int b0 = 0; b0 < g->batch; b0 += slice) {
    cf_attention_args s = *g;
    s.batch = g->batch - b0 < slice ? g->batch - b0 : slice;
    s.qkv = g->qkv + (size_t)b0 * 64 * 3 * dm;
    s.out = g->out + (size_t)b0 * 64 * dm;
    s.bias = g->bias ? g->bias + (size_t)b0 * g->heads * 64 * 64 : NULL;
    run_slice(a, &s);
  }
}

/* The op on at most slice_of(heads) positions. */
static void run_slice(cf_onednn_attention *a, const cf_attention_args *g) {
  const int B = g->batch, H = g->heads, dh = g->depth, dm = H * dh, ld = 3 * dm;
  const cf_onednn_rpe *eq = table_of(g->rpe_q), *ek = table_of(g->rpe_k), *ev = table_of(g->rpe_v);
  const cf_onednn_rpe *t3[3] = {eq, ek, ev};
  const cf_bweight *w3[3] = {g->rpe_q, g->rpe_k, g->rpe_v};
  for (int i = 0; i < 3; i++)
    if (w3[i] && (!t3[i] || t3[i]->heads != H || t3[i]->depth != dh)) {
      cf_backend_note_failure(a->env.first, CF_ERR_INTERNAL, "attention",
                              "a relative position table has no oneDNN form for this call's "
                              "%d heads of depth %d",
                              H, dh);
      return;
    }
  remember(a, g);
  products pr;
  if (B <= 0 || !grow(a, B, H, dh) || !get_products(a, B, H, dh, eq || ek, ev != NULL, &pr))
    return;
  bufs b;
  layout(a, B, H, dh, a->scratch, &b);
  const cf_precision p = a->p;
  const size_t es = cf_onednn_attn_size(p);
  const int tasks = H * B, nt = a->env.threads < tasks ? a->env.threads : tasks;
  (void)nt; /* read only by OpenMP */
  /* 1. q, k rows and v columns of task (h, b) into [H][B*64] order. */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int t = 0; t < tasks; t++) {
    const int h = t / B, pos = t % B;
    const float *tok = g->qkv + (size_t)pos * 64 * ld + (size_t)h * dh;
    for (int q = 0; q < 64; q++) {
      const size_t r = (size_t)t * 64 + q;
      cf_onednn_attn_row(p, dh, tok + (size_t)q * ld, b.qc + r * dh * es, &b.sq[r]);
      cf_onednn_attn_row(p, dh, tok + (size_t)q * ld + dm, b.kc + r * dh * es, &b.sk[r]);
    }
    cf_onednn_attn_columns(p, 64, dh, tok + 2 * dm, (size_t)ld, b.vt + (size_t)t * dh * 64 * es,
                           b.sv + (size_t)t * dh);
  }
  /* 2. S = Q K^T per task; Rq = Q Eq^T and Rk = K Ek^T per head. */
  omp_set_num_threads(a->env.threads);
  dnnl_status_t s = cf_onednn_bmm_run(pr.qk, a->env.stream, b.qc, b.kc, b.s);
  if (s == dnnl_success && eq) s = cf_onednn_bmm_run(pr.rpe, a->env.stream, b.qc, eq->rows, b.rq);
  if (s == dnnl_success && ek) s = cf_onednn_bmm_run(pr.rpe, a->env.stream, b.kc, ek->rows, b.rk);
  if (s != dnnl_success) {
    fail(a, s, "dnnl_primitive_execute (scores)");
    return;
  }
  /* 3. Scores, softmax, the weights in the precision. */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int t = 0; t < tasks; t++) {
    const int h = t / B, pos = t % B;
    const float *bias = g->bias ? g->bias + ((size_t)pos * H + h) * 64 * 64 : NULL;
    const size_t r = (size_t)t * 64;
    cf_onednn_attn_task(p, b.s + r * 64, b.sq + r, b.sk + r, eq ? b.rq + r * T : NULL,
                        eq ? eq->scale + (size_t)h * T : NULL, ek ? b.rk + r * T : NULL,
                        ek ? ek->scale + (size_t)h * T : NULL, g->scale, bias,
                        b.ac + r * 64 * es, ev ? b.apc + r * T * es : NULL, b.sa + r);
  }
  /* 4. O = A V per task; A' Ev per head. */
  omp_set_num_threads(a->env.threads);
  s = cf_onednn_bmm_run(pr.av, a->env.stream, b.ac, b.vt, b.o1);
  if (s == dnnl_success && ev) s = cf_onednn_bmm_run(pr.apv, a->env.stream, b.apc, ev->rows, b.o2);
  if (s != dnnl_success) {
    fail(a, s, "dnnl_primitive_execute (values)");
    return;
  }
  /* 5. The outputs, scaled, into [B*64][dm]. */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int t = 0; t < tasks; t++) {
    const int h = t / B, pos = t % B;
    const float *sv = b.sv + (size_t)t * dh, *sev = ev ? ev->scale + (size_t)h * dh : NULL;
    for (int q = 0; q < 64; q++) {
      const size_t r = (size_t)t * 64 + q;
      float *o = g->out + ((size_t)pos * 64 + q) * dm + (size_t)h * dh;
      const float *o1 = b.o1 + r * dh, *o2 = b.o2 + r * dh;
      for (int i = 0; i < dh; i++)
        o[i] = o1[i] * b.sa[r] * sv[i] + (ev ? o2[i] * b.sa[r] * sev[i] : 0.0f);
    }
  }
}

bool cf_onednn_attention_prepare(cf_onednn_attention *a, int max_batch) {
  if (a->too_many_shapes) {
    cf_backend_note_failure(a->env.first, CF_ERR_INTERNAL, "attention",
                            "more than %d head counts and depths to prepare", MAX_SHAPES);
    return false;
  }
  for (int i = 0; i < a->n_shapes; i++) {
    const attn_shape *e = &a->shapes[i];
    products pr;
    for (int n = 1; n <= max_batch && n <= slice_of(e->heads); n++)
      if (!grow(a, n, e->heads, e->depth) ||
          !get_products(a, n, e->heads, e->depth, e->q || e->k, e->v, &pr))
        return false;
  }
  return true;
}
