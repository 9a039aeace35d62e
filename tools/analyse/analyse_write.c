/* analyse_write.c: JSONL and CSV records (analyse_write.h). */
#include "tools/analyse/analyse_write.h"

#include <math.h>
#include <string.h>

#include "chess/cf_move_uci.h"
#include "chess/cf_san.h"

const char analyse_csv_header[] =
    "file,game,ply,fen,id,solution,played,played_uci,w,d,l,q,moves_left,legal,policy,"
    "agent,best,best_q,best_w,best_d,best_l,mate,pv,nodes,depth,visits,lines\n";

static void uci(const analyse_record *r, cf_move m, char out[CF_UCI_MOVE_MAX]) {
  cf_move_write_uci(m, cf_move_uci_king_takes_rook(&r->pos, 0), out);
}

/* A JSON string: quotes, backslashes and control bytes escaped; other
 * bytes as they are. */
static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else fputc(*p, out);
  }
  fputc('"', out);
}

static void json_number(FILE *out, double v) {
  if (isnan(v) || isinf(v)) fputs("null", out);
  else fprintf(out, "%.6g", v);
}

static void json_moves(FILE *out, const analyse_record *r, const cf_move *moves, int n) {
  fputc('[', out);
  for (int i = 0; i < n; i++) {
    char m[CF_UCI_MOVE_MAX];
    /* a PV's later moves are in later positions, but castling is written
     * the same way along it: the root's castling convention holds */
    uci(r, moves[i], m);
    fprintf(out, "%s\"%s\"", i ? "," : "", m);
  }
  fputc(']', out);
}

static void json_wdl(FILE *out, const float wdl[3]) {
  fputc('[', out);
  for (int i = 0; i < 3; i++) {
    if (i) fputc(',', out);
    json_number(out, wdl[i]);
  }
  fputc(']', out);
}

void analyse_write_jsonl(FILE *out, const char *source, const char *agent,
                         const analyse_record *r) {
  char m[CF_UCI_MOVE_MAX], san[CF_SAN_MAX];
  fputs("{\"file\":", out);
  json_string(out, source);
  fprintf(out, ",\"game\":%ld,\"ply\":%d,\"fen\":\"%s\"", r->unit->game, r->ply, r->fen);
  if (r->unit->id[0]) {
    fputs(",\"id\":", out);
    json_string(out, r->unit->id);
  }
  if (r->unit->solution[0]) { /* the puzzle file's text, not checked as a move */
    fputs(",\"solution\":", out);
    json_string(out, r->unit->solution);
  }
  if (r->played != CF_MOVE_NONE && r->ply < r->unit->pgn.n_moves && r->unit->first_ply == 0) {
    uci(r, r->played, m);
    cf_san_write(&r->pos, r->played, san);
    fprintf(out, ",\"played\":\"%s\",\"played_uci\":\"%s\"", san, m);
  }
  if (r->terminal != ANALYSE_PLAYING)
    fprintf(out, ",\"terminal\":\"%s\"",
            r->terminal == ANALYSE_CHECKMATE ? "checkmate" : "stalemate");
  fputs(",\"wdl\":", out);
  json_wdl(out, r->wdl);
  fputs(",\"q\":", out);
  json_number(out, r->q);
  fputs(",\"moves_left\":", out);
  json_number(out, r->moves_left);
  fprintf(out, ",\"legal\":%d,\"policy\":[", r->n_legal);
  for (int k = 0; k < r->n_top; k++) {
    uci(r, r->top[k], m);
    fprintf(out, "%s[\"%s\",", k ? "," : "", m);
    json_number(out, r->top_p[k]);
    fputc(']', out);
  }
  fputc(']', out);
  if (r->searched) {
    fprintf(out, ",\"agent\":\"%s\",\"nodes\":%ld,\"evals\":%ld,\"depth\":%d", agent, r->nodes,
            r->evals, r->depth);
    if (r->n_lines > 0) {
      const analyse_line *b = &r->lines[0];
      uci(r, b->move, m);
      fprintf(out, ",\"best\":\"%s\",\"best_q\":", m);
      json_number(out, b->q);
      fputs(",\"best_wdl\":", out);
      json_wdl(out, b->wdl);
      fprintf(out, ",\"mate\":%d,\"pv\":", b->mate);
      json_moves(out, r, b->pv, b->pv_len);
    } else {
      fputs(",\"best\":null", out);
    }
    if (r->n_root > 0) {
      fputs(",\"visits\":{", out);
      for (int i = 0; i < r->n_root; i++) {
        uci(r, r->root[i].move, m);
        fprintf(out, "%s\"%s\":%u", i ? "," : "", m, r->root[i].n);
      }
      fputc('}', out);
    }
    fputs(",\"lines\":[", out);
    for (int k = 0; k < r->n_lines; k++) {
      const analyse_line *l = &r->lines[k];
      uci(r, l->move, m);
      fprintf(out, "%s{\"move\":\"%s\",\"q\":", k ? "," : "", m);
      json_number(out, l->q);
      fputs(",\"wdl\":", out);
      json_wdl(out, l->wdl);
      fprintf(out, ",\"mate\":%d", l->mate);
      if (l->visits >= 0) fprintf(out, ",\"visits\":%ld", l->visits);
      fputs(",\"pv\":", out);
      json_moves(out, r, l->pv, l->pv_len);
      fputc('}', out);
    }
    fputc(']', out);
  }
  fputs("}\n", out);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_text(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void csv_number(FILE *out, double v) {
  if (!isnan(v) && !isinf(v)) fprintf(out, "%.6g", v);
}

static void csv_moves(FILE *out, const analyse_record *r, const cf_move *moves, int n) {
  for (int i = 0; i < n; i++) {
    char m[CF_UCI_MOVE_MAX];
    uci(r, moves[i], m);
    fprintf(out, "%s%s", i ? " " : "", m);
  }
}

void analyse_write_csv(FILE *out, const char *source, const char *agent, const analyse_record *r) {
  char m[CF_UCI_MOVE_MAX], san[CF_SAN_MAX];
  csv_text(out, source);
  fprintf(out, ",%ld,%d,%s,", r->unit->game, r->ply, r->fen);
  csv_text(out, r->unit->id);
  fputc(',', out);
  csv_text(out, r->unit->solution);
  fputc(',', out);
  if (r->played != CF_MOVE_NONE && r->unit->first_ply == 0) {
    uci(r, r->played, m);
    cf_san_write(&r->pos, r->played, san);
    fprintf(out, "%s,%s", san, m);
  } else {
    fputc(',', out);
  }
  for (int i = 0; i < 3; i++) {
    fputc(',', out);
    csv_number(out, r->wdl[i]);
  }
  fputc(',', out);
  csv_number(out, r->q);
  fputc(',', out);
  csv_number(out, r->moves_left);
  fprintf(out, ",%d,", r->n_legal);
  for (int k = 0; k < r->n_top; k++) {
    uci(r, r->top[k], m);
    fprintf(out, "%s%s:%.6g", k ? " " : "", m, r->top_p[k]);
  }
  fprintf(out, ",%s,", r->searched ? agent : "");
  if (r->searched && r->n_lines > 0) {
    const analyse_line *b = &r->lines[0];
    uci(r, b->move, m);
    fprintf(out, "%s,", m);
    csv_number(out, b->q);
    for (int i = 0; i < 3; i++) {
      fputc(',', out);
      csv_number(out, b->wdl[i]);
    }
    fprintf(out, ",%d,", b->mate);
    csv_moves(out, r, b->pv, b->pv_len);
  } else {
    fputs(",,,,,,", out);
  }
  if (r->searched) fprintf(out, ",%ld,%d,", r->nodes, r->depth);
  else fputs(",,,", out);
  for (int i = 0; i < r->n_root; i++) {
    uci(r, r->root[i].move, m);
    fprintf(out, "%s%s:%u", i ? " " : "", m, r->root[i].n);
  }
  fputc(',', out);
  /* MultiPV lines: "move q visits pv..." joined by '|' */
  for (int k = 0; k < r->n_lines; k++) {
    const analyse_line *l = &r->lines[k];
    uci(r, l->move, m);
    fprintf(out, "%s%s %.6g %ld ", k ? "|" : "", m, l->q, l->visits);
    csv_moves(out, r, l->pv, l->pv_len);
  }
  fputc('\n', out);
}
