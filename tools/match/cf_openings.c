/* cf_openings.c: reads and validates the openings file. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_game.h"
#include "tools/match/cf_openings.h"

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

static cf_status check_line(const char *moves, cf_error *err) {
  cf_game g;
  CF_TRY(cf_game_init(&g, NULL, err));
  char *copy = strdup(moves);
  cf_status st = copy ? CF_OK : cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  for (char *s = NULL, *m = copy ? strtok_r(copy, " \t", &s) : NULL; st == CF_OK && m;
       m = strtok_r(NULL, " \t", &s))
    st = cf_game_push_uci(&g, m, err);
  if (st == CF_OK && cf_game_outcome(&g, NULL) != CF_RESULT_ONGOING)
    st = cf_error_set(err, CF_ERR_ARG, "the opening ends the game");
  free(copy);
  cf_game_free(&g);
  return st;
}

cf_status cf_openings_load(const char *path, cf_openings *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) return cf_error_set(err, CF_ERR_IO, "%s: cannot open", path);
  char *line = NULL;
  size_t cap = 0;
  int number = 0, capacity = 0;
  cf_status st = CF_OK;
  while (st == CF_OK && getline(&line, &cap, f) >= 0) {
    number++;
    char *hash = strchr(line, '#'), *name = "";
    if (hash) {
      *hash = 0;
      name = trim(hash + 1);
    }
    char *moves = trim(line);
    if (!*moves) continue;
    st = check_line(moves, err);
    if (st != CF_OK) {
      cf_error_prefix(err, "%s:%d", path, number);
      break;
    }
    if (out->count == capacity) {
      capacity = capacity ? 2 * capacity : 64;
      char **l = realloc(out->lines, (size_t)capacity * sizeof *l);
      if (l) out->lines = l;
      char **n = realloc(out->names, (size_t)capacity * sizeof *n);
      if (n) out->names = n;
      if (!l || !n) {
        st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
        break;
      }
    }
    char *line_copy = strdup(moves), *name_copy = strdup(name);
    if (!line_copy || !name_copy) {
      free(line_copy);
      free(name_copy);
      st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
      break;
    }
    out->lines[out->count] = line_copy;
    out->names[out->count] = name_copy;
    out->count++;
  }
  free(line);
  fclose(f);
  if (st == CF_OK && out->count == 0) st = cf_error_set(err, CF_ERR_FORMAT, "%s: no openings", path);
  if (st != CF_OK) cf_openings_free(out);
  return st;
}

void cf_openings_free(cf_openings *o) {
  for (int i = 0; i < o->count; i++) {
    free(o->lines[i]);
    free(o->names[i]);
  }
  free(o->lines);
  free(o->names);
  memset(o, 0, sizeof *o);
}
