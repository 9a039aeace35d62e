/* analyse_units.c: PGN, EPD, FEN-per-line, Lichess puzzle CSV and the
 * units format as one stream of units (analyse_units.h). */
#include "tools/analyse/analyse_units.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "tools/puzzles/cf_puzzle.h"

const char *const analyse_format_names[] = {"pgn", "epd", "fen", "puzzles", "units", "auto", NULL};

static bool ends_with(const char *s, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && strncmp(s + n - k, suffix, k) == 0;
}

analyse_format analyse_format_of_name(const char *path) {
  size_t n = strlen(path);
  if (ends_with(path, n, ".gz")) n -= 3;
  else if (ends_with(path, n, ".zst")) n -= 4;
  if (ends_with(path, n, ".pgn")) return ANALYSE_PGN;
  if (ends_with(path, n, ".epd")) return ANALYSE_EPD;
  if (ends_with(path, n, ".fen") || ends_with(path, n, ".txt")) return ANALYSE_FEN;
  if (ends_with(path, n, ".csv")) return ANALYSE_PUZZLES;
  if (ends_with(path, n, ".units")) return ANALYSE_UNITS;
  return ANALYSE_FORMAT_AUTO;
}

cf_status analyse_units_open(analyse_units *u, const char *path, analyse_format format,
                             cf_error *err) {
  memset(u, 0, sizeof *u);
  u->format = format;
  CF_TRY(analyse_source_open(path, &u->src, err));
  cf_status st = analyse_lines_init(&u->lines, u->src, err);
  if (st == CF_OK && format == ANALYSE_PGN) st = analyse_pgn_split_init(&u->split, &u->lines, err);
  if (st != CF_OK) analyse_units_close(u);
  return st;
}

/* fmt takes the line number, then detail (cut to fit). */
static void mark_bad(analyse_unit *out, const char *fmt, const char *detail, long line) {
  char cut[400];
  size_t n = strnlen(detail, sizeof cut - 1);
  memcpy(cut, detail, n);
  cut[n] = 0;
  out->bad = true;
  snprintf(out->why, sizeof out->why, fmt, line, cut);
}

/* A unit of one position (ply 0) from a FEN. */
static void from_fen(analyse_unit *out, const char *fen) {
  cf_error err;
  snprintf(out->start_fen, sizeof out->start_fen, "%s", fen);
  if (cf_position_from_fen(&out->pgn.start, fen, &err) != CF_OK)
    mark_bad(out, "line %ld: %s", err.msg, out->line);
}

static int next_pgn(analyse_units *u, analyse_unit *out, cf_error *err) {
  int rc = analyse_pgn_split_next(&u->split, err);
  if (rc <= 0) return rc;
  out->game = ++u->games;
  out->line = u->split.first_line;
  if (u->split.bad_line) {
    mark_bad(out, u->split.too_long_game ? "line %ld: the game is longer than 4 MiB%s"
                                         : "line %ld: the line is longer than 256 KiB%s",
             "", u->split.bad_line);
    return 1;
  }
  cf_error why;
  if (cf_pgn_parse_game(u->split.text, u->split.len, out->line, &out->pgn, &why) != CF_OK) {
    if (!out->pgn.bad_move) {
      out->bad = true;
      snprintf(out->why, sizeof out->why, "%s", why.msg);
      return 1;
    }
    /* the legal moves before it are the game; the result is the tag's */
    snprintf(out->cut, sizeof out->cut, "%s", why.msg);
    const char *result = cf_pgn_tag_value(&out->pgn, "Result");
    snprintf(out->pgn.result, sizeof out->pgn.result, "%s",
             result && strlen(result) < sizeof out->pgn.result ? result : "*");
  }
  const char *fen = cf_pgn_tag_value(&out->pgn, "FEN");
  snprintf(out->start_fen, sizeof out->start_fen, "%s", fen ? fen : "");
  out->last_ply = out->pgn.n_moves;
  return 1;
}

/* EPD: the four position fields, then operations; the id operation is kept. */
static void from_epd(analyse_unit *out, const char *line) {
  char fields[4][96];
  const char *p = line;
  for (int i = 0; i < 4; i++) {
    while (*p == ' ' || *p == '\t') p++;
    size_t n = strcspn(p, " \t");
    if (n == 0 || n >= sizeof fields[i]) {
      mark_bad(out, "line %ld: %s", "not an EPD record (four position fields)", out->line);
      return;
    }
    memcpy(fields[i], p, n);
    fields[i][n] = 0;
    p += n;
  }
  char fen[CF_FEN_INPUT_MAX];
  snprintf(fen, sizeof fen, "%s %s %s %s", fields[0], fields[1], fields[2], fields[3]);
  const char *id = strstr(p, "id \"");
  if (id) {
    id += 4;
    size_t n = strcspn(id, "\"");
    if (n >= sizeof out->id) n = sizeof out->id - 1;
    memcpy(out->id, id, n);
    out->id[n] = 0;
  }
  from_fen(out, fen);
}

static void from_puzzle(analyse_unit *out, const char *line) {
  cf_puzzle p;
  cf_error err;
  if (cf_puzzle_parse_csv_line(line, &p, &err) != CF_OK) {
    mark_bad(out, "line %ld: %s", err.msg, out->line);
    return;
  }
  snprintf(out->id, sizeof out->id, "%s", p.id);
  from_fen(out, p.fen);
  if (out->bad) return;
  cf_move m;
  if (cf_move_parse_uci(&out->pgn.start, p.moves[0], &m, &err) != CF_OK) {
    mark_bad(out, "line %ld: %s", err.msg, out->line);
    return;
  }
  out->pgn.moves = out->pgn.moves ? out->pgn.moves : malloc(sizeof(cf_move) * 256);
  if (!out->pgn.moves) {
    mark_bad(out, "line %ld: %s", "out of memory", out->line);
    return;
  }
  if (out->pgn.cap < 256) out->pgn.cap = 256;
  out->pgn.moves[0] = m;
  out->pgn.n_moves = 1;
  snprintf(out->solution, sizeof out->solution, "%s", p.moves[1]);
  out->first_ply = out->last_ply = 1;
}

static void from_units_json(analyse_unit *out, const char *line);

int analyse_units_next(analyse_units *u, analyse_unit *out, cf_error *err) {
  out->bad = false;
  out->why[0] = out->cut[0] = out->id[0] = out->solution[0] = out->start_fen[0] = 0;
  out->first_ply = out->last_ply = 0;
  out->pgn.n_moves = out->pgn.n_tags = 0;
  out->pgn.result[0] = 0;
  cf_position_startpos(&out->pgn.start);
  if (u->format == ANALYSE_PGN) return next_pgn(u, out, err);
  for (;;) {
    const char *line;
    size_t len;
    bool overlong;
    int rc = analyse_lines_next(&u->lines, &line, &len, &overlong, err);
    if (rc <= 0) return rc;
    out->game = out->line = u->lines.line;
    const char *p = line + strspn(line, " \t");
    if (*p == 0 || *p == '#') continue; /* blank lines and comments */
    if (u->format == ANALYSE_PUZZLES && !u->header_checked) {
      u->header_checked = true;
      if (strncmp(line, "PuzzleId,", 9) == 0) continue;
    }
    if (overlong) mark_bad(out, "line %ld: %s", "the line is longer than 256 KiB", out->line);
    else if (strlen(line) != len) mark_bad(out, "line %ld: %s", "a NUL byte in the line", out->line);
    else if (u->format == ANALYSE_EPD) from_epd(out, p);
    else if (u->format == ANALYSE_PUZZLES) from_puzzle(out, line);
    else if (u->format == ANALYSE_UNITS) from_units_json(out, line);
    else from_fen(out, p);
    return 1;
  }
}

uint64_t analyse_units_consumed(const analyse_units *u) { return analyse_source_consumed(u->src); }
uint64_t analyse_units_size(const analyse_units *u) { return analyse_source_size(u->src); }

void analyse_units_close(analyse_units *u) {
  analyse_pgn_split_free(&u->split);
  analyse_lines_free(&u->lines);
  analyse_source_close(u->src);
  u->src = NULL;
}

void analyse_unit_free(analyse_unit *unit) { cf_pgn_game_free(&unit->pgn); }

/* ---- the units format ---- */

cf_status analyse_unit_write_json(const analyse_unit *unit, FILE *out, cf_error *err) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  cJSON_AddNumberToObject(o, "game", (double)unit->game);
  cJSON_AddNumberToObject(o, "line", (double)unit->line);
  cJSON_AddStringToObject(o, "fen", unit->start_fen);
  char *moves = malloc((size_t)unit->pgn.n_moves * CF_UCI_MOVE_MAX + 1);
  if (!moves) {
    cJSON_Delete(o);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  }
  size_t at = 0;
  moves[0] = 0;
  for (int i = 0; i < unit->pgn.n_moves; i++) {
    char m[CF_UCI_MOVE_MAX];
    cf_move_write_uci(unit->pgn.moves[i], 1, m); /* king takes rook: one reading everywhere */
    at += (size_t)sprintf(moves + at, "%s%s", i ? " " : "", m);
  }
  cJSON_AddStringToObject(o, "moves", moves);
  free(moves);
  cJSON_AddNumberToObject(o, "first_ply", unit->first_ply);
  cJSON_AddNumberToObject(o, "last_ply", unit->last_ply);
  cJSON_AddStringToObject(o, "id", unit->id);
  cJSON_AddStringToObject(o, "solution", unit->solution);
  cJSON_AddStringToObject(o, "result", unit->pgn.result);
  if (unit->cut[0]) cJSON_AddStringToObject(o, "cut", unit->cut);
  cJSON *tags = cJSON_AddArrayToObject(o, "tags");
  for (int i = 0; tags && i < unit->pgn.n_tags; i++) {
    cJSON *pair = cJSON_CreateArray();
    cJSON_AddItemToArray(pair, cJSON_CreateString(unit->pgn.tags[i].name));
    cJSON_AddItemToArray(pair, cJSON_CreateString(unit->pgn.tags[i].value));
    cJSON_AddItemToArray(tags, pair);
  }
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!text) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  int ok = fprintf(out, "%s\n", text) > 0;
  free(text);
  return ok ? CF_OK : cf_error_set(err, CF_ERR_IO, "write error");
}

static const char *json_string(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void copy_string(char *dst, size_t size, const char *src) {
  snprintf(dst, size, "%s", src ? src : "");
}

static void from_units_json(analyse_unit *out, const char *line) {
  cJSON *o = cJSON_Parse(line);
  const cJSON *game = cJSON_GetObjectItemCaseSensitive(o, "game");
  const cJSON *first = cJSON_GetObjectItemCaseSensitive(o, "line");
  const cJSON *p0 = cJSON_GetObjectItemCaseSensitive(o, "first_ply");
  const cJSON *p1 = cJSON_GetObjectItemCaseSensitive(o, "last_ply");
  const char *fen = json_string(o, "fen"), *moves = json_string(o, "moves");
  if (!cJSON_IsNumber(game) || !cJSON_IsNumber(first) || !cJSON_IsNumber(p0) ||
      !cJSON_IsNumber(p1) || !fen || !moves) {
    mark_bad(out, "line %ld: %s", "not a units record", out->line);
    cJSON_Delete(o);
    return;
  }
  out->game = (long)game->valuedouble;
  out->line = (long)first->valuedouble;
  if (*fen) from_fen(out, fen);
  copy_string(out->id, sizeof out->id, json_string(o, "id"));
  copy_string(out->solution, sizeof out->solution, json_string(o, "solution"));
  copy_string(out->pgn.result, sizeof out->pgn.result, json_string(o, "result"));
  copy_string(out->cut, sizeof out->cut, json_string(o, "cut"));
  const cJSON *tags = cJSON_GetObjectItemCaseSensitive(o, "tags"), *pair;
  cJSON_ArrayForEach(pair, tags) {
    const cJSON *n = cJSON_GetArrayItem(pair, 0), *v = cJSON_GetArrayItem(pair, 1);
    if (!cJSON_IsString(n) || !cJSON_IsString(v) || out->pgn.n_tags == CF_PGN_TAGS_MAX) continue;
    cf_pgn_tag *t = &out->pgn.tags[out->pgn.n_tags++];
    copy_string(t->name, sizeof t->name, n->valuestring);
    copy_string(t->value, sizeof t->value, v->valuestring);
  }
  /* the moves, checked as they are played */
  cf_position pos = out->pgn.start;
  char *list = strdup(moves), *save = NULL;
  if (!list) mark_bad(out, "line %ld: %s", "out of memory", out->line);
  for (char *tok = list ? strtok_r(list, " ", &save) : NULL; tok && !out->bad;
       tok = strtok_r(NULL, " ", &save)) {
    cf_move m;
    cf_error err;
    if (out->pgn.n_moves == CF_PGN_MOVES_MAX || cf_move_parse_uci(&pos, tok, &m, &err) != CF_OK) {
      mark_bad(out, "line %ld: %s", "a bad move in a units record", out->line);
      break;
    }
    if (out->pgn.n_moves == out->pgn.cap) {
      int cap = out->pgn.cap ? 2 * out->pgn.cap : 256;
      cf_move *grown = realloc(out->pgn.moves, (size_t)cap * sizeof *grown);
      if (!grown) {
        mark_bad(out, "line %ld: %s", "out of memory", out->line);
        break;
      }
      out->pgn.moves = grown;
      out->pgn.cap = cap;
    }
    out->pgn.moves[out->pgn.n_moves++] = m;
    cf_undo undo;
    cf_position_make(&pos, m, &undo);
  }
  free(list);
  out->first_ply = (int)p0->valuedouble;
  out->last_ply = (int)p1->valuedouble;
  if (out->first_ply < 0 || out->last_ply > out->pgn.n_moves || out->first_ply > out->last_ply)
    mark_bad(out, "line %ld: %s", "bad plies in a units record", out->line);
  cJSON_Delete(o);
}
