/* cf_nn_cache.c: the direct-mapped NN cache (cf_nn_cache.h). */
#include "engine/search/cf_nn_cache.h"

#include <stdlib.h>
#include <string.h>

struct cf_nn_cache {
  cf_nn_entry **slot;
  long capacity, count;
  size_t bytes; /* entries, not counting the slot array */
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

void cf_nn_cache_clear(cf_nn_cache *c) {
  if (!c) return;
  for (long i = 0; i < c->capacity; i++) {
    free(c->slot[i]);
    c->slot[i] = NULL;
  }
  c->count = 0;
  c->bytes = 0;
}

void cf_nn_cache_free(cf_nn_cache *c) {
  if (!c) return;
  cf_nn_cache_clear(c);
  free(c->slot);
  free(c);
}

static size_t entry_size(int n_moves) {
  return sizeof(cf_nn_entry) + (size_t)n_moves * sizeof(float);
}

const cf_nn_entry *cf_nn_cache_get(const cf_nn_cache *c, uint64_t key) {
  if (!c) return NULL;
  const cf_nn_entry *e = c->slot[key % (uint64_t)c->capacity];
  return e && e->key == key ? e : NULL;
}

void cf_nn_cache_put(cf_nn_cache *c, uint64_t key, float wl, float d, float m, int n_moves,
                     const float *logits) {
  if (!c || n_moves < 0) return;
  cf_nn_entry **s = &c->slot[key % (uint64_t)c->capacity];
  cf_nn_entry *e = *s;
  if (e && e->n_moves != n_moves) {
    c->bytes -= entry_size(e->n_moves);
    free(e);
    e = *s = NULL;
    c->count--;
  }
  if (!e) {
    e = malloc(entry_size(n_moves));
    if (!e) return;
    *s = e;
    c->count++;
    c->bytes += entry_size(n_moves);
  }
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
