/* cf_nn_cache.c: the direct-mapped NN cache (cf_nn_cache.h). */
#include "engine/search/cf_nn_cache.h"

#include <stdlib.h>
#include <string.h>

/* Clearing starts a new generation instead of freeing every entry: an
 * entry of an older one reads as empty and its memory is reused by the
 * next put to its slot (a full default cache holds two million entries,
 * which ucinewgame would otherwise free one by one). */
struct cf_nn_cache {
  cf_nn_entry **slot;
  long capacity, count; /* count: entries of this generation */
  size_t bytes;         /* entries held, of any generation; not the slot array */
  uint32_t generation;
};

cf_nn_cache *cf_nn_cache_new(long capacity) {
  if (capacity <= 0) return NULL;
  cf_nn_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->slot = calloc((size_t)capacity, sizeof *c->slot);
  if (!c->slot) {
    free(c);
    return NULL;
  }
  c->capacity = capacity;
  return c;
}

static void free_entries(cf_nn_cache *c) {
  for (long i = 0; i < c->capacity; i++) {
    free(c->slot[i]);
    c->slot[i] = NULL;
  }
  c->bytes = 0;
}

void cf_nn_cache_clear(cf_nn_cache *c) {
  if (!c) return;
  c->count = 0;
  /* After 2^32 clears a stale entry could read as current: start over. */
  if (++c->generation == 0) free_entries(c);
}

void cf_nn_cache_free(cf_nn_cache *c) {
  if (!c) return;
  free_entries(c);
  free(c->slot);
  free(c);
}

static size_t entry_size(int n_moves) {
  return sizeof(cf_nn_entry) + (size_t)n_moves * sizeof(float);
}

const cf_nn_entry *cf_nn_cache_get(const cf_nn_cache *c, uint64_t key) {
  if (!c) return NULL;
  const cf_nn_entry *e = c->slot[key % (uint64_t)c->capacity];
  return e && e->generation == c->generation && e->key == key ? e : NULL;
}

void cf_nn_cache_put(cf_nn_cache *c, uint64_t key, float wl, float d, float m, int n_moves,
                     const float *logits) {
  if (!c || n_moves < 0) return;
  cf_nn_entry **s = &c->slot[key % (uint64_t)c->capacity];
  cf_nn_entry *e = *s;
  const bool live = e && e->generation == c->generation;
  if (e && e->n_moves != n_moves) {
    c->bytes -= entry_size(e->n_moves);
    free(e);
    e = *s = NULL;
  }
  if (!e) {
    e = malloc(entry_size(n_moves));
    if (!e) {
      if (live) c->count--; /* the slot's live entry is gone */
      return;
    }
    *s = e;
    c->bytes += entry_size(n_moves);
  }
  if (!live) c->count++;
  e->generation = c->generation;
  e->key = key;
  e->wl = wl;
  e->d = d;
  e->m = m;
  e->n_moves = n_moves;
  if (n_moves) memcpy(e->logits, logits, (size_t)n_moves * sizeof(float));
}

long cf_nn_cache_capacity(const cf_nn_cache *c) { return c ? c->capacity : 0; }
long cf_nn_cache_count(const cf_nn_cache *c) { return c ? c->count : 0; }
size_t cf_nn_cache_bytes(const cf_nn_cache *c) {
  return c ? c->bytes + (size_t)c->capacity * sizeof *c->slot : 0;
}

uint64_t cf_nn_hash(const void *data, size_t size, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = seed ^ 0xcbf29ce484222325ull;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < size; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  /* splitmix64 finaliser: spreads the bits for the modulo. */
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}
