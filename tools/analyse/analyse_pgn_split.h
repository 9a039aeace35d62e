/* analyse_pgn_split.h: a PGN file cut into games by lines alone, before any
 * game is parsed, so that a broken game (an unclosed comment, junk, a
 * missing result) ends where the next game's tags begin and never takes
 * the next games with it.
 *
 * The rule: a line starting with '[' begins a new game unless the current
 * game has had nothing but tag lines so far. Blank lines and lines before
 * the first game are nobody's. A game's text is kept up to
 * ANALYSE_GAME_TEXT_MAX bytes; a longer game, or one with a line longer
 * than ANALYSE_LINE_MAX, is reported as such (and still delimited). */
#ifndef ANALYSE_PGN_SPLIT_H
#define ANALYSE_PGN_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "tools/analyse/analyse_lines.h"

#define ANALYSE_GAME_TEXT_MAX (4 * 1024 * 1024)

typedef struct analyse_pgn_split {
  analyse_lines *lines;
  char *text; /* the game's text */
  size_t len, cap;
  long first_line;  /* its first line */
  long bad_line;    /* > 0: that line was too long, or the game too long from there */
  bool too_long_game;
  /* the '[' line that ended the last game, which opens the next one */
  char *held;
  size_t held_len;
  long held_line;
  bool held_overlong, has_held;
} analyse_pgn_split;

cf_status analyse_pgn_split_init(analyse_pgn_split *s, analyse_lines *lines, cf_error *err);

/* The next game's text in s->text[0 .. s->len), first_line, bad_line.
 * Returns 1 for a game, 0 at the end of the file, -1 on a read error. */
int analyse_pgn_split_next(analyse_pgn_split *s, cf_error *err);

void analyse_pgn_split_free(analyse_pgn_split *s);

#endif /* ANALYSE_PGN_SPLIT_H */
