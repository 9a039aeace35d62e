/* analyse_pgn_out.c: annotated PGN (analyse_pgn_out.h). The records of one
 * game are kept (a few numbers and the best line per ply) until its last
 * position, then the game is written in one go. */
#include "tools/analyse/analyse_pgn_out.h"

#include <stdlib.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "chess/cf_san.h"
#include "engine/uci/cf_uci_score.h"

#define LINE_SHOWN 8 /* moves of the better line shown as a variation */

/* The analysis of one position, from its side to move. */
typedef struct ply_note {
  float score;  /* expected score */
  float wdl[3];
  int mate;     /* > 0 mates in this many moves, < 0 is mated; 0 none known */
  analyse_terminal terminal;
  int depth;    /* the search's; 0 net-only */
  cf_move best; /* the engine's choice (CF_MOVE_NONE when none) */
  float best_wdl[3]; /* its line's W/D/L and mate */
  int best_mate;
  int line_len;
  cf_move line[LINE_SHOWN];
} ply_note;

struct analyse_pgn_out {
  FILE *out;
  ply_note *notes;
  int n, cap;
  long games;
  size_t col; /* characters on the movetext line so far */
};

cf_status analyse_pgn_out_create(FILE *out, analyse_pgn_out **w, cf_error *err) {
  *w = calloc(1, sizeof **w);
  if (!*w) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  (*w)->out = out;
  return CF_OK;
}

/* Movetext in lines of at most 79 characters. */
static void word(analyse_pgn_out *w, const char *s) {
  size_t n = strlen(s);
  if (w->col > 0 && w->col + 1 + n > 79) {
    fputc('\n', w->out);
    w->col = 0;
  }
  if (w->col > 0) {
    fputc(' ', w->out);
    w->col++;
  }
  fputs(s, w->out);
  w->col += n;
}

/* A comment: "{", the annotations ("[%eval 0.25] [%wdl ...]") and the
 * brace as one word, so no line of movetext starts with "[" (which readers
 * take for a tag: cformer's own splitter does), then the prose word by
 * word, so long lines wrap too. */
static void comment(analyse_pgn_out *w, const char *annotations, const char *prose) {
  char buf[1024];
  snprintf(buf, sizeof buf, "{%s%s", annotations[0] ? " " : "", annotations);
  word(w, buf);
  snprintf(buf, sizeof buf, "%s", prose);
  char *save = NULL;
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) word(w, t);
  word(w, "}");
}

static const char *mark(float loss, const char **name) {
  if (loss >= ANALYSE_BLUNDER) return *name = "Blunder", "??";
  if (loss >= ANALYSE_MISTAKE) return *name = "Mistake", "?";
  if (loss >= ANALYSE_INACCURACY) return *name = "Inaccuracy", "?!";
  return *name = NULL, NULL;
}

/* "[%eval E] [%wdl W D L]" of a position whose side to move is `side`, in
 * White's view as GUIs read it: pawns from the engine's default centipawn
 * score (Lc0's WDL_mu, cf_uci_score.h), "#N" a mate in N moves (negative:
 * Black mates), "#0" the side to move is checkmated; W/D/L per mille. */
static size_t eval_text(char *out, size_t size, int side, const float wdl_stm[3], int mate,
                        analyse_terminal terminal, int depth) {
  const int sign = side == CF_WHITE ? 1 : -1;
  char depth_text[16] = "";
  if (depth > 0) snprintf(depth_text, sizeof depth_text, ",%d", depth);
  if (terminal == ANALYSE_CHECKMATE) return (size_t)snprintf(out, size, "[%%eval #0]");
  if (mate != 0) return (size_t)snprintf(out, size, "[%%eval #%d%s]", sign * mate, depth_text);
  const float wl = wdl_stm[0] - wdl_stm[2];
  char cp_text[32];
  long cp = 0;
  cf_uci_score_text("WDL_mu", wl, wdl_stm[1], wl, 0, cp_text, sizeof cp_text);
  if (sscanf(cp_text, "cp %ld", &cp) != 1) cp = 0;
  if (terminal == ANALYSE_STALEMATE) cp = 0;
  cp *= sign;
  int pm[3];
  cf_uci_wdl_from_wl(wl, wdl_stm[1], pm);
  if (sign < 0) {
    int t = pm[0];
    pm[0] = pm[2];
    pm[2] = t;
  }
  return (size_t)snprintf(out, size, "[%%eval %s%ld.%02ld%s] [%%wdl %d %d %d]",
                          cp < 0 ? "-" : "", labs(cp) / 100, labs(cp) % 100, depth_text, pm[0],
                          pm[1], pm[2]);
}

/* The move number before a move: "12." for White, "12..." for Black when
 * asked (the first move of the game or of a variation, or after one). */
static void move_number(analyse_pgn_out *w, const cf_position *pos, bool black_too) {
  if (pos->side != CF_WHITE && !black_too) return;
  char num[24];
  snprintf(num, sizeof num, "%d.%s", pos->fullmove, pos->side == CF_WHITE ? "" : "..");
  word(w, num);
}

/* The better line as a variation: ( N. best { [%eval ...] } reply ... ),
 * the value its first move leaves in the eval of the position after it. */
static void variation(analyse_pgn_out *w, const cf_position *from, const ply_note *before) {
  cf_position line = *from;
  char san[CF_SAN_MAX], text[160];
  word(w, "(");
  for (int i = 0; i < before->line_len; i++) {
    move_number(w, &line, i == 0);
    cf_san_write(&line, before->line[i], san);
    word(w, san);
    cf_undo undo;
    cf_position_make(&line, before->line[i], &undo);
    if (i > 0) continue;
    /* the mover's W/D/L and mate seen from the side to move after it */
    const float wdl[3] = {before->best_wdl[2], before->best_wdl[1], before->best_wdl[0]};
    const int m = before->best_mate;
    const int mate = m > 0 ? -(m - 1) : -m;
    cf_movelist replies;
    analyse_terminal over = ANALYSE_PLAYING; /* the move ends the game: exact */
    if (cf_generate_legal(&line, &replies) == 0)
      over = cf_position_in_check(&line) ? ANALYSE_CHECKMATE : ANALYSE_STALEMATE;
    const float drawn[3] = {0, 1, 0};
    eval_text(text, sizeof text, line.side, over == ANALYSE_STALEMATE ? drawn : wdl,
              over == ANALYSE_PLAYING ? mate : 0, over, 0);
    comment(w, text, "");
  }
  word(w, ")");
}

static void write_game(analyse_pgn_out *w, const analyse_unit *u) {
  for (int i = 0; i < u->pgn.n_tags; i++) {
    fprintf(w->out, "[%s \"", u->pgn.tags[i].name);
    for (const char *c = u->pgn.tags[i].value; *c; c++) {
      if (*c == '"' || *c == '\\') fputc('\\', w->out);
      fputc(*c, w->out);
    }
    fputs("\"]\n", w->out);
  }
  fputs("[Annotator \"cformer analyse\"]\n\n", w->out);
  w->col = 0;
  cf_position pos = u->pgn.start;
  bool number_black = true; /* the game's first move, or one after a variation */
  for (int ply = 0; ply < u->pgn.n_moves; ply++) {
    const cf_move m = u->pgn.moves[ply];
    char san[CF_SAN_MAX + 4], annotations[160], text[900] = "";
    move_number(w, &pos, number_black);
    number_black = false;
    cf_san_write(&pos, m, san);
    const char *name = NULL, *glyph = NULL;
    float loss = 0;
    const ply_note *before = &w->notes[ply], *after = &w->notes[ply + 1];
    if (before->best != CF_MOVE_NONE && before->best != m) {
      loss = before->score - (1 - after->score);
      glyph = mark(loss, &name);
    }
    if (glyph) strcat(san, glyph);
    word(w, san);
    const cf_position at_move = pos;
    cf_undo undo;
    cf_position_make(&pos, m, &undo);
    eval_text(annotations, sizeof annotations, pos.side, after->wdl, after->mate, after->terminal,
              after->depth);
    size_t at = 0;
    if (after->terminal != ANALYSE_PLAYING)
      at += (size_t)snprintf(text + at, sizeof text - at, "%s. ",
                             after->terminal == ANALYSE_CHECKMATE ? "Checkmate" : "Stalemate");
    if (glyph) {
      char best[CF_SAN_MAX];
      cf_san_write(&at_move, before->best, best);
      at += (size_t)snprintf(text + at, sizeof text - at, "%s (%.2f -> %.2f). %s was better. ",
                             name, before->score, 1 - after->score, best);
    }
    if (ply + 1 == u->pgn.n_moves && u->cut[0])
      snprintf(text + at, sizeof text - at, "The game goes on with a bad move (%s): not analysed.",
               u->cut);
    comment(w, annotations, text);
    if (glyph && before->line_len > 0) {
      variation(w, &at_move, before);
      number_black = true;
    }
  }
  if (u->pgn.n_moves == 0 && u->cut[0]) {
    char text[600];
    snprintf(text, sizeof text, "The game's first move is bad (%s): not analysed.", u->cut);
    comment(w, "", text);
  }
  word(w, u->pgn.result[0] ? u->pgn.result : "*");
  fputs("\n\n", w->out);
  w->games++;
}

cf_status analyse_pgn_out_add(analyse_pgn_out *w, const analyse_record *r, cf_error *err) {
  if (r->ply == r->unit->first_ply) w->n = 0;
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 256;
    ply_note *grown = realloc(w->notes, (size_t)cap * sizeof *grown);
    if (!grown) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    w->notes = grown;
    w->cap = cap;
  }
  ply_note *note = &w->notes[w->n++];
  memset(note, 0, sizeof *note);
  note->terminal = r->terminal;
  memcpy(note->wdl, r->wdl, sizeof note->wdl); /* exact when the game is over */
  note->score = analyse_expected_score(r->wdl);
  if (r->searched && r->n_lines > 0) {
    const analyse_line *b = &r->lines[0];
    memcpy(note->wdl, b->wdl, sizeof note->wdl);
    note->score = analyse_expected_score(b->wdl);
    note->mate = b->mate;
    note->depth = r->depth > 0 ? r->depth : 1;
    note->best = b->move;
    memcpy(note->best_wdl, b->wdl, sizeof note->best_wdl);
    note->best_mate = b->mate;
    note->line_len = b->pv_len < LINE_SHOWN ? b->pv_len : LINE_SHOWN;
    memcpy(note->line, b->pv, (size_t)note->line_len * sizeof *note->line);
  } else if (r->terminal == ANALYSE_PLAYING && r->n_top > 0) {
    note->best = r->top[0];
    memcpy(note->best_wdl, r->wdl, sizeof note->best_wdl);
    note->line[0] = r->top[0];
    note->line_len = 1;
  }
  if (r->ply == r->unit->last_ply) write_game(w, r->unit);
  return CF_OK;
}

long analyse_pgn_out_games(const analyse_pgn_out *w) { return w->games; }

void analyse_pgn_out_free(analyse_pgn_out *w) {
  if (!w) return;
  free(w->notes);
  free(w);
}
