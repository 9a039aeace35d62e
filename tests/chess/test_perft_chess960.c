/* test_perft_chess960.c: move generation in Chess960 against the counts of
 * data/perft/chess960.epd (start positions chosen for their castling
 * geometry, middle games with castling rights, published and hand-built
 * positions; X-FEN and Shredder-FEN castling letters).
 *
 * Two tests over the same file, each run by name from tests/chess/meson.build:
 * test_chess960_fast (suite 'fast') stops each line at 1 million nodes,
 * test_chess960_deep (suite 'slow') checks every count. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>

#include "chess/cf_fen.h"
#include "chess/cf_perft.h"
#include "tests/cf_test.h"

#define MAX_DEPTH 8

typedef struct epd_line {
  char fen[256];               /* a FEN is under 100 characters */
  int depths;                  /* counts given: D1..D(depths) */
  uint64_t counts[MAX_DEPTH];  /* counts[d - 1] = perft(d) */
} epd_line;

/* Parses "FEN ;D1 n ;D2 n ..." (D1, D2, ... in order). Returns 0 and
 * fills *out, or -1 for a malformed line (which fails the test: a typo in
 * the data must not skip a position quietly). */
static int parse_line(const char *line, epd_line *out) {
  const char *semi = strchr(line, ';');
  if (!semi) return -1;
  size_t n = (size_t)(semi - line);
  while (n && isspace((unsigned char)line[n - 1])) n--;
  if (n == 0 || n >= sizeof out->fen) return -1;
  memcpy(out->fen, line, n);
  out->fen[n] = '\0';
  out->depths = 0;
  for (const char *p = semi; p && *p;) {
    int depth, used = 0;
    unsigned long long count;
    if (sscanf(p, " ;D%d %llu%n", &depth, &count, &used) != 2 || depth != out->depths + 1 ||
        depth > MAX_DEPTH)
      return -1;
    out->counts[out->depths++] = (uint64_t)count;
    p += used;
    while (isspace((unsigned char)*p)) p++;
  }
  return out->depths > 0 ? 0 : -1;
}

/* Runs every line of the suite up to max_nodes (0 = every count). */
static void run_suite(cf_test *t, uint64_t max_nodes) {
  char path[1024], line[2048];
  snprintf(path, sizeof path, "%s/perft/chess960.epd", cf_test_data_dir());
  FILE *f = fopen(path, "r");
  if (!CHECK(f != NULL)) {
    fprintf(stderr, "  cannot open %s\n", path);
    return;
  }
  int positions = 0, counts_checked = 0, castling_seen = 0;
  while (fgets(line, sizeof line, f)) {
    const char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '\0' || *p == '#') continue;
    epd_line e;
    if (!CHECK_INT_EQ(parse_line(p, &e), 0)) {
      fprintf(stderr, "  malformed line: %s", line);
      continue;
    }
    cf_position pos;
    cf_error err;
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, e.fen, &err), CF_OK)) {
      fprintf(stderr, "  %s: %s\n", e.fen, err.msg);
      continue;
    }
    positions++;
    castling_seen += pos.castling != 0;
    cf_position before = pos;
    for (int d = 1; d <= e.depths && (max_nodes == 0 || e.counts[d - 1] <= max_nodes); d++) {
      uint64_t nodes = cf_perft(&pos, d);
      counts_checked++;
      if (!CHECK_INT_EQ(nodes, e.counts[d - 1])) fprintf(stderr, "  %s depth %d\n", e.fen, d);
    }
    CHECK(memcmp(&before, &pos, sizeof pos) == 0); /* make/unmake restored everything */
  }
  fclose(f);
  /* The file is there and whole: every position has castling rights. */
  CHECK(positions >= 40);
  CHECK_INT_EQ(castling_seen, positions);
  CHECK(counts_checked >= 4 * positions);
}

static void test_chess960_fast(cf_test *t) { run_suite(t, 1000000); }
static void test_chess960_deep(cf_test *t) { run_suite(t, 0); }

/* The reader itself: what it takes and what it refuses. */
static void test_epd_reader(cf_test *t) {
  epd_line e;
  CHECK_INT_EQ(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9\n", &e), 0);
  CHECK_STR_EQ(e.fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
  CHECK_INT_EQ(e.depths, 2);
  CHECK_INT_EQ(e.counts[1], 9);
  CHECK_INT_EQ(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1", &e), -1);            /* no counts */
  CHECK_INT_EQ(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D2 9", &e), -1);      /* D1 missing */
  CHECK_INT_EQ(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2", &e), -1);  /* no count */
  CHECK_INT_EQ(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 x", &e), -1);    /* trailing junk */
  CHECK_INT_EQ(parse_line(" ;D1 3", &e), -1);                                 /* no FEN */
}

CF_TEST_MAIN(test_epd_reader, test_chess960_fast, test_chess960_deep)
