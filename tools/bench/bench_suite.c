/* bench_suite.c: see bench_suite.h. */
#include "tools/bench/bench_suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses one `id|fen|moves` line into e. */
static cf_status parse_line(char *line, bench_suite_entry *e, cf_error *err) {
  char *bar1 = strchr(line, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
  if (!bar2) return cf_error_set(err, CF_ERR_FORMAT, "expected id|fen|moves");
  *bar1 = *bar2 = '\0';
  if (!*line || strlen(line) >= BENCH_SUITE_ID_MAX)
    return cf_error_set(err, CF_ERR_FORMAT, "id is empty or longer than %d characters",
                        BENCH_SUITE_ID_MAX - 1);
  snprintf(e->id, sizeof e->id, "%s", line);
  CF_TRY(cf_game_init_fen(&e->game, bar1 + 1, err));
  char *save = NULL;
  for (char *m = strtok_r(bar2 + 1, " \t\r\n", &save); m; m = strtok_r(NULL, " \t\r\n", &save)) {
    cf_status st = cf_game_push_uci(&e->game, m, err);
    if (st != CF_OK) {
      cf_game_free(&e->game);
      return st;
    }
  }
  return CF_OK;
}

cf_status bench_suite_load(const char *path, int max_positions, bench_suite *out, cf_error *err) {
  *out = (bench_suite){0};
  FILE *f = fopen(path, "r");
  if (!f) return cf_error_set(err, CF_ERR_IO, "cannot open position suite '%s'", path);
  char *line = NULL;
  size_t cap = 0;
  int capacity = 0, lineno = 0;
  cf_status st = CF_OK;
  while (getline(&line, &cap, f) > 0) {
    lineno++;
    char *p = line + strspn(line, " \t");
    if (*p == '#' || *p == '\n' || *p == '\r' || !*p) continue;
    if (max_positions > 0 && out->count >= max_positions) break;
    if (out->count == capacity) {
      int grown = capacity ? 2 * capacity : 128;
      bench_suite_entry *e = realloc(out->entries, (size_t)grown * sizeof *e);
      if (!e) {
        st = cf_error_set(err, CF_ERR_NOMEM, "out of memory reading '%s'", path);
        break;
      }
      out->entries = e;
      capacity = grown;
    }
    st = parse_line(p, &out->entries[out->count], err);
    if (st != CF_OK) {
      cf_error_prefix(err, "%s:%d", path, lineno);
      if (err) err->status = CF_ERR_FORMAT;
      st = CF_ERR_FORMAT;
      break;
    }
    out->count++;
  }
  free(line);
  fclose(f);
  if (st == CF_OK && out->count == 0)
    st = cf_error_set(err, CF_ERR_FORMAT, "position suite '%s' holds no positions", path);
  if (st != CF_OK) bench_suite_free(out);
  return st;
}

void bench_suite_free(bench_suite *s) {
  for (int i = 0; i < s->count; i++) cf_game_free(&s->entries[i].game);
  free(s->entries);
  *s = (bench_suite){0};
}
