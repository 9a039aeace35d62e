/* test_weights_files.c: what the loader does with hostile files: paths that
 * are not regular files (FIFO, devices, a pipe behind /dev/fd, a socket, a
 * directory) are refused at once without reading; a gzip bomb stops at the
 * limit, fast and with bounded memory; bytes appended to a valid file (a
 * lying gzip size hint) neither break the load nor buy a large allocation;
 * the caller's limit decides and is named in the message.
 *
 * A test that could hang runs under alarm(): the signal kills the process,
 * so a hang fails the test instead of blocking the suite. Memory bounds are
 * checked in a forked child under RLIMIT_AS (not under AddressSanitizer,
 * whose shadow memory needs the address space) and by its peak RSS. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/cf_clock.h"
#include "tests/cf_test.h"
#include "tests/weights/weights_test_util.h"


/* AddressSanitizer keeps freed blocks resident for a while (its
 * quarantine), so peak RSS gets twice the room there. */
#ifdef CF_TEST_ASAN
#define RSS_SLACK 2
#else
#define RSS_SLACK 1
#endif

/* Seconds a refusal may take: it is one stat(), so this only separates
 * "answered" from "blocked". */
#define REFUSE_SECONDS 2.0
/* A hang is turned into a failure after this long. */
#define HANG_ALARM 30

static const cf_test_shape small_shape = {
  .layers = 2, .d = 16, .heads = 2, .dff = 24, .cv = 2, .cm = 2, .seed = 11,
};

static char tmpdir[64];

static const char *tmp_path(const char *name) {
  static char path[256];
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cf_weights_files_XXXXXX");
    if (!mkdtemp(tmpdir)) return NULL;
  }
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

/* Loads path and expects a quick CF_ERR_IO whose message names the kind. */
static void expect_refused(cf_test *t, const char *path, const char *kind) {
  cf_error err = {0};
  cf_weights *w = (cf_weights *)1;
  double t0 = cf_clock_now();
  alarm(HANG_ALARM);
  cf_status st = cf_weights_load_file(path, NULL, &w, &err);
  alarm(0);
  double dt = cf_clock_now() - t0;
  CHECK_INT_EQ(st, CF_ERR_IO);
  CHECK(w == NULL);
  char want[128];
  snprintf(want, sizeof want, "is %s, not a regular file", kind);
  CHECK_STR_CONTAINS(err.msg, want);
  CHECK_STR_CONTAINS(err.msg, path);
  if (!CHECK(dt < REFUSE_SECONDS)) fprintf(stderr, "  %s took %.2f s\n", path, dt);
}

static void test_fifo_refused(cf_test *t) {
  const char *path = tmp_path("net.pb.gz");
  if (!CHECK(path && mkfifo(path, 0600) == 0)) return;
  /* No writer ever opens it: a blocking open() would wait forever. */
  expect_refused(t, path, "a FIFO");
  unlink(path);
}

static void test_devices_refused(cf_test *t) {
  expect_refused(t, "/dev/null", "a character device");
  expect_refused(t, "/dev/zero", "a character device"); /* would never end */
}

/* /dev/stdin is a link to the engine's own input: a pipe (the GUI's) must be
 * refused without a byte of it read. */
static void test_pipe_behind_dev_fd_refused(cf_test *t) {
  int fds[2];
  if (!CHECK(pipe(fds) == 0)) return;
  const char line[] = "isready\n";
  CHECK(write(fds[1], line, sizeof line - 1) == (ssize_t)(sizeof line - 1));
  char path[64];
  snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
  expect_refused(t, path, "a FIFO");
  /* Non-blocking, so input eaten by the loader fails here instead of
   * waiting for more. */
  CHECK(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
  char got[32] = "";
  CHECK(read(fds[0], got, sizeof got - 1) == (ssize_t)(sizeof line - 1));
  CHECK_STR_EQ(got, line);
  close(fds[0]);
  close(fds[1]);
}

static void test_directory_and_socket_refused(cf_test *t) {
  const char *dir = tmp_path("");
  char copy[256];
  snprintf(copy, sizeof copy, "%s", dir);
  expect_refused(t, copy, "a directory");
  const char *sock_path = tmp_path("net.sock");
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (!CHECK(strlen(sock_path) < sizeof addr.sun_path)) return;
  memcpy(addr.sun_path, sock_path, strlen(sock_path) + 1);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (CHECK(s >= 0 && bind(s, (struct sockaddr *)&addr, sizeof addr) == 0))
    expect_refused(t, addr.sun_path, "a socket");
  if (s >= 0) close(s);
  unlink(addr.sun_path);
}

/* A link to a regular file is still read. */
static void test_symlink_to_regular_file_loads(cf_test *t) {
  cf_weights *w = cf_test_random_net(&small_shape, NULL);
  if (!CHECK(w != NULL)) return;
  char net[256], link_path[256];
  snprintf(net, sizeof net, "%s", tmp_path("small.pb.gz"));
  snprintf(link_path, sizeof link_path, "%s", tmp_path("link.pb.gz"));
  cf_error err = {0};
  CHECK(cf_weights_save_file(w, net, CF_ENC_FLOAT16, true, &err) == CF_OK);
  cf_weights_free(w);
  CHECK(symlink(net, link_path) == 0);
  cf_weights *got = NULL;
  CHECK_INT_EQ(cf_weights_load_file(link_path, NULL, &got, &err), CF_OK);
  cf_weights_free(got);
  unlink(link_path);
  unlink(net);
}

/* ---- memory-bounded children ---- */

#ifndef CF_TEST_ASAN
static long vm_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0;
  if (f) {
    if (fscanf(f, "%ld", &pages) != 1) pages = 0;
    fclose(f);
  }
  return pages * sysconf(_SC_PAGESIZE);
}
#endif

static long maxrss_bytes(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss * 1024L;
}

/* Runs fn in a child whose address space may grow by at most headroom
 * bytes and whose peak RSS may grow by at most that much; a child killed by
 * alarm() (a hang) or by a crash fails the test. */
static void run_bounded(cf_test *t, void (*fn)(cf_test *), long headroom, int seconds) {
  fflush(NULL);
  pid_t pid = fork();
  if (!CHECK(pid >= 0)) return;
  if (pid == 0) {
    cf_test child = {t->name, 0, 0, NULL};
#ifndef CF_TEST_ASAN
    struct rlimit rl = {.rlim_cur = (rlim_t)(vm_bytes() + headroom),
                        .rlim_max = (rlim_t)(vm_bytes() + headroom)};
    setrlimit(RLIMIT_AS, &rl);
#endif
    long rss0 = maxrss_bytes();
    alarm((unsigned)seconds);
    fn(&child);
    alarm(0);
    long grown = maxrss_bytes() - rss0;
    if (!cf_test_report(&child, grown <= RSS_SLACK * headroom, __FILE__, __LINE__,
                        "peak RSS within bound"))
      fprintf(stderr, "  peak RSS grew by %ld MiB (bound %ld MiB)\n", grown >> 20,
              (RSS_SLACK * headroom) >> 20);
    fflush(NULL);
    _exit(child.failures ? 1 : 0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    if (WIFSIGNALED(status))
      fprintf(stderr, "  child killed by signal %d%s\n", WTERMSIG(status),
              WTERMSIG(status) == SIGALRM ? " (timed out)" : "");
  }
}

/* One gzip member of data[0..n) at the given level; NULL on failure. */
static uint8_t *gzip_member(const void *data, size_t n, int level, size_t *out_n) {
  size_t cap = n + n / 100 + 1024;
  uint8_t *out = malloc(cap);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (!out || deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    free(out);
    return NULL;
  }
  zs.next_in = (Bytef *)(uintptr_t)data;
  zs.avail_in = (uInt)n;
  zs.next_out = out;
  zs.avail_out = (uInt)cap;
  int ret = deflate(&zs, Z_FINISH);
  *out_n = cap - zs.avail_out;
  deflateEnd(&zs);
  if (ret != Z_STREAM_END) {
    free(out);
    return NULL;
  }
  return out;
}

/* One gzip member of n zero bytes. */
static uint8_t *gzip_zeros(size_t n, size_t *out_n) {
  uint8_t *zeros = calloc(1, n);
  uint8_t *out = zeros ? gzip_member(zeros, n, 9, out_n) : NULL;
  free(zeros);
  return out;
}

/* About 4 MB of gzip that inflates to about 4 GB: members of 1 MiB of
 * zeros, repeated (the loader inflates concatenated members in turn). */
static const char *write_bomb(size_t *file_size) {
  size_t n;
  uint8_t *member = gzip_zeros((size_t)1 << 20, &n);
  if (!member) return NULL;
  const char *path = tmp_path("bomb.pb.gz");
  FILE *f = fopen(path, "wb");
  size_t total = 0;
  while (f && total + n <= ((size_t)4 << 20)) {
    if (fwrite(member, 1, n, f) != n) break;
    total += n;
  }
  free(member);
  if (!f || fclose(f) != 0) return NULL;
  *file_size = total;
  return path;
}

static char bomb_path[256];
static size_t bomb_size;

static void load_bomb(cf_test *t) {
  cf_error err = {0};
  cf_weights *w = (cf_weights *)1;
  cf_weights_load_options opts = {.limit_name = "WeightsMaxMb"};
  double t0 = cf_clock_now();
  CHECK_INT_EQ(cf_weights_load_file(bomb_path, &opts, &w, &err), CF_ERR_NOMEM);
  double dt = cf_clock_now() - t0;
  CHECK(w == NULL);
  /* Stopped at the automatic limit (64 MiB for a 4 MB file), not by
   * running out of memory. */
  CHECK_STR_CONTAINS(err.msg, "decompressed size exceeds the limit of 67108864 bytes");
  char auto_rule[128];
  snprintf(auto_rule, sizeof auto_rule, "(automatic: 16 times the %zu-byte file, at least 64 MiB)",
           bomb_size);
  CHECK_STR_CONTAINS(err.msg, auto_rule);
  CHECK_STR_CONTAINS(err.msg, "a decompression bomb?");
  CHECK_STR_CONTAINS(err.msg, "a decompression bomb? Raise the limit with WeightsMaxMb to load it anyway");
  CHECK_LATENCY(dt * 1000.0, 10000.0, "refusing a 4 MB gzip bomb");
  /* From memory the same rule applies to the buffer's size. */
  size_t n = 0;
  uint8_t *buf = cf_test_read_file(bomb_path, &n);
  if (CHECK(buf != NULL)) {
    CHECK_INT_EQ(cf_weights_load_memory(buf, n, "bomb", NULL, &w, &err), CF_ERR_NOMEM);
    CHECK_STR_CONTAINS(err.msg, "bomb: decompressed size exceeds the limit of 67108864 bytes");
  }
  free(buf);
}

static void test_gzip_bomb_refused_fast(cf_test *t) {
  const char *p = write_bomb(&bomb_size);
  if (!CHECK(p != NULL)) return;
  snprintf(bomb_path, sizeof bomb_path, "%s", p);
  /* The limit (64 MiB) plus the doubling buffer's copy, zlib's window and
   * the 1 MiB input chunk fit in 256 MiB; before, this took ~4 GB. */
  run_bounded(t, load_bomb, 256L << 20, HANG_ALARM);
  unlink(bomb_path);
}

/* A caller's limit replaces the automatic one, decides the outcome and is
 * named in the message. */
static void test_limit_option_decides(cf_test *t) {
  cf_weights *w = cf_test_random_net(&small_shape, NULL);
  if (!CHECK(w != NULL)) return;
  void *gz = NULL, *raw = NULL;
  size_t gn = 0, rn = 0;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, true, &gz, &gn, NULL) == CF_OK);
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &raw, &rn, NULL) == CF_OK);
  cf_weights_free(w);
  cf_weights_load_options opts = {.max_decompressed_bytes = 1024,
                                  .limit_name = "WeightsMaxMb (--weights-max-mb)"};
  cf_error err = {0};
  cf_weights *got = NULL;
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "net.pb.gz", &opts, &got, &err), CF_ERR_NOMEM);
  CHECK_STR_CONTAINS(err.msg, "net.pb.gz: decompressed size exceeds the limit of 1024 bytes (as set)");
  CHECK_STR_CONTAINS(err.msg, "raise the limit with WeightsMaxMb (--weights-max-mb) to load it");
  CHECK_INT_EQ(cf_weights_load_memory(raw, rn, "net.pb", &opts, &got, &err), CF_ERR_NOMEM);
  CHECK_STR_CONTAINS(err.msg, "net.pb: uncompressed payload of");
  CHECK_STR_CONTAINS(err.msg, "exceeds the limit of 1024 bytes (as set); raise the limit with");
  /* Without a name the message names no knob. */
  opts.limit_name = NULL;
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "net.pb.gz", &opts, &got, &err), CF_ERR_NOMEM);
  CHECK(strstr(err.msg, "raise") == NULL);
  /* Automatic (0) and a large enough limit load it. */
  opts.max_decompressed_bytes = 0;
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "net.pb.gz", &opts, &got, &err), CF_OK);
  cf_weights_free(got);
  opts.max_decompressed_bytes = rn;
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "net.pb.gz", &opts, &got, &err), CF_OK);
  cf_weights_free(got);
  free(gz);
  free(raw);
}

/* ---- appended bytes ---- */

/* A net of about 1.2 MB gzip'd: large enough that a fake ISIZE of ~1 GiB
 * was within the old hint rule (1032 times the compressed size). */
static const cf_test_shape hint_shape = {
  .layers = 2, .d = 128, .heads = 4, .dff = 512, .cv = 4, .cm = 4, .seed = 5,
};

static void *hint_gz;
static size_t hint_n;

static void load_with_trailing_bytes(cf_test *t) {
  static const uint8_t fake_isize[4] = {0xff, 0xff, 0xff, 0x3f}; /* 1 GiB - 1 */
  static const char junk[] = "appended by a download manager";
  const char *path = tmp_path("trailing.pb.gz");
  FILE *f = fopen(path, "wb");
  if (!CHECK(f != NULL)) return;
  CHECK(fwrite(hint_gz, 1, hint_n, f) == hint_n);
  CHECK(fwrite(fake_isize, 1, 4, f) == 4);
  CHECK(fclose(f) == 0);
  cf_error err = {0};
  cf_weights *w = NULL;
  if (!CHECK_INT_EQ(cf_weights_load_file(path, NULL, &w, &err), CF_OK))
    fprintf(stderr, "  %s\n", err.msg);
  CHECK(w && w->arch.d == 128);
  cf_weights_free(w);
  /* Text after the stream, ending in the same fake size: ignored too. */
  f = fopen(path, "ab");
  if (!CHECK(f != NULL)) return;
  CHECK(fwrite(junk, 1, sizeof junk - 1, f) == sizeof junk - 1);
  CHECK(fwrite(fake_isize, 1, 4, f) == 4);
  CHECK(fclose(f) == 0);
  if (!CHECK_INT_EQ(cf_weights_load_file(path, NULL, &w, &err), CF_OK))
    fprintf(stderr, "  %s\n", err.msg);
  cf_weights_free(w);
  /* And from memory. */
  uint8_t *buf = malloc(hint_n + 4);
  if (CHECK(buf != NULL)) {
    memcpy(buf, hint_gz, hint_n);
    memcpy(buf + hint_n, fake_isize, 4);
    CHECK_INT_EQ(cf_weights_load_memory(buf, hint_n + 4, "trailing", NULL, &w, &err), CF_OK);
    cf_weights_free(w);
  }
  free(buf);
  unlink(path);
}

static void test_trailing_bytes_no_large_allocation(cf_test *t) {
  cf_weights *w = cf_test_random_net(&hint_shape, NULL);
  if (!CHECK(w != NULL)) return;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, true, &hint_gz, &hint_n, NULL) == CF_OK);
  cf_weights_free(w);
  if (!CHECK(hint_n > ((size_t)1 << 30) / 1032)) return;
  /* The net itself needs ~3x its 1.2 MB here; a 1 GiB allocation from the
   * fake hint would not fit in 256 MiB more address space. */
  run_bounded(t, load_with_trailing_bytes, 256L << 20, HANG_ALARM);
  free(hint_gz);
}

/* Two gzip members where the first ends one byte before the loader's 1 MiB
 * read: the second member's magic straddles two reads and must still be
 * seen, so the file loads as from memory. */
static void test_member_magic_across_reads(cf_test *t) {
  cf_weights *w = cf_test_random_net(&hint_shape, NULL);
  if (!CHECK(w != NULL)) return;
  void *raw = NULL;
  size_t rn = 0;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &raw, &rn, NULL) == CF_OK);
  cf_weights_free(w);
  const size_t target = ((size_t)1 << 20) - 1;
  if (!CHECK(raw && rn > target + 4096)) return;
  /* Stored (level 0) members grow one for one with their input: find the
   * split whose first member is exactly target bytes. */
  size_t k = target - 100, n1 = 0;
  uint8_t *m1 = NULL;
  for (int tries = 0; tries < 20; tries++) {
    free(m1);
    m1 = gzip_member(raw, k, 0, &n1);
    if (!m1 || n1 == target) break;
    k = n1 < target ? k + (target - n1) : k - (n1 - target);
  }
  size_t n2 = 0;
  uint8_t *m2 = gzip_member((uint8_t *)raw + k, rn - k, 6, &n2);
  if (CHECK(m1 && m2 && n1 == target)) {
    const char *path = tmp_path("members.pb.gz");
    FILE *f = fopen(path, "wb");
    if (CHECK(f != NULL)) {
      CHECK(fwrite(m1, 1, n1, f) == n1 && fwrite(m2, 1, n2, f) == n2);
      CHECK(fclose(f) == 0);
      cf_error err = {0};
      cf_weights *got = NULL;
      if (!CHECK_INT_EQ(cf_weights_load_file(path, NULL, &got, &err), CF_OK))
        fprintf(stderr, "  %s\n", err.msg);
      CHECK(got && got->arch.d == 128);
      cf_weights_free(got);
      unlink(path);
    }
  }
  free(m1);
  free(m2);
  free(raw);
}

/* The tests before removed every file they made: the folder is empty. */
static void test_cleanup(cf_test *t) {
  if (!tmpdir[0]) {
    CF_SKIP("no test before it made the temporary folder (run with the others)");
    return;
  }
  CHECK(rmdir(tmpdir) == 0 || errno == ENOENT);
}

CF_TEST_MAIN(test_fifo_refused, test_devices_refused, test_pipe_behind_dev_fd_refused,
             test_directory_and_socket_refused, test_symlink_to_regular_file_loads,
             test_gzip_bomb_refused_fast, test_limit_option_decides,
             test_trailing_bytes_no_large_allocation, test_member_magic_across_reads,
             test_cleanup)
