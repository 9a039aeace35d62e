/* fuzz_weights: libFuzzer target for the weight loader.
 *
 * Every input goes through cf_weights_load_memory. When it loads, two
 * properties must hold as well: the writer accepts what the loader accepted,
 * and reloading the FLOAT32 re-save gives the same architecture and values.
 * A failed load must return no weights and a message.
 *
 * Build and run (clang, libclang-rt-14-dev):
 *   CC=clang meson setup build-weights-fuzz -Dfuzz=true
 *   ninja -C build-weights-fuzz tests/weights/fuzz_weights
 *   meson test -C build-weights-fuzz --suite fuzz     # 60 s, run_fuzz.sh
 * Crashes land in build-weights-fuzz/tests/weights/fuzz-work/artifacts/;
 * fix them and copy the input to tests/weights/fuzz/regressions/, which
 * test_weights_fuzz_regress replays in the normal suite. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weights/cf_weights.h"

typedef struct cmp_ctx {
  cf_tensor *other[4096];
  int n, i;
  bool ok;
} cmp_ctx;

static bool collect(void *user, const char *path, cf_tensor *t) {
  (void)path;
  cmp_ctx *c = user;
  if (c->n < 4096) c->other[c->n++] = t;
  return true;
}

static bool same_values(void *user, const char *path, cf_tensor *t) {
  (void)path;
  cmp_ctx *c = user;
  if (c->i >= c->n) {
    c->ok = false;
    return false;
  }
  const cf_tensor *o = c->other[c->i++];
  if (o->n != t->n || (t->n && memcmp(o->data, t->data, t->n * sizeof(float)) != 0)) c->ok = false;
  return c->ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cf_weights_load_options opts = {.max_decompressed_bytes = 64u << 20};
  cf_weights *w = (cf_weights *)&opts; /* must be overwritten */
  cf_error err = {CF_OK, ""};
  cf_status st = cf_weights_load_memory(data, size, "fuzz", &opts, &w, &err);
  if (st != CF_OK) {
    if (w != NULL || err.status != st || err.msg[0] == '\0' || st >= CF_STATUS_COUNT)
      __builtin_trap();
    return 0;
  }
  if (!w) __builtin_trap();
  void *buf = NULL;
  size_t n = 0;
  if (cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &buf, &n, &err) != CF_OK) __builtin_trap();
  cf_weights *r = NULL;
  if (cf_weights_load_memory(buf, n, "fuzz-resave", &opts, &r, &err) != CF_OK) __builtin_trap();
  cf_net_arch a = w->arch, b = r->arch;
  a.network_format = b.network_format = 7; /* the writer always writes 7 */
  if (memcmp(&a, &b, sizeof a) != 0 || r->param_count != w->param_count) __builtin_trap();
  static cmp_ctx c;
  c.n = c.i = 0;
  c.ok = true;
  cf_weights_visit(r, collect, &c);
  cf_weights_visit(w, same_values, &c);
  if (!c.ok) __builtin_trap();
  free(buf);
  cf_weights_free(r);
  cf_weights_free(w);
  return 0;
}
