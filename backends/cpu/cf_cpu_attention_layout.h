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

enum { CF_CPU_RPE_TABLE = 225 }; /* displacements: 15 x 15 */

static inline int cf_cpu_key_off(int k) { return 15 * (k >> 3) + (k & 7); }
static inline int cf_cpu_query_base(int q) { return 15 * ((q >> 3) + 7) + (q & 7) + 7; }

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

#endif /* CF_CPU_ATTENTION_LAYOUT_H */
