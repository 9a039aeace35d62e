/* cf_pgn.h: one game of Portable Game Notation parsed into its tags, start
 * position and moves (the mainline; variations are skipped).
 *
 *     cf_pgn_game g = {0};
 *     if (cf_pgn_parse_game(text, len, first_line, &g, &err) != CF_OK)
 *       ... err.msg names the line and what is wrong; skip the game ...
 *     g.start, g.moves[0 .. n_moves-1], g.result, cf_pgn_tag_value(&g, "White")
 *     cf_pgn_game_free(&g);
 *
 * The text is exactly one game (its tag section and movetext); splitting a
 * file into games is the reader's job (tools/analyse/analyse_pgn_split.h),
 * so one broken game can never swallow the next. Read: tags with escaped
 * quotes; SAN moves checked against the move generator (cf_san.h); move
 * numbers ("12." "12..."); {comments} over several lines, ";" comments and
 * "%" escape lines; NAGs ($n) and suffix glyphs; (variations), nested,
 * skipped; the result token. The FEN tag sets the start position (X-FEN or
 * Shredder-FEN castling), and Variant "Chess960" (or "Fischerandom") is
 * accepted, as are "Standard" and "From Position"; any other variant is
 * CF_ERR_UNSUPPORTED. Everything else malformed (bad or illegal SAN, an
 * unterminated comment or variation, a bad FEN tag, a control byte, text
 * after the result) is CF_ERR_FORMAT with the line number in the message. */
#ifndef CF_PGN_H
#define CF_PGN_H

#include <stddef.h>

#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "common/cf_status.h"

#define CF_PGN_TAGS_MAX 32     /* tags kept per game; later ones are read and dropped */
#define CF_PGN_TAG_NAME_MAX 32
#define CF_PGN_TAG_VALUE_MAX 256
#define CF_PGN_MOVES_MAX 4096  /* plies per game: a longer "game" is not a game */

typedef struct cf_pgn_tag {
  char name[CF_PGN_TAG_NAME_MAX];
  char value[CF_PGN_TAG_VALUE_MAX]; /* unescaped; a longer value is cut */
} cf_pgn_tag;

typedef struct cf_pgn_game {
  cf_pgn_tag tags[CF_PGN_TAGS_MAX];
  int n_tags;
  cf_position start; /* the FEN tag's position, else the standard start */
  cf_move *moves;    /* owned: the mainline, n_moves of them */
  int n_moves, cap;
  char result[8];    /* "1-0", "0-1", "1/2-1/2", "*"; "" when the movetext has none */
  int bad_move;      /* after an error at a move (malformed or illegal SAN): its ply
                        (1-based), moves[] holding the legal ones before it; else 0 */
} cf_pgn_game;

/* Parses text[0 .. len) (need not be NUL-terminated; may hold any bytes)
 * into *g, reusing its move array. first_line is the number of the text's
 * first line in its file, for messages. On error g holds what was read
 * before it, and g->bad_move says whether the error was at a move. */
cf_status cf_pgn_parse_game(const char *text, size_t len, long first_line, cf_pgn_game *g,
                            cf_error *err);

/* The value of tag name, or NULL. */
const char *cf_pgn_tag_value(const cf_pgn_game *g, const char *name);

/* Releases the move array; accepts an all-zero game. */
void cf_pgn_game_free(cf_pgn_game *g);

#endif /* CF_PGN_H */
