/* analyse_pgn_out.c: annotated PGN (analyse_pgn_out.h). The records of one
 * game are kept (a few numbers and the best line per ply) until its last
 * position, then the game is written in one go. */
#include "tools/analyse/analyse_pgn_out.h"

#include <stdlib.h>
#include <string.h>

#include "chess/cf_san.h"

#define LINE_SHOWN 8 /* moves of the better line shown in a comment */

typedef struct ply_note {
  float score;  /* expected score for the side to move */
  cf_move best; /* the engine's choice (CF_MOVE_NONE when none) */
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

/* The comment's words one by one, so long lines wrap too. */
static void comment(analyse_pgn_out *w, const char *text) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) word(w, t);
}

static const char *mark(float loss, const char **name) {
  if (loss >= ANALYSE_BLUNDER) return *name = "Blunder", "??";
  if (loss >= ANALYSE_MISTAKE) return *name = "Mistake", "?";
  if (loss >= ANALYSE_INACCURACY) return *name = "Inaccuracy", "?!";
  return *name = NULL, NULL;
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
  for (int ply = 0; ply < u->pgn.n_moves; ply++) {
    const cf_move m = u->pgn.moves[ply];
    char num[24], san[CF_SAN_MAX + 4];
    if (pos.side == CF_WHITE || ply == 0) {
      snprintf(num, sizeof num, "%d.%s", pos.fullmove, pos.side == CF_WHITE ? "" : "..");
      word(w, num);
    }
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
    if (glyph) {
      char text[768], best[CF_SAN_MAX];
      cf_san_write(&pos, before->best, best);
      size_t at = (size_t)snprintf(text, sizeof text, "{ %s (%.2f -> %.2f). Better was %s%s", name,
                                   before->score, 1 - after->score, best,
                                   before->line_len > 1 ? ":" : ".");
      cf_position line = pos;
      for (int i = 0; before->line_len > 1 && i < before->line_len && at + 24 < sizeof text; i++) {
        char s[CF_SAN_MAX];
        cf_san_write(&line, before->line[i], s);
        at += (size_t)snprintf(text + at, sizeof text - at, " %s", s);
        cf_undo undo;
        cf_position_make(&line, before->line[i], &undo);
      }
      snprintf(text + at, sizeof text - at, " }");
      comment(w, text);
    }
    cf_undo undo;
    cf_position_make(&pos, m, &undo);
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
  if (r->searched && r->n_lines > 0) {
    const analyse_line *b = &r->lines[0];
    note->score = analyse_expected_score(b->wdl);
    note->best = b->move;
    note->line_len = b->pv_len < LINE_SHOWN ? b->pv_len : LINE_SHOWN;
    memcpy(note->line, b->pv, (size_t)note->line_len * sizeof *note->line);
  } else if (r->n_legal == 0) { /* the game is over here: mated, or stalemate */
    note->score = cf_position_in_check(&r->pos) ? 0.0f : 0.5f;
  } else {
    note->score = analyse_expected_score(r->wdl);
    if (r->n_top > 0) {
      note->best = r->top[0];
      note->line[0] = r->top[0];
      note->line_len = 1;
    }
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
