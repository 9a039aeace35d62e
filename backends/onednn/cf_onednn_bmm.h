/* cf_onednn_bmm.h: batched matrix products C[b] = A[b] B[b]^T as oneDNN
 * matmul primitives, one per shape and type, kept in a cache; the
 * attention path's products (cf_onednn_attention.h).
 *
 * A is [batch][M][K], B is [batch][N][K] (rows along the contraction,
 * read transposed for free, as the projections read their weights), C is
 * [batch][M][N] float32; all dense row-major. A and B are float32, bf16
 * bits or int8 (then C holds the exact integer products, which the
 * caller scales: per row of A and per row of B; A may be u8, for the
 * softmax weights, which are never negative). */
#ifndef CF_ONEDNN_BMM_H
#define CF_ONEDNN_BMM_H

#include <oneapi/dnnl/dnnl.h>
#include <stdbool.h>

#include "backends/cf_backend.h"

typedef struct cf_onednn_bmm cf_onednn_bmm;

typedef struct cf_onednn_bmm_cache {
  cf_onednn_bmm **v;
  int n, cap;
  long *builds; /* the backend's count of per-shape builds, bumped on each new primitive */
} cf_onednn_bmm_cache;

/* The primitive for one shape in precision p (F32, BF16, INT8; with
 * a_u8, INT8's A is u8), built on first use; NULL with *s the cause when oneDNN refuses. */
cf_onednn_bmm *cf_onednn_bmm_get(cf_onednn_bmm_cache *cache, dnnl_engine_t engine, int batch,
                                 int m, int k, int n, cf_precision p, bool a_u8,
                                 dnnl_status_t *s);

/* Runs it on a, b into c and waits for the stream. */
dnnl_status_t cf_onednn_bmm_run(cf_onednn_bmm *e, dnnl_stream_t stream, const void *a,
                                const void *b, float *c);

void cf_onednn_bmm_cache_free(cf_onednn_bmm_cache *cache);

#endif /* CF_ONEDNN_BMM_H */
