/* cf_cpu_attention_layout.h: the indexing every attention kernel set
 * shares (the driver builds the tables, the kernels walk them).
 *
 * Displacement. p(q, k) = 15 (rank q - rank k + 7) + (file q - file k + 7)
 * = base(q) - off(k), with off(k) = 15 rank(k) + file(k). Reversing the
 * table (j = 224 - p) gives j = c(q) + off(k), c(q) = 224 - base(q): for a
 * fixed query, the 8 keys of one rank use 8 consecutive entries j. So with
 * the per-head table stored transposed and reversed, E'[i][j] (depth i),
 *   q.Eq[p(q, k)] for k = 8r..8r+7 is  sum_i Q[i] * E'q[i][c + 15r .. +7]
 *   k.Ek[p(q, k)] for k = 8r..8r+7 is  sum_i Kt[i][8r .. +7] * E'k[i][c + 15r .. +7]
 * which are 8-wide vector FMAs, next to q.k = sum_i Q[i] * Kt[i][8r .. +7]
 * (Kt = this head's keys transposed). The value side adds A[q][k] Ev[p]
 * (rows of the untransposed per-head table). */
#ifndef CF_CPU_ATTENTION_LAYOUT_H
#define CF_CPU_ATTENTION_LAYOUT_H

#include <stddef.h>
#include <string.h>

enum { CF_CPU_RPE_TABLE = 225 }; /* displacements: 15 x 15 */

static inline int cf_cpu_key_off(int k) { return 15 * (k >> 3) + (k & 7); }
static inline int cf_cpu_query_base(int q) { return 15 * ((q >> 3) + 7) + (q & 7) + 7; }

/* The joined form of a reversed query or key table, for kernel sets whose
 * vectors span two key ranks (scores_file in cf_cpu_kernels.h): per head,
 * query file f and depth row i, CF_CPU_JOINED vectors of 16 words (floats,
 * or int8 quads), vector x holding the entries of key ranks qr + d and
 * qr + d + 1 (d = x - 7) for a query of file f on rank qr. A reversed row
 * read at c(q) + 15 r is 112 - f + 15 (r - qr), so for d = r - qr the two
 * runs of 8 start at 112 - f + 15 d and 15 further. A vector the kernel
 * would join from two 8-word loads for every query pair and key half is
 * one aligned load. 8 times the reversed table (14 x 8 x 16 words against
 * 225 per row), so built only for shallow heads, depth 16 (the built-in
 * net's; 4 int8 quads): at depth 32 (CF-6M) a bench_attention run measured
 * float32 and int8 no faster with them. */
enum { CF_CPU_JOINED = 14, CF_CPU_JOINED_MAX_DEPTH = 16 };

/* The smallest batch whose calls read the joined form. Each call reads a
 * head's joined tables once for all its positions; below this the reads
 * cost more than the joins they save (at batch 1 the float32 op of the
 * built-in net's shape took longer with a head's joins made per call). */
enum { CF_CPU_JOINED_MIN_BATCH = 4 };

/* Words of one (head, file) block of the joined form: [rows][14][16]
 * (rows: the table's depth rows, dh floats or dq int8 quads). */
static inline size_t cf_cpu_joined_block(int rows) { return (size_t)rows * CF_CPU_JOINED * 16; }

/* Head h's reversed table rev ([rows][225] 4-byte words: floats, or int8
 * quads) joined into out ([8][rows][14][16], 8 file blocks). The words are
 * copied, not converted. */
static inline void cf_cpu_join_head(int rows, const void *rev, void *out) {
  const unsigned char *src = rev;
  unsigned char *dst = out;
  for (int f = 0; f < 8; f++)
    for (int i = 0; i < rows; i++)
      for (int x = 0; x < CF_CPU_JOINED; x++) {
        const size_t run = (size_t)i * CF_CPU_RPE_TABLE + 112 - (size_t)f + 15 * (size_t)x - 105;
        unsigned char *v = dst + 4 * ((size_t)f * cf_cpu_joined_block(rows) +
                                      ((size_t)i * CF_CPU_JOINED + (size_t)x) * 16);
        memcpy(v, src + 4 * run, 32);
        memcpy(v + 32, src + 4 * (run + 15), 32);
      }
}

/* Head h's part of a per-head table set ([H][dh * 225] floats), or NULL. */
static inline const float *cf_cpu_head_table(const float *tables, int h, int dh) {
  return tables ? tables + (size_t)h * dh * CF_CPU_RPE_TABLE : NULL;
}

/* Prefetches part `part` of `parts` of head h's table (NULL: none) into L2.
 * __builtin_prefetch with locality 2 is prefetcht1 on x86 and a plain
 * prefetch elsewhere. */
static inline void cf_cpu_prefetch_part(const float *tables, int h, int dh, int part, int parts) {
  const float *p = cf_cpu_head_table(tables, h, dh);
  if (!p) return;
  const size_t lines = ((size_t)dh * CF_CPU_RPE_TABLE * sizeof(float) + 63) / 64;
  const size_t lo = lines * (size_t)part / (size_t)parts;
  const size_t hi = lines * (size_t)(part + 1) / (size_t)parts;
  for (size_t l = lo; l < hi; l++) __builtin_prefetch((const char *)p + 64 * l, 0, 2);
}

/* From this size of the batch's q/k/v buffer (float32) up, each task
 * prefetches the next one's rows (cf_cpu_prefetch_token): about an L2's
 * worth. Below it the rows are still in L2 after the projection wrote
 * them, and prefetching only churns L1. */
enum { CF_CPU_PREFETCH_ROWS_FROM = 1 << 20 };

/* Where a kernel prefetches the rows of the thread's next task: its first
 * token's q (k and v follow at dm, 2 dm) and output row; NULL: nothing. */
typedef struct cf_cpu_row_prefetch {
  const char *qkv;
  char *out;
  size_t ld, dm, bytes; /* byte strides of q/k/v and output rows, bytes per row */
} cf_cpu_row_prefetch;

static inline cf_cpu_row_prefetch cf_cpu_row_prefetch_for(const float *qkv, float *out,
                                                          int heads, int dh, int b, int h) {
  cf_cpu_row_prefetch p = {0};
  if (b < 0) return p;
  const size_t dm = (size_t)heads * dh;
  p.qkv = (const char *)(qkv + (size_t)b * 64 * 3 * dm + (size_t)h * dh);
  p.out = (char *)(out + (size_t)b * 64 * dm + (size_t)h * dh);
  p.ld = 3 * dm * sizeof(float);
  p.dm = dm * sizeof(float);
  p.bytes = (size_t)dh * sizeof(float);
  return p;
}

/* Prefetches token t's q, k and v rows (read) and output row (to be
 * written) into L2. A kernel calls it for t = 0..63 spread over its score
 * pass, so the next task's rows arrive while this one computes. Needed at
 * large batches: the q/k/v buffer (50 MB at batch 256 for CF-6M) is in
 * DRAM, and a task reads 64 rows of dh floats at a stride of 3 dm floats,
 * a pattern the hardware prefetchers do not follow; unprefetched, the key
 * transpose and the query loads of the score pass waited on those misses
 * (perf: 40% of the attention at batch 256). Always inlined: as a function
 * of its own, GCC judged it free of side effects (prefetches do not count)
 * and deleted the calls. */
static inline __attribute__((always_inline)) void cf_cpu_prefetch_token(
    const cf_cpu_row_prefetch *p, int t) {
  const char *row = p->qkv + (size_t)t * p->ld;
  const char *o = p->out + (size_t)t * p->dm;
  for (size_t i = 0; i < p->bytes; i += 64) {
    __builtin_prefetch(row + i, 0, 2);
    __builtin_prefetch(row + p->dm + i, 0, 2);
    __builtin_prefetch(row + 2 * p->dm + i, 0, 2);
    __builtin_prefetch(o + i, 1, 2);
  }
}

/* A kernel set's scores_pair (cf_cpu_attention_math), defined as
 * `static void scores_pair(...)` with the slot's signature: it calls the
 * set's always-inlined pair kernel with the terms present as constants
 * use_q, use_k, so each combination compiles to its own branch-free loop.
 * QT is the query's type and KT the keys' and tables' (float, float for
 * float32; uint16_t, uint32_t for bf16 pairs). */
#define CF_CPU_DEFINE_SCORES_PAIR(kernel, QT, KT)                                           \
  static void scores_pair(int dh, const QT *Q0, const QT *Q1, const KT *kt, const KT *eq,   \
                          const KT *ek, int half, float *s0, float *s1) {                   \
    if (eq && ek) kernel(dh, Q0, Q1, kt, eq, ek, 1, 1, half, s0, s1);                        \
    else if (eq) kernel(dh, Q0, Q1, kt, eq, NULL, 1, 0, half, s0, s1);                       \
    else if (ek) kernel(dh, Q0, Q1, kt, NULL, ek, 0, 1, half, s0, s1);                       \
    else kernel(dh, Q0, Q1, kt, NULL, NULL, 0, 0, half, s0, s1);                             \
  }

/* The body of a kernel set's weighted_values_pair (bf16, int8): its
 * always-inlined run kernel over the runs of 32 depths, called with the
 * run's vector count (2, or 1 for a last run of 16 or fewer) and the value
 * table's presence as constants, so each compiles to its own loop with
 * the accumulators in registers. */
#define CF_CPU_VALUES_RUNS(run, dh, table, ...)             \
  for (int i0_ = 0; i0_ < (dh); i0_ += 32) {                \
    const int two_ = (dh) - i0_ > 16;                       \
    if ((table) && two_) run(dh, i0_, 2, 1, __VA_ARGS__);   \
    else if (table) run(dh, i0_, 1, 1, __VA_ARGS__);        \
    else if (two_) run(dh, i0_, 2, 0, __VA_ARGS__);         \
    else run(dh, i0_, 1, 0, __VA_ARGS__);                   \
  }

#endif /* CF_CPU_ATTENTION_LAYOUT_H */
