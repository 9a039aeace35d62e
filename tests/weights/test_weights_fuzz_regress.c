/* test_weights_fuzz_regress.c: replays the fuzz seed corpus and every input
 * the fuzzer ever crashed on (tests/weights/fuzz/regressions/) through the
 * loader, from memory and from the file, with the fuzz target's invariants,
 * in the normal test suite (and so under ASan/UBSan in a sanitizer build). */
#include <dirent.h>

#include "tests/cf_test.h"
#include "tests/weights/weights_test_util.h"

#ifndef CF_WEIGHTS_FUZZ_DIR
#error "CF_WEIGHTS_FUZZ_DIR must name tests/weights/fuzz"
#endif

/* The fuzz target's file and trailing-bytes invariants: the file reader
 * comes to the same status and network as memory; a loaded gzip input with
 * 4 bytes appended (a fake size hint) loads the same network. */
static void check_file_and_trailing(cf_test *t, const char *path, const uint8_t *buf, size_t n,
                                    const cf_weights_load_options *opts, cf_status want,
                                    const cf_weights *w) {
  cf_weights *f = NULL;
  cf_error err = {CF_OK, ""};
  CHECK_INT_EQ(cf_weights_load_file(path, opts, &f, &err), want);
  CHECK((f != NULL) == (want == CF_OK));
  if (f && w) CHECK_INT_EQ(f->param_count, w->param_count);
  cf_weights_free(f);
  if (want != CF_OK || n < 2 || buf[0] != 0x1f || buf[1] != 0x8b) return;
  uint8_t *more = malloc(n + 4);
  if (!CHECK(more != NULL)) return;
  memcpy(more, buf, n);
  memcpy(more + n, "\x00\xff\xff\xff", 4);
  CHECK_INT_EQ(cf_weights_load_memory(more, n + 4, "trailing", opts, &f, &err), CF_OK);
  if (f && w) CHECK_INT_EQ(f->param_count, w->param_count);
  cf_weights_free(f);
  free(more);
}

/* Loads one input; returns its status. */
static cf_status replay(cf_test *t, const char *path) {
  size_t n;
  uint8_t *buf = cf_test_read_file(path, &n);
  if (!CHECK(buf != NULL)) return CF_ERR_IO;
  cf_weights_load_options opts = {.max_decompressed_bytes = 0}; /* automatic, as the fuzzer */
  cf_weights *w = NULL;
  cf_error err = {CF_OK, ""};
  cf_status st = cf_weights_load_memory(buf, n, path, &opts, &w, &err);
  check_file_and_trailing(t, path, buf, n, &opts, st, w);
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

/* The minimized corpus of a long fuzz run (docs/FUZZING.md): mostly broken
 * files, each refused with a message or loaded, none crashing. */
static void test_minimized_corpus(cf_test *t) {
  int files = 0;
  CHECK(replay_dir(t, CF_WEIGHTS_FUZZ_DIR "/minimized", &files) >= 0);
  CHECK(files > 0);
}

static void test_regressions(cf_test *t) {
  int files = 0;
  replay_dir(t, CF_WEIGHTS_FUZZ_DIR "/regressions", &files);
  CHECK(files >= 0);
}

CF_TEST_MAIN(test_seed_corpus, test_minimized_corpus, test_regressions)
