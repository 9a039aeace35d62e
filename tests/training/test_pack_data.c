/* test_pack_data.c: `cformer pack-data` on the committed sample shard
 * (training/sample/sample.tsv): the records hold what the engine's own
 * input code computes for each line, the split is by game, duplicates and
 * malformed lines are handled as documented. Runs the real binary (env
 * CF_CFORMER) and re-derives every record independently. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chess/cf_attacks.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tests/cf_test.h"
#include "tools/pack_data/cf_pack_format.h"

#define MAX_RECORDS 2000

static char tmp_dir[256];

static const char *env_or_fail(cf_test *t, const char *name) {
  const char *v = getenv(name);
  CHECK(v && *v);
  return v && *v ? v : "/nonexistent";
}

static void make_tmp(void) {
  if (tmp_dir[0]) return;
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cf_pack_test_XXXXXX");
  if (!mkdtemp(tmp_dir)) tmp_dir[0] = '\0';
}

/* Runs cformer pack-data with args; output goes to DIR/log. Exit status. */
static int run_pack(cf_test *t, const char *args) {
  char cmd[4096];
  make_tmp();
  snprintf(cmd, sizeof cmd, "'%s' pack-data %s >'%s/log' 2>&1", env_or_fail(t, "CF_CFORMER"),
           args, tmp_dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int log_contains(const char *needle) {
  char path[512], buf[16384];
  snprintf(path, sizeof path, "%s/log", tmp_dir);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strstr(buf, needle) != NULL;
}

/* Reads DIR/name: header checks, then up to MAX_RECORDS records. */
static int read_pack(cf_test *t, const char *dir, const char *name, cf_pack_record *recs) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return 0;
  unsigned char h[CF_PACK_HEADER_SIZE];
  CHECK(fread(h, sizeof h, 1, f) == 1);
  CHECK(memcmp(h, CF_PACK_MAGIC, 8) == 0);
  uint32_t v[4];
  uint64_t count;
  memcpy(v, h + 8, sizeof v);
  memcpy(&count, h + 24, sizeof count);
  CHECK_INT_EQ(v[0], CF_PACK_VERSION);
  CHECK_INT_EQ(v[1], CF_PACK_RECORD_SIZE);
  CHECK_INT_EQ(v[2], 4);
  CHECK(count <= MAX_RECORDS);
  size_t got = fread(recs, sizeof *recs, MAX_RECORDS, f);
  CHECK_INT_EQ(got, count);
  fclose(f);
  return (int)got;
}

/* The sample's lines, split into fields, for the independent re-derivation. */
typedef struct sample_line {
  char fields[9][512];
} sample_line;

static int read_sample(cf_test *t, sample_line *lines, int max) {
  FILE *f = fopen(env_or_fail(t, "CF_SAMPLE_TSV"), "r");
  CHECK(f != NULL);
  if (!f) return 0;
  char buf[4096];
  int n = 0;
  while (n < max && fgets(buf, sizeof buf, f)) {
    buf[strcspn(buf, "\n")] = '\0';
    char *save = NULL, *tok = strtok_r(buf, "\t", &save);
    for (int k = 0; k < 9 && tok; k++, tok = strtok_r(NULL, "\t", &save))
      snprintf(lines[n].fields[k], sizeof lines[n].fields[k], "%s", tok);
    n++;
  }
  fclose(f);
  return n;
}

static int legal_bit(const cf_pack_record *r, int idx) { return (int)(r->legal[idx / 64] >> (idx % 64)) & 1; }

/* Re-derives line's record through cf_engine_net_position and compares. */
static void check_record(cf_test *t, const sample_line *l, const cf_pack_record *r) {
  cf_game game;
  cf_error err;
  CHECK(cf_game_init_fen(&game, l->fields[2], &err) == CF_OK);
  char moves[512];
  snprintf(moves, sizeof moves, "%s", l->fields[3]);
  char *save = NULL;
  for (char *tok = strtok_r(moves, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
    CHECK(cf_game_push_uci(&game, tok, &err) == CF_OK);
  cf_net_position np;
  cf_engine_net_position(&game, 4, &np);
  cf_planes planes;
  int transform = cf_net_encode_planes(&np, CF_HISTORY_FILL_FEN_ONLY, &planes);
  int same = transform == r->transform;
  for (int j = 0; j < CF_PACK_PLANES; j++) same &= planes.mask[j] == r->planes[j];
  for (int j = 0; j < 8; j++) same &= planes.value[104 + j] == r->aux_value[j];
  CHECK(same);
  const cf_position *pos = cf_game_position(&game);
  CHECK_INT_EQ(r->black_to_move, pos->side == CF_BLACK);
  cf_policy_move pm[CF_MAX_MOVES];
  int n = cf_engine_legal_policy_moves(pos, NULL, pm);
  int bits = 0;
  for (int w = 0; w < CF_PACK_LEGAL_WORDS; w++) bits += __builtin_popcountll(r->legal[w]);
  CHECK_INT_EQ(bits, n);
  cf_move best;
  CHECK(cf_move_parse_uci(pos, l->fields[5], &best, &err) == CF_OK);
  int bi = cf_policy_move_index(cf_engine_policy_move(best), pos->side == CF_BLACK, transform);
  CHECK_INT_EQ(r->best_index, bi);
  CHECK(legal_bit(r, bi));
  float sum = 0;
  for (int i = 0; i < r->n_pv; i++) {
    sum += r->policy_prob[i];
    CHECK(legal_bit(r, r->policy_index[i]));
    if (i > 0 && r->policy_cp[i] < r->policy_cp[i - 1])
      CHECK(r->policy_prob[i] <= r->policy_prob[i - 1]);
  }
  CHECK(r->n_pv >= 1 && r->n_pv <= 4);
  CHECK_NEAR(sum, 1.0, 1e-5);
  CHECK_NEAR(r->sf_wdl[0] + r->sf_wdl[1] + r->sf_wdl[2], 1.0, 1e-5);
  int white = strcmp(l->fields[8], "1-0") == 0 ? 1 : strcmp(l->fields[8], "0-1") == 0 ? -1 : 0;
  CHECK_INT_EQ(r->result, pos->side == CF_BLACK ? -white : white);
  cf_game_free(&game);
}

static void test_records_match_engine_input(cf_test *t) {
  static sample_line lines[400];
  static cf_pack_record train[MAX_RECORDS], val[MAX_RECORDS];
  cf_chess_init();
  int n = read_sample(t, lines, 400);
  CHECK(n >= 200);
  char args[1024];
  make_tmp();
  snprintf(args, sizeof args, "--out '%s/a' --val-fraction 0.3 --seed 7 '%s'", tmp_dir,
           env_or_fail(t, "CF_SAMPLE_TSV"));
  CHECK_INT_EQ(run_pack(t, args), 0);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/a", tmp_dir);
  int nt = read_pack(t, dir, "train.cfpack", train), nv = read_pack(t, dir, "val.cfpack", val);
  CHECK(nt > 0 && nv > 0);
  CHECK(nt + nv <= n && nt + nv >= n - 5); /* a few repeated inputs at most */
  /* Every record is some sample line of its game and ply, re-derived. */
  int matched = 0;
  for (int s = 0; s < 2; s++) {
    const cf_pack_record *recs = s ? val : train;
    for (int i = 0; i < (s ? nv : nt); i++)
      for (int k = 0; k < n; k++)
        if (strtoul(lines[k].fields[0], NULL, 10) == recs[i].game_id &&
            strtoul(lines[k].fields[1], NULL, 10) == recs[i].ply) {
          check_record(t, &lines[k], &recs[i]);
          matched++;
          break;
        }
  }
  CHECK_INT_EQ(matched, nt + nv);
  /* No game feeds both files. */
  int shared = 0;
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nv; j++) shared += train[i].game_id == val[j].game_id;
  CHECK_INT_EQ(shared, 0);
}

static void test_split_fraction_and_seed(cf_test *t) {
  static cf_pack_record a[MAX_RECORDS], b[MAX_RECORDS];
  char args[1024], dir[512];
  make_tmp();
  const char *sample = env_or_fail(t, "CF_SAMPLE_TSV");
  snprintf(args, sizeof args, "--out '%s/z' --val-fraction 0 '%s'", tmp_dir, sample);
  CHECK_INT_EQ(run_pack(t, args), 0);
  snprintf(dir, sizeof dir, "%s/z", tmp_dir);
  CHECK_INT_EQ(read_pack(t, dir, "val.cfpack", a), 0);
  snprintf(args, sizeof args, "--out '%s/o' --val-fraction 1 '%s'", tmp_dir, sample);
  CHECK_INT_EQ(run_pack(t, args), 0);
  snprintf(dir, sizeof dir, "%s/o", tmp_dir);
  CHECK_INT_EQ(read_pack(t, dir, "train.cfpack", a), 0);
  /* Two seeds pick different validation games (9 games, fraction 0.5). */
  int differs = 0;
  for (int seed = 1; seed <= 4 && !differs; seed++) {
    snprintf(args, sizeof args, "--out '%s/s1' --val-fraction 0.5 --seed 1 '%s'", tmp_dir, sample);
    CHECK_INT_EQ(run_pack(t, args), 0);
    snprintf(args, sizeof args, "--out '%s/s2' --val-fraction 0.5 --seed %d '%s'", tmp_dir,
             seed + 1, sample);
    CHECK_INT_EQ(run_pack(t, args), 0);
    snprintf(dir, sizeof dir, "%s/s1", tmp_dir);
    int na = read_pack(t, dir, "val.cfpack", a);
    snprintf(dir, sizeof dir, "%s/s2", tmp_dir);
    int nb = read_pack(t, dir, "val.cfpack", b);
    differs = na != nb || (na > 0 && a[0].game_id != b[0].game_id);
  }
  CHECK(differs);
}

/* A shard with duplicates, malformed lines and an unfinished last line. */
static void write_bad_shard(cf_test *t, const char *path) {
  static sample_line lines[4];
  int n = read_sample(t, lines, 3);
  CHECK_INT_EQ(n, 3);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  for (int rep = 0; rep < 2; rep++) /* line 1 twice: a duplicate */
    for (int k = 0; k < 9; k++) fprintf(f, "%s%s", lines[0].fields[k], k < 8 ? "\t" : "\n");
  fprintf(f, "only\tthree\tfields\n");
  /* An illegal best move. */
  for (int k = 0; k < 9; k++)
    fprintf(f, "%s%s", k == 5 ? "a1a8" : lines[1].fields[k], k < 8 ? "\t" : "\n");
  /* A wdl that does not parse. */
  for (int k = 0; k < 9; k++)
    fprintf(f, "%s%s", k == 6 ? "1,2" : lines[2].fields[k], k < 8 ? "\t" : "\n");
  /* Labelled FEN that the history does not reach. */
  for (int k = 0; k < 9; k++)
    fprintf(f, "%s%s", k == 4 ? "8/8/8/8/8/8/8/K1k5 w - - 0 1" : lines[1].fields[k],
            k < 8 ? "\t" : "\n");
  for (int k = 0; k < 9; k++) fprintf(f, "%s%s", lines[2].fields[k], k < 8 ? "\t" : "\n");
  fprintf(f, "%s\t%s\t", lines[1].fields[0], lines[1].fields[1]); /* unfinished */
  fclose(f);
}

static void test_malformed_duplicates_incomplete(cf_test *t) {
  static cf_pack_record recs[MAX_RECORDS];
  char path[512], args[1024], dir[512];
  make_tmp();
  snprintf(path, sizeof path, "%s/bad.tsv", tmp_dir);
  write_bad_shard(t, path);
  snprintf(args, sizeof args, "--out '%s/b' --val-fraction 0 '%s'", tmp_dir, path);
  CHECK_INT_EQ(run_pack(t, args), 0);
  CHECK(log_contains("1 duplicates, 4 malformed skipped, 1 incomplete"));
  CHECK(log_contains("bad.tsv:3: expected 9 tab-separated fields"));
  CHECK(log_contains("bad.tsv:4:"));
  CHECK(log_contains("illegal move"));
  CHECK(log_contains("bad wdl '1,2'"));
  CHECK(log_contains("not the labelled"));
  snprintf(dir, sizeof dir, "%s/b", tmp_dir);
  CHECK_INT_EQ(read_pack(t, dir, "train.cfpack", recs), 2);
  snprintf(args, sizeof args, "--out '%s/b' --val-fraction 0 --no-dedup '%s'", tmp_dir, path);
  CHECK_INT_EQ(run_pack(t, args), 0);
  CHECK_INT_EQ(read_pack(t, dir, "train.cfpack", recs), 3);
  snprintf(args, sizeof args, "--out '%s/b' --strict '%s'", tmp_dir, path);
  CHECK(run_pack(t, args) != 0);
  CHECK(log_contains("bad.tsv:3: expected 9"));
}

static void test_usage_errors(cf_test *t) {
  CHECK_INT_EQ(run_pack(t, "--help"), 0);
  CHECK(log_contains("--val-fraction"));
  CHECK_INT_EQ(run_pack(t, "x.tsv"), 2);
  CHECK(log_contains("--out is required: --out DIR"));
  CHECK_INT_EQ(run_pack(t, "--out /tmp/x --input-format 9 x.tsv"), 2);
  CHECK(log_contains("bad value '9' for --input-format: expected a supported input format"));
  CHECK_INT_EQ(run_pack(t, "--out /tmp/x --val-fraction 2 x.tsv"), 2);
  CHECK_INT_EQ(run_pack(t, "-h"), 0);
  CHECK_INT_EQ(run_pack(t, "--out /tmp/x"), 2);
  CHECK(log_contains("no input shards given"));
  char args[512];
  make_tmp();
  snprintf(args, sizeof args, "--out '%s/m' /nonexistent/shard.tsv", tmp_dir);
  CHECK(run_pack(t, args) != 0);
  CHECK(log_contains("cannot open /nonexistent/shard.tsv"));
  /* Last test: remove the scratch folder. */
  snprintf(args, sizeof args, "rm -rf '%s'", tmp_dir);
  CHECK_INT_EQ(system(args), 0);
}

CF_TEST_MAIN(test_records_match_engine_input, test_split_fraction_and_seed,
             test_malformed_duplicates_incomplete, test_usage_errors)
