/* fuzz_weights: libFuzzer target for the weight loader.
 *
 * Every input goes through cf_weights_load_memory (with the automatic
 * payload limit) and, written to a file, through cf_weights_load_file: the
 * file reader (regular-file check, size hint read from the file's end,
 * chunked reads, gzip members) must come to the same status and network.
 * When it loads, more properties must hold: a gzip input with 4 bytes
 * appended (a fake size hint, not a gzip magic) loads the same network; the
 * writer accepts what the loader accepted; reloading the FLOAT32 re-save
 * gives the same architecture and values. A failed load must return no
 * weights and a message.
 *
 * Build and run (clang, libclang-rt-14-dev):
 *   CC=clang meson setup build-weights-fuzz -Dfuzz=true
 *   ninja -C build-weights-fuzz tests/weights/fuzz_weights
 *   meson test -C build-weights-fuzz --suite fuzz     # 60 s, run_fuzz.sh
 * Crashes land in build-weights-fuzz/tests/weights/fuzz-work/artifacts/;
 * fix them and copy the input to tests/weights/fuzz/regressions/, which
 * test_weights_fuzz_regress replays in the normal suite. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

static char tmp_path[64];
static int mem_fd = -1;

static void remove_tmp(void) {
  if (tmp_path[0] && mem_fd < 0) unlink(tmp_path);
}

/* The input as a file in memory (a memfd, opened by its /proc/self/fd
 * path: a regular file, no disk and no open/close per input), rewritten
 * for each input. */
static const char *as_memfd(const uint8_t *data, size_t size) {
#ifdef __linux__
  if (mem_fd < 0) {
    mem_fd = memfd_create("fuzz_weights", 0);
    if (mem_fd < 0) return NULL;
    snprintf(tmp_path, sizeof tmp_path, "/proc/self/fd/%d", mem_fd);
  }
  if (ftruncate(mem_fd, 0) != 0) return NULL;
  for (size_t done = 0; done < size;) {
    ssize_t n = pwrite(mem_fd, data + done, size - done, (off_t)done);
    if (n <= 0) return NULL;
    done += (size_t)n;
  }
  return tmp_path;
#else
  (void)data;
  (void)size;
  return NULL;
#endif
}

/* The input as a file, rewritten for each input: a memfd where there is
 * one, else a temporary file; NULL if neither could be made (the file
 * path is then skipped). */
static const char *as_file(const uint8_t *data, size_t size) {
  const char *mem = tmp_path[0] && mem_fd < 0 ? NULL : as_memfd(data, size);
  if (mem) return mem;
  char *path = tmp_path;
  if (!path[0]) {
    snprintf(path, sizeof tmp_path, "/tmp/fuzz_weights_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
      path[0] = 0;
      return NULL;
    }
    close(fd);
    atexit(remove_tmp);
  }
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok ? path : NULL;
}

/* The same load through the file reader: same status, same network. */
static void check_file_path(const uint8_t *data, size_t size, const cf_weights_load_options *opts,
                            cf_status want, const cf_weights *w) {
  const char *path = as_file(data, size);
  if (!path) return;
  cf_weights *f = NULL;
  cf_error err = {CF_OK, ""};
  cf_status st = cf_weights_load_file(path, opts, &f, &err);
  if (st != want || (st == CF_OK) != (f != NULL)) __builtin_trap();
  if (f && (memcmp(&f->arch, &w->arch, sizeof f->arch) != 0 || f->param_count != w->param_count))
    __builtin_trap();
  cf_weights_free(f);
}

/* A loaded gzip input with 4 bytes appended (not a gzip magic: ignored as
 * trailing bytes, but read as the trailer's size hint) loads the same. */
static void check_trailing_bytes(const uint8_t *data, size_t size,
                                 const cf_weights_load_options *opts, const cf_weights *w) {
  if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return;
  uint8_t *more = malloc(size + 4);
  if (!more) return;
  memcpy(more, data, size);
  memcpy(more + size, "\x00\xff\xff\xff", 4);
  cf_weights *t = NULL;
  cf_error err = {CF_OK, ""};
  if (cf_weights_load_memory(more, size + 4, "fuzz-trailing", opts, &t, &err) != CF_OK)
    __builtin_trap();
  if (memcmp(&t->arch, &w->arch, sizeof t->arch) != 0 || t->param_count != w->param_count)
    __builtin_trap();
  cf_weights_free(t);
  free(more);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cf_weights_load_options opts = {.max_decompressed_bytes = 0}; /* automatic */
  cf_weights *w = (cf_weights *)&opts; /* must be overwritten */
  cf_error err = {CF_OK, ""};
  cf_status st = cf_weights_load_memory(data, size, "fuzz", &opts, &w, &err);
  if (st != CF_OK) {
    if (w != NULL || err.status != st || err.msg[0] == '\0' || st >= CF_STATUS_COUNT)
      __builtin_trap();
    check_file_path(data, size, &opts, st, NULL);
    return 0;
  }
  if (!w) __builtin_trap();
  check_file_path(data, size, &opts, st, w);
  check_trailing_bytes(data, size, &opts, w);
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
