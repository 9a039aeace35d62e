/* cf_cpu_amx.h: the attention op on Intel AMX tiles (attention=amx on the
 * oneDNN backend at precision=bf16 and int8), beside the CPU cores' dot
 * products. Two task shapes, every product a tile multiply (bf16 pairs,
 * float32 sums); depths up to CF_AMX_MAX_DEPTH, padded to 32 with zeros.
 *
 * One position (batches below CF_AMX_GROUP): a task is a (position, head).
 * The relative terms (q.Eq[p(q, k)], k.Ek[p(q, k)], A[q][k] Ev[p(q, k)])
 * read one table row per (q, k) pair, so they are computed against every
 * displacement and gathered: P = Q Eq^T and R = K Ek^T (64 x 225 each),
 * S = P and R gathered at p(q, k) plus Q K^T, the softmax, O = A V plus
 * A' Ev with A' the weights scattered to their displacements. With the
 * tables laid out by rank difference (16 rank rows of 16), a block of 16
 * queries or keys meets 9 of the 15 rank rows, so the relative products
 * cost 9 tiles a block, not 15 (amx/cf_amx_attention_position.c).
 *
 * A group (batches of CF_AMX_GROUP and up): for a fixed query q, the 64
 * keys' Eq rows are one matrix that every position's q row multiplies,
 * so a task is one head and a group of up to 16 positions (a tile's rows),
 * and the head's tables are also kept joined, E[q][k] = E[p(q, k)], in
 * the tiles' pair layout, built at upload: a block of 16 keys (two ranks)
 * of one query depends only on the query's file and its rank less the
 * keys' (likewise for the other sides), so a side is 112 (q, k) or 96 (v)
 * blocks of 16 x 32 pairs a head instead of 256. Per task:
 *   S  = Q K^T                  per position (16 queries x 16 keys a tile)
 *   S += Q_q Eq[q]^T            per query, rows = the group's positions
 *   R  = K_k Ek[.][k]^T         per key, rows = positions; added to S^T
 *   A  = softmax(S scale + bias), normalised, rounded to bf16
 *   O  = A V                    per position
 *   O += A_q Ev[q]              per query, rows = positions
 * A group of fewer than 16 positions pads its rows (their results are
 * dropped). It does 2.7 times fewer multiplies than one position's
 * products, but a tile with one real row does a sixteenth of its work:
 * on an Intel Xeon with AMX (docs/BACKENDS.md) one position a task made
 * CF-6M 1.4x the groups' evaluations/s at batch 4, 1.15x at 8 and the
 * same from 16, the built-in net (depth 16) 1.1x at 8 and 0.96x at 16
 * and 64. The two shapes compute S and the weights in the same order (the
 * same bits); the value term pairs its products differently, so a
 * position's outputs below batch 16 are not those at 16 and up. */
#ifndef CF_CPU_AMX_H
#define CF_CPU_AMX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cf_backend.h"

enum {
  CF_AMX_GROUP = 16,     /* positions per group task (a tile's rows); the
                          * smallest batch that runs groups */
  CF_AMX_MAX_DEPTH = 64, /* deepest head the tiles take (CF-6M's is 32) */
};

/* Whether the tiles take calls of heads this deep (given their tables and
 * scratch): at every batch. */
static inline bool cf_amx_takes(int dh) { return dh <= CF_AMX_MAX_DEPTH; }

/* The depth padded to the tiles' 32 bf16 a row. */
static inline int cf_amx_depth_pad(int dh) { return (dh + 31) / 32 * 32; }

/* Blocks of a side's joined table: (rank difference, file) pairs. */
enum { CF_AMX_QK_BLOCKS = 14 * 8, CF_AMX_V_BLOCKS = 12 * 8 };

/* bf16 values of one head's joined table of a side (role): blocks of 16 x
 * 16 pairs, one per 32 depths (q, k) or per 16 depths and 32 keys (v). */
static inline size_t cf_amx_joined_elems(cf_weight_role role, int dh) {
  const size_t D = (size_t)cf_amx_depth_pad(dh);
  return role == CF_WEIGHT_RPE_V ? CF_AMX_V_BLOCKS * (D / 16) * 512
                                 : CF_AMX_QK_BLOCKS * (D / 32) * 512;
}

/* bf16 values of one head's displacement table of a side (the one-position
 * task's, amx/cf_amx_attention_position.c): 16 rank rows of 16 x 16 pairs
 * per 32 depths (q, k), 8 pairs of rank rows per 16 depths (v). */
static inline size_t cf_amx_position_elems(cf_weight_role role, int dh) {
  const size_t D = (size_t)cf_amx_depth_pad(dh);
  return role == CF_WEIGHT_RPE_V ? 8 * (D / 16) * 512 : 16 * (D / 32) * 512;
}

/* One head's tables of a side: the joined table, then the displacement
 * table (at cf_amx_joined_elems). */
static inline size_t cf_amx_table_elems(cf_weight_role role, int dh) {
  return cf_amx_joined_elems(role, dh) + cf_amx_position_elems(role, dh);
}

/* The block of query q and key block kb (16 keys, ranks 2 kb, 2 kb + 1) in
 * the q side; of key k and query block qb in the k side; of query q and
 * key chunk kc (32 keys, ranks 4 kc .. 4 kc + 3) in the v side. */
static inline int cf_amx_q_block(int q, int kb) { return ((q >> 3) - 2 * kb + 6) * 8 + (q & 7); }
static inline int cf_amx_k_block(int k, int qb) { return (2 * qb - (k >> 3) + 7) * 8 + (k & 7); }
static inline int cf_amx_v_block(int q, int kc) { return ((q >> 3) - 4 * kc + 4) * 8 + (q & 7); }

/* True where this process may run AMX bf16 tiles: CPUID amx_tile and
 * amx_bf16 with avx512_bf16, the OS saving the tile state (XCR0), and
 * Linux granting the tile data (arch_prctl ARCH_REQ_XCOMP_PERM, asked
 * once). Never true off x86-64 Linux or in a build without the AMX code. */
bool cf_amx_usable(void);

/* Head h's tables of an RPE weight (role, data [225][dh*H] as uploaded)
 * into out (cf_amx_table_elems(dh) bf16), rounded as the portable set's
 * to_bf16_row; false when out of memory. The layouts are
 * amx/cf_amx_attention.c's and amx/cf_amx_attention_position.c's. */
bool cf_amx_table_build(cf_weight_role role, int heads, int dh, int h, const float *data,
                        uint16_t *out);

/* Scratch bytes one group task needs (64-byte aligned); one position
 * task. */
size_t cf_amx_scratch_bytes(int dh);
size_t cf_amx_position_scratch_bytes(int dh);

/* One task: head h of positions b0 .. b0 + n - 1 (n <= CF_AMX_GROUP) of
 * the call a, with this head's joined tables (NULL: that term is absent)
 * and `scratch` of cf_amx_scratch_bytes. Writes the head's output columns
 * of those positions. Configures the tiles itself and releases them. */
void cf_amx_attention_group(const cf_attention_args *a, int h, int b0, int n, const uint16_t *eq,
                            const uint16_t *ek, const uint16_t *ev, void *scratch);

/* One task of one position: head h of position pb of the call a, with this
 * head's displacement tables (NULL: that term is absent) and `scratch` of
 * cf_amx_position_scratch_bytes. Writes the head's output columns of that
 * position (position pb + 1's rows prefetched when `more`); configures the
 * tiles itself and releases them. */
void cf_amx_attention_position(const cf_attention_args *a, int h, int pb, bool more,
                               const uint16_t *eq, const uint16_t *ek, const uint16_t *ev,
                               void *scratch);

#endif /* CF_CPU_AMX_H */

