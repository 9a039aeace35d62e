/* pack_data_cmd.c: `cformer pack-data`, Stockfish-labelled TSV shards
 * (training/README.md) -> fixed-size training records (cf_pack_format.h).
 *
 *     cformer pack-data --out DIR [options] SHARD.tsv...
 *
 * Each line's history window is replayed with chess/ and encoded with the
 * engine's own input code (engine/cf_net_input.c, net/cf_net_planes.c), so
 * the trainer sees exactly the planes cformer computes at play time.
 * Positions are split into DIR/train.cfpack and DIR/val.cfpack by game (a
 * hash of game id and --seed), so no game feeds both. Repeated inputs
 * (same 112 planes) are kept once. Malformed lines are skipped and counted
 * (--strict: fail on the first); a last line without its newline is a shard
 * still being written and is left for the next run. The files are written
 * under a temporary name and renamed into place at the end, so repacking a
 * growing data set under a running trainer is safe. Flags (anywhere among
 * the shards): tools/cli/cf_cli.h; exit status 2 for a bad command line
 * (nothing is created), 1 when a shard or the output fails. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/cf_clock.h"
#include "chess/cf_attacks.h"
#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_net_input.h"
#include "net/cf_net_planes.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/pack_data/cf_pack_format.h"

#define PROG "cformer pack-data" /* cf_cli_fail's prefix */

#define TSV_FIELDS 9
#define HISTORY_MOVES_MAX 7
#define MATE_CLAMP_CP 2000 /* mate scores count as this many centipawns in the softmax */
#define ERRORS_SHOWN 5

typedef struct pack_options {
  const char *out_dir;
  int input_format;
  double val_fraction;
  uint64_t seed;
  double policy_temp;
  bool strict, dedup;
  long progress_every;
} pack_options;

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* ---- parsing one line ---------------------------------------------------- */

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

/* Splits line at tabs into exactly n fields (in place). */
static int split_fields(char *line, char **fields, int n) {
  int k = 0;
  fields[k++] = line;
  for (char *p = line; *p; p++)
    if (*p == '\t') {
      if (k == n) return 0;
      *p = '\0';
      fields[k++] = p + 1;
    }
  return k == n;
}

/* The first three FEN fields (pieces, side, castling) agree: the en-passant
 * field and counters may be written differently by other tools. */
static int same_position_fields(const char *a, const char *b) {
  int spaces = 0;
  for (;; a++, b++) {
    if (*a != *b) return 0;
    if (*a == '\0') return 1;
    if (*a == ' ' && ++spaces == 3) return 1;
  }
}

/* Replays the history window and encodes the labelled position. */
static cf_status build_game(char *history_fen, char *moves, long ply, cf_game *game, int *n_moves,
                            cf_error *err) {
  CF_TRY(cf_game_init_fen(game, history_fen, err));
  int n = 0;
  for (char *tok = strtok(moves, " "); tok; tok = strtok(NULL, " ")) {
    if (++n > HISTORY_MOVES_MAX)
      return cf_error_set(err, CF_ERR_FORMAT, "more than %d history moves", HISTORY_MOVES_MAX);
    cf_status st = cf_game_push_uci(game, tok, err);
    if (st != CF_OK) {
      cf_error_prefix(err, "history move %d", n);
      return CF_ERR_FORMAT;
    }
  }
  if (n > ply) return cf_error_set(err, CF_ERR_FORMAT, "%d history moves before ply %ld", n, ply);
  *n_moves = n;
  return CF_OK;
}

static cf_status parse_wdl(const char *text, float wdl[3], cf_error *err) {
  long v[3];
  char buf[64];
  if (strlen(text) >= sizeof buf) return cf_error_set(err, CF_ERR_FORMAT, "wdl field too long");
  strcpy(buf, text);
  char *save = NULL, *tok = strtok_r(buf, ",", &save);
  for (int i = 0; i < 3; i++, tok = strtok_r(NULL, ",", &save))
    if (!tok || !parse_long(tok, 0, 1000, &v[i]))
      return cf_error_set(err, CF_ERR_FORMAT, "bad wdl '%s' (expected W,D,L per mille)", text);
  if (tok) return cf_error_set(err, CF_ERR_FORMAT, "bad wdl '%s' (more than 3 numbers)", text);
  long sum = v[0] + v[1] + v[2];
  if (sum <= 0) return cf_error_set(err, CF_ERR_FORMAT, "wdl '%s' sums to 0", text);
  for (int i = 0; i < 3; i++) wdl[i] = (float)v[i] / (float)sum;
  return CF_OK;
}

static cf_status parse_result(const char *text, int black_to_move, int8_t *out, cf_error *err) {
  int white;
  if (strcmp(text, "1-0") == 0)
    white = 1;
  else if (strcmp(text, "0-1") == 0)
    white = -1;
  else if (strcmp(text, "1/2-1/2") == 0)
    white = 0;
  else if (strcmp(text, "*") == 0) {
    *out = CF_PACK_RESULT_UNKNOWN;
    return CF_OK;
  } else
    return cf_error_set(err, CF_ERR_FORMAT, "bad result '%s'", text);
  *out = (int8_t)(black_to_move ? -white : white);
  return CF_OK;
}

/* A move of the labelled position as its 1858 policy index. */
static cf_status move_index(const cf_position *pos, const char *text, int transform, int *out,
                            cf_error *err) {
  cf_move m;
  CF_TRY(cf_move_parse_uci(pos, text, &m, err));
  int idx = cf_policy_move_index(cf_engine_policy_move(m), pos->side == CF_BLACK, transform);
  if (idx < 0) return cf_error_set(err, CF_ERR_INTERNAL, "move %s has no policy index", text);
  *out = idx;
  return CF_OK;
}

/* "move:cp move:cp ..." -> indices, scores, and softmax probabilities. */
static cf_status parse_multipv(char *text, const cf_position *pos, int transform, double temp,
                               cf_pack_record *r, cf_error *err) {
  int n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (n == CF_PACK_MAX_PV)
      return cf_error_set(err, CF_ERR_FORMAT, "more than %d multipv moves", CF_PACK_MAX_PV);
    char *colon = strchr(tok, ':');
    long cp;
    if (!colon) return cf_error_set(err, CF_ERR_FORMAT, "multipv entry '%s' lacks ':'", tok);
    *colon = '\0';
    if (!parse_long(colon + 1, -100000, 100000, &cp))
      return cf_error_set(err, CF_ERR_FORMAT, "bad multipv score '%s'", colon + 1);
    int idx = -1;
    CF_TRY(move_index(pos, tok, transform, &idx, err));
    for (int i = 0; i < n; i++)
      if (r->policy_index[i] == idx)
        return cf_error_set(err, CF_ERR_FORMAT, "multipv move %s repeated", tok);
    r->policy_index[n] = (uint16_t)idx;
    r->policy_cp[n] = (int32_t)cp;
    n++;
  }
  if (n == 0) return cf_error_set(err, CF_ERR_FORMAT, "empty multipv field");
  double best = -1e9, w[CF_PACK_MAX_PV], sum = 0;
  for (int i = 0; i < n; i++) {
    double cp = r->policy_cp[i];
    if (cp > MATE_CLAMP_CP) cp = MATE_CLAMP_CP;
    if (cp < -MATE_CLAMP_CP) cp = -MATE_CLAMP_CP;
    w[i] = cp / temp;
    if (w[i] > best) best = w[i];
  }
  for (int i = 0; i < n; i++) sum += (w[i] = exp(w[i] - best));
  for (int i = 0; i < n; i++) r->policy_prob[i] = (float)(w[i] / sum);
  r->n_pv = (uint8_t)n;
  return CF_OK;
}

/* One TSV line (without its newline) -> record. */
static cf_status pack_line(char *line, const pack_options *o, cf_pack_record *r, cf_error *err) {
  char *f[TSV_FIELDS];
  if (!split_fields(line, f, TSV_FIELDS))
    return cf_error_set(err, CF_ERR_FORMAT, "expected %d tab-separated fields", TSV_FIELDS);
  long game_id, ply;
  if (!parse_long(f[0], 0, UINT32_MAX, &game_id))
    return cf_error_set(err, CF_ERR_FORMAT, "bad game id '%s'", f[0]);
  if (!parse_long(f[1], 0, UINT16_MAX, &ply))
    return cf_error_set(err, CF_ERR_FORMAT, "bad ply '%s'", f[1]);
  memset(r, 0, sizeof *r);
  for (int i = 0; i < CF_PACK_MAX_PV; i++) r->policy_index[i] = CF_PACK_NO_MOVE;
  r->game_id = (uint32_t)game_id;
  r->ply = (uint16_t)ply;

  cf_game game = {0};
  int n_moves = 0;
  cf_status st = build_game(f[2], f[3], ply, &game, &n_moves, err);
  if (st != CF_OK) {
    cf_game_free(&game);
    return CF_ERR_FORMAT;
  }
  const cf_position *pos = cf_game_position(&game);
  char fen[CF_FEN_MAX];
  cf_position_to_fen(pos, fen);
  if (!same_position_fields(fen, f[4])) {
    cf_game_free(&game);
    return cf_error_set(err, CF_ERR_FORMAT, "history replays to '%s', not the labelled '%s'", fen,
                        f[4]);
  }
  cf_net_position np;
  cf_engine_net_position_window(&game, o->input_format, n_moves == ply, &np);
  cf_planes planes;
  int transform = cf_net_encode_planes(&np, CF_HISTORY_FILL_FEN_ONLY, &planes);
  for (int j = 0; j < CF_PACK_PLANES; j++) {
    r->planes[j] = planes.mask[j];
    /* Piece planes are 0/1 by construction; the record keeps only aux values. */
    if (j >= CF_PACK_AUX_BASE) r->aux_value[j - CF_PACK_AUX_BASE] = planes.value[j];
  }
  r->transform = (uint8_t)transform;
  r->black_to_move = pos->side == CF_BLACK;

  cf_move moves[CF_MAX_MOVES];
  cf_policy_move pmoves[CF_MAX_MOVES];
  int n = cf_engine_legal_policy_moves(pos, moves, pmoves);
  if (n == 0) {
    cf_game_free(&game);
    return cf_error_set(err, CF_ERR_FORMAT, "labelled position has no legal moves");
  }
  for (int i = 0; i < n; i++) {
    int idx = cf_policy_move_index(pmoves[i], r->black_to_move, transform);
    if (idx < 0) {
      cf_game_free(&game);
      return cf_error_set(err, CF_ERR_INTERNAL, "legal move without policy index");
    }
    r->legal[idx / 64] |= 1ull << (idx % 64);
  }
  int best = -1;
  st = move_index(pos, f[5], transform, &best, err);
  if (st == CF_OK) {
    r->best_index = (uint16_t)best;
    st = parse_wdl(f[6], r->sf_wdl, err);
  }
  if (st == CF_OK) st = parse_multipv(f[7], pos, transform, o->policy_temp, r, err);
  if (st == CF_OK) st = parse_result(f[8], r->black_to_move, &r->result, err);
  cf_game_free(&game);
  return st == CF_OK ? CF_OK : CF_ERR_FORMAT;
}

/* ---- dedup: open-addressing set of 64-bit input hashes ------------------- */

typedef struct hash_set {
  uint64_t *slots; /* 0 = empty (a real hash of 0 is stored as 1) */
  size_t cap, used;
} hash_set;

static uint64_t record_input_hash(const cf_pack_record *r) {
  uint64_t h = 0x243F6A8885A308D3ull;
  for (int j = 0; j < CF_PACK_PLANES; j++) h = splitmix64(h ^ r->planes[j]);
  uint32_t bits;
  for (int j = 0; j < 8; j++) {
    memcpy(&bits, &r->aux_value[j], sizeof bits);
    h = splitmix64(h ^ bits);
  }
  return h ? h : 1;
}

/* Adds h; returns 1 if it was new, 0 if present, -1 on allocation failure. */
static int hash_set_add(hash_set *s, uint64_t h) {
  if (2 * (s->used + 1) > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 1u << 16;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i]) {
        size_t k = s->slots[i] & (cap - 1);
        while (slots[k]) k = (k + 1) & (cap - 1);
        slots[k] = s->slots[i];
      }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
  }
  size_t k = h & (s->cap - 1);
  for (; s->slots[k]; k = (k + 1) & (s->cap - 1))
    if (s->slots[k] == h) return 0;
  s->slots[k] = h;
  s->used++;
  return 1;
}

/* ---- output files ---------------------------------------------------------- */

/* Written as NAME.tmp and renamed into place when complete, so a trainer
 * that has the previous file mapped keeps reading it undisturbed. */
typedef struct pack_file {
  FILE *f;
  char path[4096], tmp_path[4100];
  uint64_t count;
} pack_file;

static int write_header(pack_file *p, int input_format) {
  unsigned char h[CF_PACK_HEADER_SIZE] = {0};
  memcpy(h, CF_PACK_MAGIC, 8);
  uint32_t v[4] = {CF_PACK_VERSION, CF_PACK_RECORD_SIZE, (uint32_t)input_format, 0};
  memcpy(h + 8, v, sizeof v); /* the machines we build on are little-endian */
  memcpy(h + 24, &p->count, sizeof p->count);
  return fseek(p->f, 0, SEEK_SET) == 0 && fwrite(h, sizeof h, 1, p->f) == 1;
}

static int open_pack(pack_file *p, const char *dir, const char *name, int input_format) {
  snprintf(p->path, sizeof p->path, "%s/%s", dir, name);
  snprintf(p->tmp_path, sizeof p->tmp_path, "%s.tmp", p->path);
  p->count = 0;
  p->f = fopen(p->tmp_path, "wb");
  return p->f && write_header(p, input_format);
}

/* Finishes the file; keep = 0 discards it (the old file stays). */
static int close_pack(pack_file *p, int input_format, int keep) {
  int ok = write_header(p, input_format);
  ok = (fclose(p->f) == 0) && ok;
  p->f = NULL;
  if (keep && ok) return rename(p->tmp_path, p->path) == 0;
  remove(p->tmp_path);
  return ok;
}

/* ---- the command ------------------------------------------------------------ */

typedef struct pack_stats {
  long lines, malformed, incomplete, duplicates;
} pack_stats;

static void progress(const pack_stats *s, const pack_file *train, const pack_file *val,
                     double t0) {
  double dt = cf_clock_now() - t0;
  fprintf(stderr,
          "pack-data: %ld lines, %" PRIu64 " train + %" PRIu64
          " val records, %ld duplicates, %ld skipped, %.0f lines/s\n",
          s->lines, train->count, val->count, s->duplicates, s->malformed,
          dt > 0 ? (double)s->lines / dt : 0.0);
}

/* --input-format: one the engine encodes. */
static bool check_input_format(void *ctx, const char *value, char *why, size_t why_size) {
  (void)ctx;
  if (cf_input_is_supported(atoi(value))) return true;
  snprintf(why, why_size, "expected a supported input format: 1, 2, 3, 4, 5, 132 or 133");
  return false;
}

/* --policy-temp: above 0. */
static bool check_positive(void *ctx, const char *value, char *why, size_t why_size) {
  (void)ctx;
  if (strtod(value, NULL) > 0) return true;
  snprintf(why, why_size, "expected centipawns above 0");
  return false;
}

/* Packs one shard; returns 0 to go on, or an exit status. */
static int pack_shard(const char *path, const pack_options *o, hash_set *seen, pack_file *train,
                      pack_file *val, pack_stats *s, double t0) {
  FILE *in = fopen(path, "r");
  if (!in) return cf_cli_fail(PROG, "cannot open %s: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  long lineno = 0;
  int rc = 0;
  cf_pack_record rec;
  while (rc == 0 && (len = getline(&line, &cap, in)) >= 0) {
    lineno++;
    if (len == 0 || line[len - 1] != '\n') { /* the shard's writer is mid-line */
      s->incomplete++;
      break;
    }
    line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    s->lines++;
    cf_error err = {0};
    if (pack_line(line, o, &rec, &err) != CF_OK) {
      s->malformed++;
      if (o->strict) {
        rc = cf_cli_fail(PROG, "%s:%ld: %s", path, lineno, err.msg);
        break;
      }
      if (s->malformed <= ERRORS_SHOWN)
        fprintf(stderr, "pack-data: skipping %s:%ld: %s\n", path, lineno, err.msg);
      continue;
    }
    if (o->dedup) {
      int added = hash_set_add(seen, record_input_hash(&rec));
      if (added < 0) {
        rc = cf_cli_fail(PROG, "out of memory");
        break;
      }
      if (added == 0) {
        s->duplicates++;
        continue;
      }
    }
    double u = (double)(splitmix64(o->seed * 0x100000001B3ull ^ rec.game_id) >> 11) * 0x1p-53;
    pack_file *dst = u < o->val_fraction ? val : train;
    if (fwrite(&rec, sizeof rec, 1, dst->f) != 1) {
      rc = cf_cli_fail(PROG, "cannot write %s: %s", dst->path, strerror(errno));
      break;
    }
    dst->count++;
    if (o->progress_every && s->lines % o->progress_every == 0) progress(s, train, val, t0);
  }
  if (rc == 0 && ferror(in)) rc = cf_cli_fail(PROG, "cannot read %s: %s", path, strerror(errno));
  free(line);
  fclose(in);
  return rc;
}

static int pack(const pack_options *op, const char *const *shards, int n_shards);

int cf_cmd_pack_data(int argc, char **argv) {
  pack_options o = {NULL, 4, 0.05, 1, 100.0, false, true, 100000};
  bool no_dedup = false;
  cf_cli_flag flags[] = {
      {.name = "out", .kind = CF_CLI_STRING, .dest = &o.out_dir, .arg = "DIR",
       .attrs = CF_CLI_REQUIRED, .help = "output folder (created if missing; files are replaced)"},
      {.name = "input-format", .kind = CF_CLI_INT, .dest = &o.input_format, .imin = 0,
       .imax = 1000, .set = check_input_format,
       .help = "network input format: 1, 2, 3, 4, 5, 132, 133 (default 4)"},
      {.name = "val-fraction", .kind = CF_CLI_DOUBLE, .dest = &o.val_fraction, .arg = "F",
       .dmin = 0, .dmax = 1, .help = "share of games written to val.cfpack, 0-1 (default 0.05)"},
      {.name = "seed", .kind = CF_CLI_U64, .dest = &o.seed, .arg = "S",
       .help = "seed of the game split (default 1)"},
      {.name = "policy-temp", .kind = CF_CLI_DOUBLE, .dest = &o.policy_temp, .arg = "CP",
       .dmin = 0, .dmax = 1e6, .set = check_positive,
       .help = "softmax temperature of the MultiPV policy target in\ncentipawns (default 100)"},
      {.name = "no-dedup", .kind = CF_CLI_BOOL, .dest = &no_dedup,
       .help = "keep positions whose input planes repeat"},
      {.name = "strict", .kind = CF_CLI_BOOL, .dest = &o.strict,
       .help = "fail on the first malformed line instead of skipping it"},
      {.name = "progress-every", .kind = CF_CLI_LONG, .dest = &o.progress_every, .imin = 0,
       .imax = LONG_MAX,
       .help = "progress line on stderr every N input lines (default 100000,\n0 = none)"},
  };
  cf_cli_spec spec = {
      .prog = "cformer pack-data", .version = "cformer " CF_VERSION,
      .usage = "usage: cformer pack-data --out DIR [options] SHARD.tsv...\n\n"
               "Packs Stockfish-labelled TSV shards (training/README.md) into fixed-size records\n"
               "(tools/pack_data/cf_pack_format.h) in DIR/train.cfpack and DIR/val.cfpack.\n\n",
      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
      .positional_name = "SHARD.tsv"};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  o.dedup = !no_dedup;
  if (spec.positional.count == 0) {
    cf_cli_free(&spec);
    return cf_cli_usage_error(&spec, "no input shards given: SHARD.tsv...");
  }
  rc = pack(&o, spec.positional.items, spec.positional.count);
  cf_cli_free(&spec);
  return rc;
}

static int pack(const pack_options *op, const char *const *shards, int n_shards) {
  const pack_options o = *op;
  int rc;
  cf_chess_init();
  if (mkdir(o.out_dir, 0777) != 0 && errno != EEXIST)
    return cf_cli_fail(PROG, "cannot create %s: %s", o.out_dir, strerror(errno));
  pack_file train = {0}, val = {0};
  if (!open_pack(&train, o.out_dir, "train.cfpack", o.input_format) ||
      !open_pack(&val, o.out_dir, "val.cfpack", o.input_format)) {
    rc = cf_cli_fail(PROG, "cannot write in %s: %s", o.out_dir, strerror(errno));
    if (train.f) close_pack(&train, o.input_format, 0);
    return rc;
  }
  hash_set seen = {0};
  pack_stats s = {0};
  double t0 = cf_clock_now();
  rc = 0;
  for (int i = 0; i < n_shards && rc == 0; i++)
    rc = pack_shard(shards[i], &o, &seen, &train, &val, &s, t0);
  free(seen.slots);
  int ok = close_pack(&train, o.input_format, rc == 0);
  ok = close_pack(&val, o.input_format, rc == 0) && ok;
  if (rc) return 1;
  if (!ok) return cf_cli_fail(PROG, "cannot finish the files in %s: %s", o.out_dir, strerror(errno));
  progress(&s, &train, &val, t0);
  printf("packed %ld lines: %" PRIu64 " train, %" PRIu64
         " val records (input format %d), %ld duplicates, %ld malformed skipped, %ld incomplete "
         "last lines left\n",
         s.lines, train.count, val.count, o.input_format, s.duplicates, s.malformed,
         s.incomplete);
  return 0;
}
