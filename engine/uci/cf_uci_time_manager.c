/* cf_uci_time_manager.c: Lc0's TimeManager and Slowmover options read into
 * the time manager's settings (engine/search/cf_time_manager.h). Lc0 writes
 * a time manager as name(key=value,...); cformer has Lc0's default one,
 * legacy, with all of its keys. */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uci/cf_uci_time_manager.h"

static const struct {
  const char *key;
  size_t at;
} keys[] = {
    {"slowmover", offsetof(cf_time_manager_params, slowmover)},
    {"midpoint-move", offsetof(cf_time_manager_params, midpoint_move)},
    {"steepness", offsetof(cf_time_manager_params, steepness)},
    {"immediate-use", offsetof(cf_time_manager_params, immediate_use)},
    {"first-move-bonus", offsetof(cf_time_manager_params, first_move_bonus)},
    {"book-ply-bonus", offsetof(cf_time_manager_params, book_ply_bonus)},
};

/* Copies text without white space into out. */
static void squeeze(const char *text, char *out, size_t size) {
  size_t n = 0;
  for (; *text && n + 1 < size; text++)
    if (!isspace((unsigned char)*text)) out[n++] = (char)tolower((unsigned char)*text);
  out[n] = 0;
}

static cf_status parse_pair(char *pair, cf_time_manager_params *p, cf_error *err) {
  char *eq = strchr(pair, '=');
  if (!eq) return cf_error_set(err, CF_ERR_ARG, "option TimeManager: expected key=value, got '%s'", pair);
  *eq = 0;
  char *end;
  const double v = strtod(eq + 1, &end);
  if (!eq[1] || *end || !isfinite(v) || v < 0)
    return cf_error_set(err, CF_ERR_ARG, "option TimeManager: bad value '%s' for %s", eq + 1, pair);
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(pair, keys[i].key) == 0) {
      if ((strcmp(pair, "midpoint-move") == 0 || strcmp(pair, "steepness") == 0) && v <= 0)
        return cf_error_set(err, CF_ERR_ARG, "option TimeManager: %s must be above 0", pair);
      *(double *)((char *)p + keys[i].at) = v;
      return CF_OK;
    }
  return cf_error_set(err, CF_ERR_ARG,
                      "option TimeManager: unknown legacy setting '%s' (expected slowmover, "
                      "midpoint-move, steepness, immediate-use, first-move-bonus or "
                      "book-ply-bonus)",
                      pair);
}

cf_status cf_uci_time_manager_params(const cf_uci *u, cf_time_manager_params *out, cf_error *err) {
  cf_time_manager_params p;
  cf_time_manager_params_default(&p);
  char text[CF_UCI_VALUE_MAX];
  squeeze(u->opt[CF_OPT_TIME_MANAGER].text, text, sizeof text);
  char *open = strchr(text, '(');
  if (open) {
    char *close = text + strlen(text) - 1;
    if (*close != ')')
      return cf_error_set(err, CF_ERR_ARG, "option TimeManager: missing ')' in '%s'", text);
    *close = 0;
    *open++ = 0;
  }
  if (strcmp(text, "legacy") != 0)
    return cf_error_set(err, CF_ERR_ARG,
                        "option TimeManager: '%s' is not available (available: legacy; Lc0's "
                        "smooth, alphazero and simple are not implemented)",
                        text);
  char *save = NULL;
  for (char *pair = open ? strtok_r(open, ",", &save) : NULL; pair; pair = strtok_r(NULL, ",", &save))
    CF_TRY(parse_pair(pair, &p, err));
  const bool slowmover_set = u->opt[CF_OPT_SLOWMOVER].f != 1.0;
  if (slowmover_set) {
    if (strcmp(u->opt[CF_OPT_TIME_MANAGER].text, "legacy") != 0)
      return cf_error_set(err, CF_ERR_ARG,
                          "options TimeManager and Slowmover cannot both be set (as in Lc0): "
                          "give slowmover=X inside TimeManager");
    p.slowmover = u->opt[CF_OPT_SLOWMOVER].f;
  }
  *out = p;
  return CF_OK;
}

