/* cf_uci_go.c: go parameters, score formats. */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_move_uci.h"
#include "engine/uci/cf_uci_go.h"

static void add_warn(char *warn, size_t size, const char *fmt, const char *a, const char *b) {
  size_t at = strlen(warn);
  if (at + 1 >= size) return;
  snprintf(warn + at, size - at, at ? "; " : "");
  at = strlen(warn);
  snprintf(warn + at, size - at, fmt, a, b);
}

/* The go words, declared once: adding a numeric word (a long in
 * cf_uci_go, -1 when not given) or a bare flag (a bool) is a field there and
 * a row here; parsing, the defaults and the keyword check follow. */
static const struct {
  const char *name;
  size_t at;
} numbers[] = {
    {"wtime", offsetof(cf_uci_go, wtime)},         {"btime", offsetof(cf_uci_go, btime)},
    {"winc", offsetof(cf_uci_go, winc)},           {"binc", offsetof(cf_uci_go, binc)},
    {"movestogo", offsetof(cf_uci_go, movestogo)}, {"movetime", offsetof(cf_uci_go, movetime)},
    {"nodes", offsetof(cf_uci_go, nodes)},         {"depth", offsetof(cf_uci_go, depth)},
    {"mate", offsetof(cf_uci_go, mate)},
};
static const struct {
  const char *name;
  size_t at;
} flags[] = {
    {"infinite", offsetof(cf_uci_go, infinite)},
    {"ponder", offsetof(cf_uci_go, ponder)},
};
#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static long *number_field(cf_uci_go *go, const char *w) {
  for (size_t i = 0; i < COUNT(numbers); i++)
    if (strcmp(w, numbers[i].name) == 0) return (long *)((char *)go + numbers[i].at);
  return NULL;
}

static bool *flag_field(cf_uci_go *go, const char *w) {
  for (size_t i = 0; i < COUNT(flags); i++)
    if (strcmp(w, flags[i].name) == 0) return (bool *)((char *)go + flags[i].at);
  return NULL;
}

static bool is_keyword(cf_uci_go *go, const char *w) {
  return number_field(go, w) || flag_field(go, w) || strcmp(w, "searchmoves") == 0;
}

bool cf_uci_go_ponders(const char *args) {
  const char *w = args ? args : "";
  for (;;) {
    while (*w && isspace((unsigned char)*w)) w++;
    if (!*w) return false;
    size_t n = 0;
    while (w[n] && !isspace((unsigned char)w[n])) n++;
    if (n == 6 && strncmp(w, "ponder", 6) == 0) return true;
    w += n;
  }
}

void cf_uci_go_parse(const char *args, const cf_position *pos, cf_uci_go *go, char *warn,
                     size_t warn_size) {
  *go = (cf_uci_go){0};
  for (size_t i = 0; i < COUNT(numbers); i++) *(long *)((char *)go + numbers[i].at) = -1;
  warn[0] = 0;
  char *copy = strdup(args ? args : "");
  if (!copy) {
    add_warn(warn, warn_size, "out of memory%s%s", "", "");
    return;
  }
  char *save = NULL;
  for (char *w = strtok_r(copy, " \t\r\n", &save); w;) {
    long *field = number_field(go, w);
    if (field) {
      char *v = strtok_r(NULL, " \t\r\n", &save), *end = NULL;
      long n = v ? strtol(v, &end, 10) : 0;
      /* A clock below zero (a GUI that let time run out) means no time
       * left: move at once. */
      const bool clock = field == &go->wtime || field == &go->btime;
      if (v && *v && !*end && clock && n < 0 && n >= -1000000000L) n = 0;
      if (!v || *end || n < 0 || n > 1000000000L) {
        add_warn(warn, warn_size, "bad value '%s' for %s ignored", v ? v : "", w);
        if (v && is_keyword(go, v)) { /* the value was missing: read it as a word */
          w = v;
          continue;
        }
      } else {
        *field = n;
      }
    } else if (flag_field(go, w)) {
      *flag_field(go, w) = true;
    } else if (strcmp(w, "searchmoves") == 0) {
      for (w = strtok_r(NULL, " \t\r\n", &save); w && !is_keyword(go, w);
           w = strtok_r(NULL, " \t\r\n", &save)) {
        cf_move m;
        if (cf_move_parse_uci(pos, w, &m, NULL) == CF_OK && go->n_searchmoves < CF_MAX_MOVES)
          go->searchmoves[go->n_searchmoves++] = m;
        else
          add_warn(warn, warn_size, "searchmoves: '%s' is not a legal move, ignored%s", w, "");
      }
      continue; /* w is the next keyword or NULL */
    } else {
      add_warn(warn, warn_size, "unknown word '%s' ignored%s", w, "");
    }
    w = strtok_r(NULL, " \t\r\n", &save);
  }
  free(copy);
}

int cf_uci_q_to_cp(float q) {
  double x = fmax(-0.9999, fmin(0.9999, (double)q));
  return (int)lround(90.0 * tan(1.5637541897 * x));
}

void cf_uci_wdl_permille(const float wdl[3], int out[3]) {
  double w = fmax(0.0, fmin(1.0, (double)wdl[0])), l = fmax(0.0, fmin(1.0, (double)wdl[2]));
  out[0] = (int)lround(1000.0 * w);
  out[2] = (int)lround(1000.0 * l);
  if (out[0] + out[2] > 1000) out[2] = 1000 - out[0];
  out[1] = 1000 - out[0] - out[2];
}
