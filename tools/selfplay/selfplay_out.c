/* selfplay_out.c: PGN out and the --resume scan (selfplay_out.h). */
#include "tools/selfplay/selfplay_out.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chess/cf_fen.h"
#include "chess/cf_san.h"
#include "tools/chunks/cf_chunk_file.h"

/* A growing text buffer: the game is built whole, then written at once. */
typedef struct text {
  char *s;
  size_t n, cap;
  bool failed;
} text;

static void addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int k = t->failed ? 0 : vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (t->failed || k < 0) {
      t->failed = true;
      return;
    }
    if (t->s && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    const size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)k;
    char *grown = realloc(t->s, cap);
    if (!grown) {
      t->failed = true;
      return;
    }
    t->s = grown;
    t->cap = cap;
  }
}

cf_status sp_pgn_write(FILE *f, const sp_game *g, long round, cf_error *err) {
  char date[16];
  const time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y.%m.%d", &tm);
  const char *res = cf_game_result_name(g->result);
  text t = {0};
  addf(&t, "[Event \"cformer selfplay\"]\n[Site \"local\"]\n[Date \"%s\"]\n[Round \"%ld\"]\n", date,
       round);
  addf(&t, "[White \"cformer\"]\n[Black \"cformer\"]\n[Result \"%s\"]\n", res);
  const cf_position *start = &g->game.plies[0].pos;
  cf_position standard;
  cf_position_startpos(&standard);
  if (!cf_position_same(start, &standard)) {
    char fen[CF_FEN_MAX];
    cf_position_to_fen(start, fen);
    addf(&t, "[SetUp \"1\"]\n[FEN \"%s\"]\n", fen);
  }
  addf(&t, "[Termination \"%s\"]\n[PlyCount \"%d\"]\n\n",
       g->adjudicated ? "adjudication" : "normal", g->game.count - 1);
  int col = 0;
  for (int k = 1; k < g->game.count; k++) {
    const cf_position *before = &g->game.plies[k - 1].pos;
    char san[CF_SAN_MAX], num[24] = "";
    cf_san_write(before, g->game.plies[k].move, san);
    if (before->side == CF_WHITE) snprintf(num, sizeof num, "%d. ", before->fullmove);
    else if (k == 1) snprintf(num, sizeof num, "%d... ", before->fullmove);
    const int len = (int)(strlen(num) + strlen(san) + 1);
    if (col > 0 && col + len > 79) {
      addf(&t, "\n");
      col = 0;
    }
    addf(&t, "%s%s ", num, san);
    col += len;
  }
  addf(&t, "{%s} %s\n\n", g->reason, res);
  cf_status st = CF_OK;
  if (t.failed) st = cf_error_set(err, CF_ERR_NOMEM, "selfplay: out of memory for a PGN game");
  else if (fwrite(t.s, 1, t.n, f) != t.n || fflush(f) != 0)
    st = cf_error_set(err, CF_ERR_IO, "selfplay: writing the PGN failed: %s", strerror(errno));
  free(t.s);
  return st;
}

/* The whole games of a PGN file this command wrote: each ends with its
 * result line and a blank line. A cut-off tail is removed from the file. */
static cf_status scan_pgn(const char *path, long games, bool *done, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) return CF_OK; /* nothing written yet */
    return cf_error_set(err, CF_ERR_IO, "--pgn %s: %s", path, strerror(errno));
  }
  char line[1024];
  long round = 0, whole_end = 0, pos = 0;
  bool in_moves = false;
  while (fgets(line, sizeof line, f)) {
    pos += (long)strlen(line);
    if (sscanf(line, "[Round \"%ld\"]", &round) == 1) in_moves = false;
    else if (line[0] == '\n' && in_moves) { /* the blank line after the movetext */
      if (round >= 1 && round <= games) done[round - 1] = true;
      whole_end = pos;
      in_moves = false, round = 0;
    } else if (line[0] != '[' && line[0] != '\n') in_moves = true;
  }
  const bool bad = ferror(f);
  fclose(f);
  if (bad) return cf_error_set(err, CF_ERR_IO, "--pgn %s: read error", path);
  if (whole_end < pos && truncate(path, whole_end) != 0)
    return cf_error_set(err, CF_ERR_IO, "--pgn %s: cannot cut off the unfinished game: %s", path,
                        strerror(errno));
  return CF_OK;
}

static cf_status scan_chunks(const char *dir, long games, bool *done, bool mark, cf_error *err) {
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT) return CF_OK;
    return cf_error_set(err, CF_ERR_IO, "--training %s: %s", dir, strerror(errno));
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    long n;
    char tail[8];
    const size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' && len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      remove(path); /* a chunk a killed run never finished */
    } else if (mark && sscanf(e->d_name, "training.%ld.%3s", &n, tail) == 2 &&
               strcmp(tail, "gz") == 0 && n >= 1 && n <= games) {
      done[n - 1] = true;
    }
  }
  closedir(d);
  return CF_OK;
}

cf_status sp_resume_scan(const char *pgn_path, const char *training_dir, long games, bool *done,
                         long *n_done, cf_error *err) {
  if (pgn_path) CF_TRY(scan_pgn(pgn_path, games, done, err));
  if (training_dir) CF_TRY(scan_chunks(training_dir, games, done, pgn_path == NULL, err));
  *n_done = 0;
  for (long i = 0; i < games; i++) *n_done += done[i];
  return CF_OK;
}

bool sp_dir_has_chunks(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool found = false;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    const size_t len = strlen(e->d_name);
    found = strncmp(e->d_name, "training.", 9) == 0 && len > 12 &&
            strcmp(e->d_name + len - 3, ".gz") == 0;
  }
  closedir(d);
  return found;
}
