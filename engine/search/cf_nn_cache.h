/* cf_nn_cache.h: the network's answers for positions already evaluated
 * (Lc0's NNCache): W/D/L, moves left and the raw policy logits of the legal
 * moves, by a 64-bit key of the network input. Direct-mapped: a new entry
 * replaces whatever held its slot. Kept across moves; emptied by
 * ucinewgame. */
#ifndef CF_NN_CACHE_H
#define CF_NN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cf_nn_cache cf_nn_cache;

typedef struct cf_nn_entry {
  uint64_t key;
  uint32_t generation; /* the cache's, when stored: older ones read as empty */
  float wl, d, m;
  int n_moves;
  float logits[]; /* n_moves, in legal-move order */
} cf_nn_entry;

/* capacity entries (> 0); NULL when out of memory. */
cf_nn_cache *cf_nn_cache_new(long capacity);
void cf_nn_cache_free(cf_nn_cache *c);
/* Empties the cache; the entries' memory is kept for the puts that follow
 * (cf_nn_cache_free releases it). */
void cf_nn_cache_clear(cf_nn_cache *c);

/* The entry for key, or NULL. Valid until the next put or clear. */
const cf_nn_entry *cf_nn_cache_get(const cf_nn_cache *c, uint64_t key);

/* Stores a copy (silently skipped when out of memory). */
void cf_nn_cache_put(cf_nn_cache *c, uint64_t key, float wl, float d, float m, int n_moves,
                     const float *logits);

long cf_nn_cache_capacity(const cf_nn_cache *c);
long cf_nn_cache_count(const cf_nn_cache *c); /* entries stored since the last clear */
size_t cf_nn_cache_bytes(const cf_nn_cache *c); /* memory held, cleared entries included */

/* A 64-bit hash of bytes, continuing from seed (FNV-1a over 64-bit words
 * with a final mix): the cache key of a network input. */
uint64_t cf_nn_hash(const void *data, size_t size, uint64_t seed);

#endif /* CF_NN_CACHE_H */
