/* cf_pgn.c: one PGN game's text into tags, start position and mainline
 * moves (cf_pgn.h). A single pass over the bytes with a line counter; the
 * moves are played on a position as they are read, so the first bad move
 * stops the game with its line. */
#include "chess/cf_pgn.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chess/cf_fen.h"
#include "chess/cf_san.h"

typedef struct cursor {
  const char *s;
  size_t at, len;
  long line;
} cursor;

static int peek(const cursor *c) { return c->at < c->len ? (unsigned char)c->s[c->at] : -1; }

static void advance(cursor *c) {
  if (c->s[c->at++] == '\n') c->line++;
}

static bool is_space(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

/* A byte no PGN text holds outside comments and tag values. */
static bool is_junk(int ch) { return ch < 0x20 && !is_space(ch); }

static bool at_line_start(const cursor *c) { return c->at == 0 || c->s[c->at - 1] == '\n'; }

static void skip_line(cursor *c) {
  while (peek(c) >= 0 && peek(c) != '\n') advance(c);
}

/* {comment}: to the closing brace, over lines. */
static cf_status skip_comment(cursor *c, cf_error *err) {
  long opened = c->line;
  advance(c);
  while (peek(c) >= 0 && peek(c) != '}') advance(c);
  if (peek(c) < 0) return cf_error_set(err, CF_ERR_FORMAT, "line %ld: unterminated comment", opened);
  advance(c);
  return CF_OK;
}

/* (variation): to the matching parenthesis, skipping nested ones and the
 * comments inside (a brace in a comment does not count). */
static cf_status skip_variation(cursor *c, cf_error *err) {
  long opened = c->line;
  int depth = 0;
  while (peek(c) >= 0) {
    int ch = peek(c);
    if (ch == '{') {
      CF_TRY(skip_comment(c, err));
      continue;
    }
    if (ch == ';') {
      skip_line(c);
      continue;
    }
    advance(c);
    if (ch == '(') depth++;
    if (ch == ')' && --depth == 0) return CF_OK;
  }
  return cf_error_set(err, CF_ERR_FORMAT, "line %ld: unterminated variation", opened);
}

/* [Name "value"] on one line. */
static cf_status read_tag(cursor *c, cf_pgn_game *g, cf_error *err) {
  const long line = c->line;
  advance(c); /* '[' */
  while (peek(c) == ' ' || peek(c) == '\t') advance(c);
  char name[CF_PGN_TAG_NAME_MAX];
  size_t n = 0;
  while (peek(c) >= 0 && !is_space(peek(c)) && peek(c) != '"' && peek(c) != ']') {
    if (n + 1 >= sizeof name) return cf_error_set(err, CF_ERR_FORMAT, "line %ld: tag name too long", line);
    name[n++] = (char)peek(c);
    advance(c);
  }
  name[n] = 0;
  while (peek(c) == ' ' || peek(c) == '\t') advance(c);
  if (n == 0 || peek(c) != '"') return cf_error_set(err, CF_ERR_FORMAT, "line %ld: malformed tag", line);
  advance(c);
  char value[CF_PGN_TAG_VALUE_MAX];
  size_t v = 0;
  for (;;) {
    int ch = peek(c);
    if (ch < 0 || ch == '\n') return cf_error_set(err, CF_ERR_FORMAT, "line %ld: unterminated tag value", line);
    advance(c);
    if (ch == '"') break;
    if (ch == '\\' && (peek(c) == '"' || peek(c) == '\\')) {
      ch = peek(c);
      advance(c);
    }
    if (v + 1 < sizeof value) value[v++] = (char)ch;
  }
  value[v] = 0;
  while (peek(c) == ' ' || peek(c) == '\t') advance(c);
  if (peek(c) != ']') return cf_error_set(err, CF_ERR_FORMAT, "line %ld: malformed tag", line);
  advance(c);
  if (g->n_tags < CF_PGN_TAGS_MAX) {
    cf_pgn_tag *t = &g->tags[g->n_tags++];
    memcpy(t->name, name, n + 1);
    memcpy(t->value, value, v + 1);
  }
  return CF_OK;
}

/* After the tags: the start position from FEN and Variant. */
static cf_status start_position(cf_pgn_game *g, long line, cf_error *err) {
  const char *variant = cf_pgn_tag_value(g, "Variant");
  if (variant && *variant && strcasecmp(variant, "standard") != 0 &&
      strcasecmp(variant, "chess960") != 0 && strcasecmp(variant, "chess 960") != 0 &&
      strcasecmp(variant, "fischerandom") != 0 && strcasecmp(variant, "from position") != 0)
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "line %ld: variant '%s' is not chess", line, variant);
  const char *fen = cf_pgn_tag_value(g, "FEN");
  if (!fen) {
    cf_position_startpos(&g->start);
    return CF_OK;
  }
  cf_error why;
  if (cf_position_from_fen(&g->start, fen, &why) != CF_OK)
    return cf_error_set(err, CF_ERR_FORMAT, "line %ld: bad FEN tag: %s", line, why.msg);
  return CF_OK;
}

static cf_status push_move(cf_pgn_game *g, cf_move m, long line, cf_error *err) {
  if (g->n_moves == g->cap) {
    if (g->cap >= CF_PGN_MOVES_MAX)
      return cf_error_set(err, CF_ERR_FORMAT, "line %ld: more than %d plies", line, CF_PGN_MOVES_MAX);
    int cap = g->cap ? 2 * g->cap : 256;
    cf_move *grown = realloc(g->moves, (size_t)cap * sizeof *grown);
    if (!grown) return cf_error_set(err, CF_ERR_NOMEM, "out of memory reading a game");
    g->moves = grown;
    g->cap = cap;
  }
  g->moves[g->n_moves++] = m;
  return CF_OK;
}

static bool is_result(const char *t) {
  return strcmp(t, "1-0") == 0 || strcmp(t, "0-1") == 0 || strcmp(t, "1/2-1/2") == 0 ||
         strcmp(t, "*") == 0;
}

/* Where a movetext token ends. */
static bool is_delimiter(int ch) { return ch < 0 || is_space(ch) || strchr("{}();[]$", ch); }

cf_status cf_pgn_parse_game(const char *text, size_t len, long first_line, cf_pgn_game *g,
                            cf_error *err) {
  g->n_tags = 0;
  g->n_moves = 0;
  g->bad_move = 0;
  g->result[0] = 0;
  cf_position_startpos(&g->start);
  cursor c = {.s = text, .len = len, .line = first_line};
  bool in_moves = false;
  cf_position pos = g->start;
  for (;;) {
    int ch = peek(&c);
    if (ch < 0) break;
    if (is_space(ch)) {
      advance(&c);
      continue;
    }
    if (ch == '%' && at_line_start(&c)) {
      skip_line(&c);
      continue;
    }
    if (ch == ';') {
      skip_line(&c);
      continue;
    }
    if (ch == '{') {
      CF_TRY(skip_comment(&c, err));
      continue;
    }
    if (ch == '[' && !in_moves) {
      CF_TRY(read_tag(&c, g, err));
      continue;
    }
    if (!in_moves) {
      CF_TRY(start_position(g, c.line, err));
      pos = g->start;
      in_moves = true;
    }
    if (is_junk(ch) || ch == 0x7f)
      return cf_error_set(err, CF_ERR_FORMAT, "line %ld: control byte 0x%02x in the moves", c.line, ch);
    if (g->result[0])
      return cf_error_set(err, CF_ERR_FORMAT, "line %ld: moves after the result", c.line);
    if (ch == '(') {
      CF_TRY(skip_variation(&c, err));
      continue;
    }
    if (ch == ')' || ch == '}' || ch == '[' || ch == ']')
      return cf_error_set(err, CF_ERR_FORMAT, "line %ld: unexpected '%c'", c.line, ch);
    if (ch == '$') { /* NAG */
      advance(&c);
      while (peek(&c) >= '0' && peek(&c) <= '9') advance(&c);
      continue;
    }
    char tok[40];
    size_t n = 0;
    while (!is_delimiter(peek(&c))) {
      if (n + 1 < sizeof tok) tok[n] = (char)peek(&c);
      n++;
      advance(&c);
    }
    if (n + 1 > sizeof tok) {
      g->bad_move = g->n_moves + 1;
      return cf_error_set(err, CF_ERR_FORMAT, "line %ld: malformed move '%.24s...'", c.line, tok);
    }
    tok[n] = 0;
    if (is_result(tok)) {
      memcpy(g->result, tok, n + 1);
      continue;
    }
    /* a move number ("12." "12..."), possibly glued to the move ("12.e4") */
    const char *san = tok;
    size_t digits = strspn(tok, "0123456789");
    if (digits > 0 && tok[digits] == '.') {
      san = tok + digits + strspn(tok + digits, ".");
      if (!*san) continue;
    }
    if (strspn(san, ".") == strlen(san)) continue; /* a lone "..." */
    cf_move m;
    cf_error why;
    if (cf_san_parse(&pos, san, &m, &why) != CF_OK) {
      g->bad_move = g->n_moves + 1;
      return cf_error_set(err, CF_ERR_FORMAT, "line %ld: %s (ply %d)", c.line, why.msg,
                          g->n_moves + 1);
    }
    CF_TRY(push_move(g, m, c.line, err));
    cf_undo undo;
    cf_position_make(&pos, m, &undo);
  }
  if (!in_moves) CF_TRY(start_position(g, c.line, err));
  return CF_OK;
}

const char *cf_pgn_tag_value(const cf_pgn_game *g, const char *name) {
  for (int i = 0; i < g->n_tags; i++)
    if (strcmp(g->tags[i].name, name) == 0) return g->tags[i].value;
  return NULL;
}

void cf_pgn_game_free(cf_pgn_game *g) {
  free(g->moves);
  g->moves = NULL;
  g->n_moves = g->cap = 0;
}
