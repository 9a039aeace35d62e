/* analyse_pgn_split.c: games of a PGN file by the line rule of
 * analyse_pgn_split.h. */
#include "tools/analyse/analyse_pgn_split.h"

#include <stdlib.h>
#include <string.h>

cf_status analyse_pgn_split_init(analyse_pgn_split *s, analyse_lines *lines, cf_error *err) {
  memset(s, 0, sizeof *s);
  s->lines = lines;
  s->held = malloc(ANALYSE_LINE_MAX + 1);
  if (!s->held) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  return CF_OK;
}

static bool blank(const char *line, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') return false;
  return true;
}

/* Appends a line and its newline, within the cap. */
static cf_status append(analyse_pgn_split *s, const char *line, size_t len, long line_no,
                        bool overlong, cf_error *err) {
  if (overlong && !s->bad_line) s->bad_line = line_no;
  if (s->too_long_game) return CF_OK;
  if (s->len + len + 1 > ANALYSE_GAME_TEXT_MAX) {
    s->too_long_game = true;
    if (!s->bad_line) s->bad_line = line_no;
    return CF_OK;
  }
  if (s->len + len + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 64 * 1024;
    while (cap < s->len + len + 1) cap *= 2;
    char *grown = realloc(s->text, cap);
    if (!grown) return cf_error_set(err, CF_ERR_NOMEM, "out of memory reading a game");
    s->text = grown;
    s->cap = cap;
  }
  memcpy(s->text + s->len, line, len);
  s->len += len;
  s->text[s->len++] = '\n';
  return CF_OK;
}

int analyse_pgn_split_next(analyse_pgn_split *s, cf_error *err) {
  enum { EMPTY, TAGS, BODY } state = EMPTY;
  s->len = 0;
  s->bad_line = 0;
  s->too_long_game = false;
  if (s->has_held) {
    s->has_held = false;
    s->first_line = s->held_line;
    if (append(s, s->held, s->held_len, s->held_line, s->held_overlong, err) != CF_OK) return -1;
    state = TAGS;
  }
  for (;;) {
    const char *line;
    size_t len;
    bool overlong;
    int rc = analyse_lines_next(s->lines, &line, &len, &overlong, err);
    if (rc < 0) return -1;
    if (rc == 0) return state != EMPTY;
    const bool is_blank = blank(line, len);
    if (state == EMPTY && is_blank) continue;
    if (line[0] == '[' && state == BODY) { /* the next game's first tag */
      memcpy(s->held, line, len + 1);
      s->held_len = len;
      s->held_line = s->lines->line;
      s->held_overlong = overlong;
      s->has_held = true;
      return 1;
    }
    if (state == EMPTY) s->first_line = s->lines->line;
    if (append(s, line, len, s->lines->line, overlong, err) != CF_OK) return -1;
    if (state == EMPTY) state = line[0] == '[' ? TAGS : BODY;
    else if (state == TAGS && line[0] != '[') state = BODY;
  }
}

void analyse_pgn_split_free(analyse_pgn_split *s) {
  free(s->text);
  free(s->held);
  s->text = s->held = NULL;
}
