/* selfplay_openings.c: a PGN file of openings, cut into games at the tag
 * line that follows movetext (the rule of tools/analyse's splitter, here
 * on a file read whole: opening books are small), each parsed by chess/'s
 * PGN reader. */
#include "tools/selfplay/selfplay_openings.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_pgn.h"

/* The most an openings file may hold: a book, not a database. */
#define SP_OPENINGS_MAX_BYTES (64L * 1024 * 1024)

static cf_status read_all(const char *path, char **out, size_t *len, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cf_error_set(err, CF_ERR_IO, "--openings-pgn %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      char *grown = cap * 2 <= (size_t)SP_OPENINGS_MAX_BYTES ? realloc(buf, cap * 2) : NULL;
      if (!grown) {
        free(buf);
        fclose(f);
        return cf_error_set(err, CF_ERR_NOMEM, "--openings-pgn %s: larger than %ld MiB", path,
                            SP_OPENINGS_MAX_BYTES >> 20);
      }
      buf = grown;
      cap *= 2;
    }
    const size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0) break;
  }
  const bool failed = !buf || ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    return cf_error_set(err, CF_ERR_IO, "--openings-pgn %s: read error", path);
  }
  *out = buf;
  *len = n;
  return CF_OK;
}

static cf_status add(sp_openings *o, const cf_pgn_game *g, cf_error *err) {
  sp_opening *grown = realloc(o->items, (size_t)(o->count + 1) * sizeof *grown);
  if (!grown) return cf_error_set(err, CF_ERR_NOMEM, "--openings-pgn: out of memory");
  o->items = grown;
  sp_opening *x = &o->items[o->count];
  x->start = g->start;
  x->n_moves = g->n_moves;
  x->moves = malloc((size_t)(g->n_moves + 1) * sizeof *x->moves);
  if (!x->moves) return cf_error_set(err, CF_ERR_NOMEM, "--openings-pgn: out of memory");
  memcpy(x->moves, g->moves, (size_t)g->n_moves * sizeof *x->moves);
  o->count++;
  return CF_OK;
}

cf_status sp_openings_load(const char *path, sp_openings *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  char *text = NULL;
  size_t len = 0;
  CF_TRY(read_all(path, &text, &len, err));
  cf_pgn_game g = {0};
  cf_status st = CF_OK;
  size_t begin = 0, at = 0;
  long line = 1, begin_line = 1;
  bool moves_seen = false, in_game = false;
  for (;;) {
    const bool eof = at >= len;
    const bool tag = !eof && text[at] == '[';
    if (eof || (tag && moves_seen)) { /* the game so far ends here */
      if (in_game) {
        cf_error e = {0};
        if (cf_pgn_parse_game(text + begin, at - begin, begin_line, &g, &e) != CF_OK) {
          if (g.bad_move)
            st = cf_error_set(err, CF_ERR_FORMAT, "--openings-pgn %s: game %d, ply %d: %s", path,
                              out->count + 1, g.bad_move, e.msg);
          else
            st = cf_error_set(err, CF_ERR_FORMAT, "--openings-pgn %s: game %d: %s", path,
                              out->count + 1, e.msg);
          break;
        }
        if ((st = add(out, &g, err)) != CF_OK) break;
      }
      if (eof) break;
      begin = at, begin_line = line, moves_seen = false;
    }
    /* one line: a tag line opens a game; anything else not blank is movetext */
    size_t end = at;
    while (end < len && text[end] != '\n') end++;
    bool blank = true;
    for (size_t i = at; i < end; i++)
      if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r') blank = false;
    if (!blank && !in_game) begin = at, begin_line = line, in_game = true;
    if (!blank && !tag) moves_seen = true;
    at = end < len ? end + 1 : len;
    line++;
  }
  cf_pgn_game_free(&g);
  free(text);
  if (st == CF_OK && out->count == 0)
    st = cf_error_set(err, CF_ERR_FORMAT, "--openings-pgn %s: no games", path);
  if (st != CF_OK) sp_openings_free(out);
  return st;
}

void sp_openings_free(sp_openings *o) {
  for (int i = 0; i < o->count; i++) free(o->items[i].moves);
  free(o->items);
  memset(o, 0, sizeof *o);
}
