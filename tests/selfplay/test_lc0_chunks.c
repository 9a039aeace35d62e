/* test_lc0_chunks.c: the chunk reader on records Lc0's own selfplay wrote
 * (tests/data/lc0-chunks, README there): every field it can be checked on
 * against Lc0's report of the games (lc0-gameready.txt): version and input
 * format, the played move's index, visit shares summing to 1 over exactly
 * the legal moves, the result, and the 104 history planes equal to what
 * cformer's encoder makes of the same position. And the refusals: a
 * truncated chunk, a foreign file, a record of another version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tests/cf_test.h"
#include "tools/chunks/cf_chunk_file.h"

#define MAX_RECORDS 64

typedef struct records {
  cf_v6 r[MAX_RECORDS];
  long n;
} records;

static cf_status keep(void *ctx, long index, const cf_v6 *r, cf_error *err) {
  (void)err;
  records *rs = ctx;
  if (index < MAX_RECORDS) rs->r[index] = *r;
  rs->n = index + 1;
  return CF_OK;
}

static const char *dir(void) {
  const char *d = getenv("CF_LC0_CHUNKS");
  return d ? d : "tests/data/lc0-chunks";
}

static uint64_t reverse_bits_in_bytes(uint64_t v) {
  uint64_t out = 0;
  for (int b = 0; b < 64; b++)
    if (v >> b & 1) out |= 1ull << ((b & ~7) | (7 - (b & 7)));
  return out;
}

/* One gameready line: chunk name, result word, moves, FEN. */
static void check_game(cf_test *t, char *line) {
  char name[64], result[16];
  if (!CHECK(sscanf(line, "gameready trainingfile %63s %*s %*s %*s %*s %*s %*s result %15s",
                    name, result) == 2))
    return;
  char *moves = strstr(line, " moves ") + 7, *fen = strstr(line, " from_fen ");
  if (!CHECK(fen != NULL)) return;
  *fen = 0;
  fen += 10;
  fen[strcspn(fen, "\n")] = 0;
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir(), name);
  records *rs = calloc(1, sizeof *rs);
  cf_error err = {0};
  if (!CHECK(cf_chunk_read(path, keep, rs, NULL, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    free(rs);
    return;
  }
  const int white = strcmp(result, "whitewon") == 0 ? 1 : strcmp(result, "blackwon") == 0 ? -1 : 0;
  cf_game g;
  CHECK(cf_game_init_fen(&g, fen, NULL) == CF_OK);
  long ply = 0;
  for (char *m = strtok(moves, " "); m; m = strtok(NULL, " "), ply++) {
    if (!CHECK(ply < rs->n)) break;
    const cf_v6 *r = &rs->r[ply];
    const cf_position *pos = cf_game_position(&g);
    const bool black = pos->side == CF_BLACK;
    CHECK(r->version == 6 && r->input_format == 1);
    CHECK(cf_v6_black_to_move(r) == black);
    CHECK_INT_EQ(cf_v6_white_result(r), white);
    cf_move mv;
    if (!CHECK(cf_move_parse_uci(pos, m, &mv, NULL) == CF_OK)) break;
    CHECK_INT_EQ(r->played_idx, cf_policy_move_index(cf_engine_policy_move(mv), black, 0));
    cf_movelist legal;
    cf_generate_legal(pos, &legal);
    double sum = 0;
    int entries = 0;
    for (int i = 0; i < CF_V6_POLICY; i++)
      if (r->probabilities[i] >= 0) sum += r->probabilities[i], entries++;
    CHECK_INT_EQ(entries, legal.count);
    CHECK_NEAR(sum, 1.0, 1e-5);
    /* the planes as cformer encodes the position (HistoryFill "no": Lc0's
     * selfplay default, not the engine's fen_only) */
    cf_net_position np;
    cf_engine_net_position(&g, 1, &np);
    cf_planes planes;
    cf_net_encode_planes(&np, CF_HISTORY_FILL_NO, &planes);
    int same = 0;
    for (int i = 0; i < CF_V6_PLANES; i++) same += r->planes[i] == reverse_bits_in_bytes(planes.mask[i]);
    CHECK_INT_EQ(same, CF_V6_PLANES);
    CHECK_INT_EQ(r->rule50_count, pos->rule50);
    CHECK(cf_game_push_legal(&g, mv, NULL) == CF_OK);
  }
  CHECK_INT_EQ(ply, rs->n); /* a record per move played */
  cf_game_free(&g);
  free(rs);
}

static void test_lc0_records(cf_test *t) {
  char path[4200];
  snprintf(path, sizeof path, "%s/lc0-gameready.txt", dir());
  FILE *f = fopen(path, "r");
  if (!CHECK(f != NULL)) return;
  char line[4096];
  int games = 0;
  while (fgets(line, sizeof line, f)) check_game(t, line), games++;
  fclose(f);
  CHECK_INT_EQ(games, 3);
}

static void write_gz(const char *path, const void *data, size_t n) {
  gzFile gz = gzopen(path, "wb");
  gzwrite(gz, data, (unsigned)n);
  gzclose(gz);
}

static void test_refusals(cf_test *t) {
  char d[] = "/tmp/cf_chunks_test_XXXXXX";
  if (!CHECK(mkdtemp(d) != NULL)) return;
  char path[4200];
  cf_error err = {0};
  uint8_t rec[CF_V6_BYTES];
  cf_v6 *r = calloc(1, sizeof *r);
  r->version = 6;
  cf_v6_pack(r, rec);
  /* a record cut short */
  snprintf(path, sizeof path, "%s/short.gz", d);
  write_gz(path, rec, CF_V6_BYTES - 100);
  CHECK(cf_chunk_read(path, NULL, NULL, NULL, &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "short.gz");
  CHECK_STR_CONTAINS(err.msg, "truncated");
  remove(path);
  /* a gzip stream cut short */
  snprintf(path, sizeof path, "%s/cut.gz", d);
  uint8_t two[2 * CF_V6_BYTES];
  memcpy(two, rec, CF_V6_BYTES);
  memcpy(two + CF_V6_BYTES, rec, CF_V6_BYTES);
  write_gz(path, two, sizeof two);
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fclose(f);
  CHECK(truncate(path, size - 12) == 0);
  CHECK(cf_chunk_read(path, NULL, NULL, NULL, &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "cut.gz");
  remove(path);
  /* not gzip */
  snprintf(path, sizeof path, "%s/notes.txt", d);
  f = fopen(path, "w");
  fputs("not a chunk\n", f);
  fclose(f);
  CHECK(cf_chunk_read(path, NULL, NULL, NULL, &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "notes.txt");
  CHECK_STR_CONTAINS(err.msg, "not gzip");
  remove(path);
  /* a V5-sized stream of another version */
  r->version = 5;
  cf_v6_pack(r, rec);
  snprintf(path, sizeof path, "%s/v5.gz", d);
  write_gz(path, rec, CF_V6_BYTES);
  CHECK(cf_chunk_read(path, NULL, NULL, NULL, &err) == CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "v5.gz");
  CHECK_STR_CONTAINS(err.msg, "version 5");
  remove(path);
  rmdir(d);
  free(r);
}

CF_TEST_MAIN(test_lc0_records, test_refusals)
