/* test_syzygy_load.c: SyzygyPath loading and its bad input: missing,
 * unreadable, empty and non-directories, paths over 4 KB, damaged,
 * truncated and empty table files, too many pieces, names that are no
 * tables. Each gives a message naming what is wrong; good directories
 * beside a bad one still load. Files are built under the work directory
 * $CF_SYZYGY_WORK (meson sets it inside the build directory). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chess/cf_chess.h"
#include "engine/syzygy/cf_syzygy.h"
#include "engine/syzygy/cf_syzygy_file.h"
#include "tests/cf_test.h"

static char g_work[1024];
static char g_tables[1024];

static void setup(void) {
  const char *work = getenv("CF_SYZYGY_WORK");
  snprintf(g_work, sizeof g_work, "%s", work && *work ? work : "syzygy-work");
  mkdir(g_work, 0755);
  snprintf(g_tables, sizeof g_tables, "%s/syzygy", cf_test_data_dir());
}

static int read_whole(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *data = malloc((size_t)n + 1);
  *size = fread(*data, 1, (size_t)n, f);
  fclose(f);
  return *size == (size_t)n;
}

static void write_whole(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f) {
    if (size) fwrite(data, 1, size, f);
    fclose(f);
  }
}

/* Makes g_work/<name>/ holding KQvK.rtbw with `edit` applied, and returns its path. */
typedef void (*edit_fn)(uint8_t *data, size_t *size);
static const char *make_dir(const char *name, const char *file, edit_fn edit) {
  static char dir[1200];
  snprintf(dir, sizeof dir, "%s/%s", g_work, name);
  mkdir(dir, 0755);
  char src[1200], dst[1300];
  snprintf(src, sizeof src, "%s/KQvK.rtbw", g_tables);
  snprintf(dst, sizeof dst, "%s/%s", dir, file);
  uint8_t *data;
  size_t size;
  if (read_whole(src, &data, &size)) {
    if (edit) edit(data, &size);
    write_whole(dst, data, size);
    free(data);
  }
  return dir;
}

static void flip_magic(uint8_t *d, size_t *n) { (void)n, d[1] ^= 0x40; }
static void cut_five(uint8_t *d, size_t *n) { (void)d, *n -= 5; }
static void cut_all(uint8_t *d, size_t *n) { (void)d, *n = 0; }
static void wrong_piece(uint8_t *d, size_t *n) { (void)n, d[8] = 0x44; } /* queen -> rook */
static void wrong_count(uint8_t *d, size_t *n) { (void)n, d[4] = 0x41; }

static void test_good_directory(cf_test *t) {
  setup();
  cf_syzygy_report r;
  CHECK_INT_EQ(cf_syzygy_load(g_tables, &r), cf_syzygy_available() ? CF_OK : CF_ERR_UNSUPPORTED);
  if (!cf_syzygy_available()) {
    CHECK_STR_CONTAINS(r.errors[0], "libfathom-dev");
    return;
  }
  CHECK_INT_EQ(r.error_count, 0);
  CHECK_INT_EQ(r.wdl_tables, 11);
  CHECK_INT_EQ(r.dtz_tables, 11);
  CHECK_INT_EQ(r.max_pieces, 4);
  CHECK_INT_EQ(cf_syzygy_max_pieces(), 4);
  /* Lc0's "nothing" spellings unload. */
  CHECK_INT_EQ(cf_syzygy_load("", &r), CF_OK);
  CHECK_INT_EQ(cf_syzygy_max_pieces(), 0);
  CHECK_INT_EQ(cf_syzygy_load("<empty>", &r), CF_OK);
  CHECK_INT_EQ(r.wdl_tables, 0);
}

/* Loads `path` and expects one error with `needle` in it. */
static void expect_error(cf_test *t, const char *path, cf_status status, const char *needle) {
  cf_syzygy_report r;
  CHECK_INT_EQ(cf_syzygy_load(path, &r), status);
  CHECK_INT_EQ(r.error_count, 1);
  CHECK_STR_CONTAINS(r.errors[0], needle);
  CHECK_INT_EQ(cf_syzygy_max_pieces(), 0);
}

static void test_bad_directories(cf_test *t) {
  setup();
  if (!cf_syzygy_available()) {
    CHECK(!cf_syzygy_available());
    return;
  }
  char missing[1200];
  snprintf(missing, sizeof missing, "%s/no-such-dir", g_work);
  expect_error(t, missing, CF_ERR_IO, "no-such-dir");
  expect_error(t, missing, CF_ERR_IO, "No such file");
  char empty[1200];
  snprintf(empty, sizeof empty, "%s/empty", g_work);
  mkdir(empty, 0755);
  expect_error(t, empty, CF_ERR_IO, "holds no WDL tables");
  char file[1200];
  snprintf(file, sizeof file, "%s/KQvK.rtbw", g_tables);
  expect_error(t, file, CF_ERR_IO, "is not a directory");
  char locked[1200];
  snprintf(locked, sizeof locked, "%s/locked", g_work);
  mkdir(locked, 0755);
  chmod(locked, 0);
  if (geteuid() != 0) expect_error(t, locked, CF_ERR_IO, "Permission denied");
  else printf("  (running as root: an unreadable directory cannot be made)\n");
  chmod(locked, 0755);
  char *longpath = malloc(CF_SYZYGY_PATH_MAX + 100);
  memset(longpath, 'a', CF_SYZYGY_PATH_MAX + 99);
  longpath[CF_SYZYGY_PATH_MAX + 99] = '\0';
  expect_error(t, longpath, CF_ERR_ARG, "at most 4096");
  free(longpath);
}

static void test_bad_files(cf_test *t) {
  setup();
  if (!cf_syzygy_available()) {
    CHECK(!cf_syzygy_available());
    return;
  }
  expect_error(t, make_dir("magic", "KQvK.rtbw", flip_magic), CF_ERR_FORMAT, "wrong magic number");
  expect_error(t, make_dir("cut", "KQvK.rtbw", cut_five), CF_ERR_FORMAT, "truncated");
  expect_error(t, make_dir("zero", "KQvK.rtbw", cut_all), CF_ERR_FORMAT, "empty file");
  expect_error(t, make_dir("piece", "KQvK.rtbw", wrong_piece), CF_ERR_FORMAT, "pieces do not match");
  expect_error(t, make_dir("count", "KQvK.rtbw", wrong_count), CF_ERR_FORMAT, "flags do not match");
  expect_error(t, make_dir("named", "KRvK.rtbw", NULL), CF_ERR_FORMAT, "pieces do not match");
  expect_error(t, make_dir("eight", "KQRBNPPvK.rtbw", NULL), CF_ERR_UNSUPPORTED, "at most 7");
  expect_error(t, make_dir("odd", "notatable.rtbw", NULL), CF_ERR_FORMAT, "not a Syzygy table name");
  /* The message names the file. */
  expect_error(t, make_dir("magic", "KQvK.rtbw", flip_magic), CF_ERR_FORMAT, "magic/KQvK.rtbw");
}

/* A bad directory is left out; the good ones beside it load and probe. */
static void test_good_beside_bad(cf_test *t) {
  setup();
  if (!cf_syzygy_available()) {
    CHECK(!cf_syzygy_available());
    return;
  }
  char paths[4096];
  snprintf(paths, sizeof paths, "%s/no-such-dir::%s:%s", g_work,
           make_dir("cut", "KQvK.rtbw", cut_five), g_tables);
  cf_syzygy_report r;
  CHECK_INT_EQ(cf_syzygy_load(paths, &r), CF_ERR_IO);
  CHECK_INT_EQ(r.error_count, 2);
  CHECK_STR_CONTAINS(r.errors[0], "no-such-dir");
  CHECK_STR_CONTAINS(r.errors[1], "truncated");
  CHECK_INT_EQ(r.wdl_tables, 11);
  CHECK_INT_EQ(r.max_pieces, 4);
  cf_position pos;
  cf_syzygy_wdl wdl;
  cf_position_from_fen(&pos, "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", NULL);
  CHECK(cf_syzygy_probe_wdl(&pos, &wdl) && wdl == CF_SYZYGY_WIN);
}

/* Without DTZ tables the root is ranked by WDL (Lc0's fallback), which in
 * KRK at a zero count keeps the same moves as DTZ does. */
static void test_wdl_only_root(cf_test *t) {
  setup();
  if (!cf_syzygy_available()) {
    CHECK(!cf_syzygy_available());
    return;
  }
  static const char *fens[] = {"4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "8/8/8/8/8/2k5/8/K2R4 b - - 0 1",
                               "8/8/8/8/8/1k6/8/KR6 b - - 0 1"};
  cf_movelist dtz[3], wdl[3];
  cf_syzygy_report r;
  cf_syzygy_load(g_tables, &r);
  for (int i = 0; i < 3; i++) {
    cf_position pos;
    cf_position_from_fen(&pos, fens[i], NULL);
    CHECK_INT_EQ(cf_syzygy_root_filter(&pos, 0, &dtz[i]), CF_SYZYGY_ROOT_DTZ);
  }
  char dir[1200], src[1200], dst[1300];
  snprintf(dir, sizeof dir, "%s/wdl-only", g_work);
  mkdir(dir, 0755);
  snprintf(src, sizeof src, "%s/KRvK.rtbw", g_tables);
  snprintf(dst, sizeof dst, "%s/KRvK.rtbw", dir);
  uint8_t *data;
  size_t size;
  if (!CHECK(read_whole(src, &data, &size))) return;
  write_whole(dst, data, size);
  free(data);
  CHECK_INT_EQ(cf_syzygy_load(dir, &r), CF_OK);
  CHECK_INT_EQ(r.wdl_tables, 1);
  CHECK_INT_EQ(r.dtz_tables, 0);
  for (int i = 0; i < 3; i++) {
    cf_position pos;
    cf_position_from_fen(&pos, fens[i], NULL);
    CHECK_INT_EQ(cf_syzygy_root_filter(&pos, 0, &wdl[i]), CF_SYZYGY_ROOT_WDL);
    CHECK_INT_EQ(wdl[i].count, dtz[i].count);
    for (int k = 0; k < wdl[i].count && k < dtz[i].count; k++) CHECK(wdl[i].moves[k] == dtz[i].moves[k]);
  }
}

/* Table names: Syzygy's material signatures, strongest piece first. */
static void test_names(cf_test *t) {
  cf_syzygy_material m;
  cf_syzygy_kind k;
  CHECK_INT_EQ(cf_syzygy_parse_name("KRvKP.rtbw", &m, &k, NULL), CF_OK);
  CHECK(k == CF_SYZYGY_WDL && m.pieces == 4 && m.has_pawns && m.count[1][CF_PAWN] == 1);
  CHECK_INT_EQ(cf_syzygy_parse_name("KBNvK.rtbz", &m, &k, NULL), CF_OK);
  CHECK(k == CF_SYZYGY_DTZ && m.count[0][CF_BISHOP] == 1 && m.count[0][CF_KNIGHT] == 1);
  const char *bad[] = {"KNBvK.rtbw", "QKvK.rtbw", "KQK.rtbw", "KvKvK.rtbw", "KQvQ.rtbw",
                       "KQvK.rtbm", "kqvk.rtbw", "KXvK.rtbw", "vK.rtbw", "K.rtbw"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cf_status st = cf_syzygy_parse_name(bad[i], &m, &k, NULL);
    if (!CHECK_INT_EQ(st, CF_ERR_FORMAT)) fprintf(stderr, "  accepted %s\n", bad[i]);
  }
  CHECK_INT_EQ(cf_syzygy_parse_name("KQRBNPvKP.rtbw", &m, &k, NULL), CF_ERR_UNSUPPORTED);
  CHECK_INT_EQ(cf_syzygy_parse_name("KQRBNvKP.rtbw", &m, &k, NULL), CF_OK);
}

/* Every shipped table passes; any change to its first bytes is caught or
 * leaves the material the same. */
static void test_header_bytes(cf_test *t) {
  setup();
  static const char *files[] = {"KQvK.rtbw", "KQvK.rtbz", "KRvKP.rtbw", "KRvKP.rtbz",
                                "KPvK.rtbw", "KBNvK.rtbz"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", g_tables, files[f]);
    cf_syzygy_material m;
    cf_syzygy_kind k;
    cf_error err;
    if (!CHECK_INT_EQ(cf_syzygy_check_file(path, files[f], &m, &k, &err), CF_OK)) {
      fprintf(stderr, "  %s\n", err.msg);
      continue;
    }
    uint8_t *data;
    size_t size;
    if (!read_whole(path, &data, &size)) continue;
    for (int byte = 0; byte < 5; byte++)
      for (int bit = 0; bit < 8; bit++) {
        data[byte] ^= (uint8_t)(1 << bit);
        /* The magic and the flag byte are checked in full, bits 2-3 aside. */
        int unchecked = byte == 4 && (bit == 2 || bit == 3 || (k == CF_SYZYGY_DTZ && bit == 0));
        cf_status st = cf_syzygy_check_bytes(data, size < 256 ? size : 256, size, &m, k, NULL);
        CHECK(unchecked || st == CF_ERR_FORMAT);
        data[byte] ^= (uint8_t)(1 << bit);
      }
    free(data);
  }
}

CF_TEST_MAIN(test_names, test_header_bytes, test_good_directory, test_bad_directories,
             test_bad_files, test_good_beside_bad, test_wdl_only_root)
