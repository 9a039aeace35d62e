/* The NN cache: stores and finds by key, replaces by slot, and a clear
 * empties it while keeping the entries' memory for the next puts. */
#include "../cf_test.h"
#include "engine/search/cf_nn_cache.h"

static const float logits3[3] = {0.5f, -1.0f, 2.0f};
static const float logits5[5] = {1, 2, 3, 4, 5};

static void test_put_get_replace(cf_test *t) {
  cf_nn_cache *c = cf_nn_cache_new(8);
  if (!CHECK(c != NULL)) return;
  CHECK(cf_nn_cache_get(c, 3) == NULL);
  cf_nn_cache_put(c, 3, 0.25f, 0.5f, 40.0f, 3, logits3);
  const cf_nn_entry *e = cf_nn_cache_get(c, 3);
  if (CHECK(e != NULL)) {
    CHECK(e->wl == 0.25f && e->d == 0.5f && e->m == 40.0f);
    CHECK_INT_EQ(e->n_moves, 3);
    CHECK(e->logits[2] == 2.0f);
  }
  CHECK(cf_nn_cache_get(c, 11) == NULL); /* same slot (11 % 8), another key */
  CHECK_INT_EQ(cf_nn_cache_count(c), 1);
  /* A key of the same slot replaces it; a different move count too. */
  cf_nn_cache_put(c, 11, -0.5f, 0.0f, 1.0f, 5, logits5);
  CHECK(cf_nn_cache_get(c, 3) == NULL);
  e = cf_nn_cache_get(c, 11);
  CHECK(e != NULL && e->n_moves == 5 && e->logits[4] == 5.0f);
  CHECK_INT_EQ(cf_nn_cache_count(c), 1);
  cf_nn_cache_put(c, 4, 0, 0, 0, 0, NULL);
  CHECK_INT_EQ(cf_nn_cache_count(c), 2);
  cf_nn_cache_free(c);
}

static void test_clear_empties_and_reuses(cf_test *t) {
  cf_nn_cache *c = cf_nn_cache_new(8);
  if (!CHECK(c != NULL)) return;
  for (uint64_t k = 0; k < 8; k++) cf_nn_cache_put(c, k, (float)k, 0, 0, 3, logits3);
  CHECK_INT_EQ(cf_nn_cache_count(c), 8);
  const size_t held = cf_nn_cache_bytes(c);
  cf_nn_cache_clear(c);
  CHECK_INT_EQ(cf_nn_cache_count(c), 0);
  for (uint64_t k = 0; k < 8; k++) CHECK(cf_nn_cache_get(c, k) == NULL);
  /* The cleared entries' memory is held and reused, not allocated again. */
  CHECK_INT_EQ(cf_nn_cache_bytes(c), held);
  cf_nn_cache_put(c, 2, 7.0f, 0, 0, 3, logits3);
  CHECK_INT_EQ(cf_nn_cache_count(c), 1);
  CHECK_INT_EQ(cf_nn_cache_bytes(c), held);
  const cf_nn_entry *e = cf_nn_cache_get(c, 2);
  CHECK(e != NULL && e->wl == 7.0f);
  CHECK(cf_nn_cache_get(c, 3) == NULL);
  /* Putting the same key twice counts it once. */
  cf_nn_cache_put(c, 2, 8.0f, 0, 0, 3, logits3);
  CHECK_INT_EQ(cf_nn_cache_count(c), 1);
  /* A cleared slot taken by an entry of another size. */
  cf_nn_cache_put(c, 5, 1.0f, 0, 0, 5, logits5);
  CHECK_INT_EQ(cf_nn_cache_count(c), 2);
  CHECK_INT_EQ(cf_nn_cache_bytes(c), held + 2 * sizeof(float));
  /* Many clears in a row leave nothing readable. */
  for (int i = 0; i < 1000; i++) cf_nn_cache_clear(c);
  CHECK(cf_nn_cache_get(c, 2) == NULL && cf_nn_cache_get(c, 5) == NULL);
  CHECK_INT_EQ(cf_nn_cache_count(c), 0);
  cf_nn_cache_free(c);
}

static void test_bad_arguments(cf_test *t) {
  CHECK(cf_nn_cache_new(0) == NULL);
  CHECK(cf_nn_cache_get(NULL, 1) == NULL);
  cf_nn_cache_put(NULL, 1, 0, 0, 0, 0, NULL);
  cf_nn_cache_clear(NULL);
  cf_nn_cache_free(NULL);
  CHECK_INT_EQ(cf_nn_cache_count(NULL), 0);
}

CF_TEST_MAIN(test_put_get_replace, test_clear_empties_and_reuses, test_bad_arguments)
