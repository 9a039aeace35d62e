/* test_weights_fuzz_regress.c: replays the fuzz seed corpus and every input
 * the fuzzer ever crashed on (tests/weights/fuzz/regressions/) through the
 * loader, with the fuzz target's invariants, in the normal test suite (and
 * so under ASan/UBSan in a sanitizer build). */
#include <dirent.h>

#include "tests/cf_test.h"
#include "tests/weights/weights_test_util.h"

#ifndef CF_WEIGHTS_FUZZ_DIR
#error "CF_WEIGHTS_FUZZ_DIR must name tests/weights/fuzz"
#endif

/* Loads one input; returns its status. */
static cf_status replay(cf_test *t, const char *path) {
  size_t n;
  uint8_t *buf = cf_test_read_file(path, &n);
  if (!CHECK(buf != NULL)) return CF_ERR_IO;
  cf_weights_load_options opts = {.max_decompressed_bytes = 64u << 20};
  cf_weights *w = NULL;
  cf_error err = {CF_OK, ""};
  cf_status st = cf_weights_load_memory(buf, n, path, &opts, &w, &err);
  free(buf);
  if (st != CF_OK) {
    CHECK(w == NULL);
    CHECK(err.status == st && err.msg[0] != '\0');
    return st;
  }
  void *out = NULL;
  size_t out_n = 0;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &out, &out_n, &err) == CF_OK);
  cf_weights *r = NULL;
  if (CHECK(cf_weights_load_memory(out, out_n, "resave", &opts, &r, &err) == CF_OK)) {
    char where[256] = "";
    CHECK(cf_test_compare_nets(w, r, 0, 0, where, sizeof where) == 0);
    CHECK_INT_EQ(r->param_count, w->param_count);
  }
  free(out);
  cf_weights_free(r);
  cf_weights_free(w);
  return st;
}

/* Replays every file of dir; returns how many loaded, or -1. */
static int replay_dir(cf_test *t, const char *dir, int *files) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int ok = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    (*files)++;
    ok += replay(t, path) == CF_OK;
  }
  closedir(d);
  return ok;
}

static void test_seed_corpus(cf_test *t) {
  int files = 0;
  int ok = replay_dir(t, CF_WEIGHTS_FUZZ_DIR "/corpus", &files);
  CHECK(files >= 5);
  CHECK_INT_EQ(ok, files - 1); /* all but the obsolete text-format seed */
}

static void test_regressions(cf_test *t) {
  int files = 0;
  replay_dir(t, CF_WEIGHTS_FUZZ_DIR "/regressions", &files);
  CHECK(files >= 0);
}

CF_TEST_MAIN(test_seed_corpus, test_regressions)
