/* cf_uci_contempt.c: the Contempt list and UCI_Opponent
 * (cf_uci_contempt.h). */
#include "engine/uci/cf_uci_contempt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uci/cf_uci_text.h"

#define FORM "expected a comma-separated list of value or name=value, value a number"

/* One entry of a list: its name (empty for a bare value) and its value
 * text, both trimmed, in caller buffers. */
typedef struct entry {
  char name[CF_UCI_VALUE_MAX], value[CF_UCI_VALUE_MAX];
  bool named;
} entry;

/* Copies [from, to) trimmed into out. */
static void copy_trimmed(const char *from, const char *to, char *out) {
  while (from < to && isspace((unsigned char)*from)) from++;
  while (to > from && isspace((unsigned char)to[-1])) to--;
  memcpy(out, from, (size_t)(to - from));
  out[to - from] = 0;
}

/* The entry at *at (up to the next comma), *at moved past it. False when
 * the list is over. `raw` gets the entry as written, for errors. */
static bool next_entry(const char **at, entry *e, char *raw) {
  if (!*at) return false;
  const char *start = *at, *end = strchr(start, ',');
  if (!end) end = start + strlen(start);
  *at = *end ? end + 1 : NULL;
  copy_trimmed(start, end, raw);
  const char *eq = NULL;
  for (const char *c = start; c < end && !eq; c++)
    if (*c == '=') eq = c;
  e->named = eq != NULL;
  if (eq) {
    copy_trimmed(start, eq, e->name);
    copy_trimmed(eq + 1, end, e->value);
  } else {
    e->name[0] = 0;
    copy_trimmed(start, end, e->value);
  }
  return true;
}

/* The whole text as a finite number. */
static bool parse_number(const char *text, double *out) {
  char *end;
  if (!*text) return false;
  const double v = strtod(text, &end);
  if (*end || !isfinite(v)) return false;
  *out = v;
  return true;
}

cf_status cf_uci_contempt_check(const char *list, cf_error *err) {
  const char *at = list ? list : "";
  entry e;
  char raw[CF_UCI_VALUE_MAX];
  double v;
  while (next_entry(&at, &e, raw)) {
    if (!raw[0]) continue; /* an empty entry: skipped, as Lc0 does */
    if (e.named && strchr(e.value, '='))
      return cf_error_set(err, CF_ERR_ARG, "option Contempt: bad entry '%s': more than one '=' (%s)",
                          raw, FORM);
    if (e.named && !e.name[0])
      return cf_error_set(err, CF_ERR_ARG,
                          "option Contempt: bad entry '%s': no name before '=' (%s; a value for "
                          "every opponent is written without a name)",
                          raw, FORM);
    if (!parse_number(e.value, &v))
      return cf_error_set(err, CF_ERR_ARG, "option Contempt: bad entry '%s': '%s' is not a number (%s)",
                          raw, e.value, FORM);
  }
  return CF_OK;
}

/* Whether needle occurs in hay, ignoring ASCII case. */
static bool contains_nocase(const char *hay, const char *needle) {
  const size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return n == 0;
}

double cf_uci_contempt_value(const char *list, const char *opponent, double rating_adv) {
  const char *at = list ? list : "";
  entry e;
  char raw[CF_UCI_VALUE_MAX];
  double contempt = rating_adv, v;
  while (next_entry(&at, &e, raw)) {
    if (!raw[0] || !parse_number(e.value, &v)) continue;
    if (!e.named) {
      contempt = v;
    } else if (contains_nocase(opponent ? opponent : "", e.name)) {
      contempt = v; /* the first matching name decides */
      break;
    }
  }
  return contempt;
}

cf_status cf_uci_opponent_check(const char *text, cf_error *err) {
  if (cf_uci_text_is_clean(text ? text : "")) return CF_OK;
  return cf_error_set(err, CF_ERR_ARG,
                      "option UCI_Opponent: bad value (expected printable text, as "
                      "'GM 2800 human Garry Kasparov': valid UTF-8 without control characters)");
}
