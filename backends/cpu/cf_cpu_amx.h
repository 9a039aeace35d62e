/* cf_cpu_amx.h: the attention op on Intel AMX tiles (attention=amx on the
 * oneDNN backend at precision=bf16), beside the CPU cores' dot products.
 *
 * The cores compute one (position, head) at a time; its relative terms
 * (q.Eq[p(q, k)], k.Ek[p(q, k)], A[q][k] Ev[p(q, k)]) have no matrix
 * shape within one position, because each (q, k) pair reads its own table
 * row. Across positions they do: for a fixed query q, the 64 keys' Eq rows
 * are one matrix that every position's q row multiplies. So a task here is
 * one head and a group of up to 16 positions (a tile's rows), and the
 * head's tables are kept joined, E[q][k] = E[p(q, k)], in the tiles' pair
 * layout, built at upload: a block of 16 keys (two ranks) of one query
 * depends only on the query's file and its rank less the keys' (likewise
 * for the other sides), so a side is 112 (q, k) or 96 (v) blocks of
 * 16 x 32 pairs a head instead of 256. Per task, every product a tile
 * multiply (bf16 pairs, float32 sums):
 *   S  = Q K^T                  per position (16 queries x 16 keys a tile)
 *   S += Q_q Eq[q]^T            per query, rows = the group's positions
 *   R  = K_k Ek[.][k]^T         per key, rows = positions; added to S^T
 *   A  = softmax(S scale + bias), normalised, rounded to bf16
 *   O  = A V                    per position
 *   O += A_q Ev[q]              per query, rows = positions
 * A group of fewer than 16 positions pads its rows (their results are
 * dropped). Depths up to CF_AMX_MAX_DEPTH, padded to 32 with zeros.
 *
 * The joined tables are about 30 times the 225-row ones and are read once
 * a group, and a tile with one real row does a sixteenth of its work, so
 * small batches stay on the cores (cf_amx_min_batch). */
#ifndef CF_CPU_AMX_H
#define CF_CPU_AMX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cf_backend.h"

enum {
  CF_AMX_GROUP = 16,     /* positions per task: a tile's rows */
  CF_AMX_MAX_DEPTH = 64, /* deepest head the tiles take (CF-6M's is 32) */
};

/* The smallest batch whose calls take the tiles (smaller ones run the
 * cores): 4 for heads deeper than 16, 8 for shallower ones, whose padding
 * to 32 wastes half of each product. Measured on an Intel Xeon with AMX
 * (docs/BACKENDS.md): CF-6M (depth 32) 0.67x the cores at batch 1, 1.0x
 * at 2, 1.2x at 4; the built-in net (depth 16) 1.0x at 4, 1.25x at 8. */
static inline int cf_amx_min_batch(int dh) { return dh > 16 ? 4 : 8; }

/* Whether the tiles take a call of this batch and depth (given its tables
 * and scratch). */
static inline bool cf_amx_takes(int batch, int dh) {
  return dh <= CF_AMX_MAX_DEPTH && batch >= cf_amx_min_batch(dh);
}

/* The depth padded to the tiles' 32 bf16 a row. */
static inline int cf_amx_depth_pad(int dh) { return (dh + 31) / 32 * 32; }

/* Blocks of a side's joined table: (rank difference, file) pairs. */
enum { CF_AMX_QK_BLOCKS = 14 * 8, CF_AMX_V_BLOCKS = 12 * 8 };

/* bf16 values of one head's joined table of a side (role): blocks of 16 x
 * 16 pairs, one per 32 depths (q, k) or per 16 depths and 32 keys (v). */
static inline size_t cf_amx_table_elems(cf_weight_role role, int dh) {
  const size_t D = (size_t)cf_amx_depth_pad(dh);
  return role == CF_WEIGHT_RPE_V ? CF_AMX_V_BLOCKS * (D / 16) * 512
                                 : CF_AMX_QK_BLOCKS * (D / 32) * 512;
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

/* Head h's joined table of an RPE weight (role, data [225][dh*H] as
 * uploaded) into out (cf_amx_table_elems(dh) bf16), rounded as the
 * portable set's to_bf16_row; false when out of memory. The layouts are
 * amx/cf_amx_attention.c's. */
bool cf_amx_table_build(cf_weight_role role, int heads, int dh, int h, const float *data,
                        uint16_t *out);

/* Scratch bytes one task needs (64-byte aligned). */
size_t cf_amx_scratch_bytes(int dh);

/* One task: head h of positions b0 .. b0 + n - 1 (n <= CF_AMX_GROUP) of
 * the call a, with this head's joined tables (NULL: that term is absent)
 * and `scratch` of cf_amx_scratch_bytes. Writes the head's output columns
 * of those positions. Configures the tiles itself and releases them. */
void cf_amx_attention_group(const cf_attention_args *a, int h, int b0, int n, const uint16_t *eq,
                            const uint16_t *ek, const uint16_t *ev, void *scratch);

#endif /* CF_CPU_AMX_H */
