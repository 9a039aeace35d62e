/* cf_uci_options.c: the option table and its checks. */
#include <ctype.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends/cf_backend.h"
#include "engine/cf_agent.h"
#include "engine/cf_strength.h"
#include "engine/uci/cf_uci_clock.h"
#include "engine/uci/cf_uci_contempt.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_load.h"
#include "engine/uci/cf_uci_search.h"
#include "engine/uci/cf_uci_state.h"
#include "engine/uci/cf_uci_temperature.h"
#include "engine/uci/cf_uci_options.h"
#include "weights/cf_weights.h"

/* Backend's vars are "auto" plus the registry's names, filled on first use
 * (the registry is a table of constants, so this is idempotent; a test's
 * double, chosen by name only, is listed when the test registered it
 * first: cf_backend_set_test_double). */
static cf_uci_option_desc table[CF_OPT_COUNT] = {
    [CF_OPT_WEIGHTS_FILE] = {"WeightsFile", "weights", NULL, 'w', CF_OPT_TYPE_STRING,
                             CF_WEIGHTS_AUTODISCOVER, 0, 0, {NULL},
                             "network file (.pb.gz); <autodiscover> looks beside the binary "
                             "and in the data folders, <built in> is the embedded net", {{NULL, NULL}}, cf_uci_weights_changed},
    [CF_OPT_WEIGHTS_MAX_MB] = {CF_UCI_WEIGHTS_MAX_MB_NAME, CF_UCI_WEIGHTS_MAX_MB_FLAG, NULL, 0, CF_OPT_TYPE_SPIN, "0", 0,
                               CF_WEIGHTS_MAX_MB_LIMIT, {NULL},
                               "largest network in MiB a weights file may inflate to; 0 = "
                               "automatic: 16 times the file's size, at least 64 MiB, at most "
                               "4096 MiB (more is taken for a decompression bomb)", {{NULL, NULL}}, cf_uci_weights_changed},
    [CF_OPT_BACKEND] = {"Backend", "backend", NULL, 'b', CF_OPT_TYPE_COMBO, "auto", 0, 0, {NULL},
                        "compute backend; auto = the best available; Lc0's blas is taken for "
                        "openblas", {{"blas", "openblas"}}, cf_uci_search_changed},
    [CF_OPT_BACKEND_OPTIONS] = {"BackendOptions", "backend-opts", NULL, 'o', CF_OPT_TYPE_STRING,
                                "", 0, 0, {NULL}, "backend-specific key=value,... options; precision=auto "
                                "unless they name a precision", {{NULL, NULL}},
                                cf_uci_backend_options_changed},
    [CF_OPT_THREADS] = {"Threads", "threads", NULL, 't', CF_OPT_TYPE_SPIN, "0", 0, 128, {NULL},
                        "on a device backend (cuda, sim), batches the search keeps on the device "
                        "at once (Lc0's search threads); on the CPU backends, threads evaluating "
                        "each batch (lanes=N: N copies of the backend on sleeping threads, unless "
                        "BackendOptions sets lanes or threads); 0 = automatic: 2 on a device, 1 "
                        "on the CPU", {{NULL, NULL}}, cf_uci_threads_changed},
    [CF_OPT_AGENT] = {"Agent", "agent", NULL, 0, CF_OPT_TYPE_COMBO, CF_AGENT_DEFAULT, 0, 0, {NULL},
                      "how moves are chosen: search (PUCT tree search), policy (one "
                      "evaluation) or value (one-ply search)", {{NULL, NULL}}, NULL},
    [CF_OPT_HISTORY_FILL] = {"HistoryFill", "history-fill", NULL, 0, CF_OPT_TYPE_COMBO,
                             "fen_only", 0, 0, {"fen_only", "no", "always", NULL},
                             "fill missing history planes by repeating the first position", {{NULL, NULL}}, NULL},
    [CF_OPT_SHOW_WDL] = {"UCI_ShowWDL", "show-wdl", NULL, 0, CF_OPT_TYPE_CHECK, "false", 0, 0,
                         {NULL}, "add win/draw/loss per mille to the info lines", {{NULL, NULL}}, NULL},
    [CF_OPT_SHOW_MOVESLEFT] = {"UCI_ShowMovesLeft", "show-movesleft", NULL, 0, CF_OPT_TYPE_CHECK,
                               "false", 0, 0, {NULL},
                               "add the moves left to the game (the network's estimate) to the "
                               "info lines as movesleft", {{NULL, NULL}}, NULL},
    [CF_OPT_UCI_CHESS960] = {"UCI_Chess960", "chess960", "uci-chess960", 0, CF_OPT_TYPE_CHECK,
                             "false", 0, 0, {NULL},
                             "write castling king takes rook (e1h1) in every position, as "
                             "Chess960 GUIs expect (Chess960 positions are written so anyway)", {{NULL, NULL}}, NULL},
    [CF_OPT_SYZYGY_PATH] = {"SyzygyPath", "syzygy-paths", NULL, 's', CF_OPT_TYPE_STRING, "", 0,
                            0, {NULL},
                            "Syzygy tablebase directories, separated by ':' (read at isready "
                            "and before a search; empty = none)", {{NULL, NULL}}, NULL},
    [CF_OPT_MOVE_OVERHEAD] = {"MoveOverheadMs", "move-overhead", NULL, 0, CF_OPT_TYPE_SPIN, "200",
                              0, 100000000, {NULL},
                              "milliseconds kept back from every time budget, of every agent, "
                              "for the GUI and the connection; never more than half of a "
                              "movetime or of the time left (with a warning once a game)", {{NULL, NULL}}, cf_uci_clock_changed},
    [CF_OPT_TIME_MANAGER] = {"TimeManager", "time-manager", NULL, 0, CF_OPT_TYPE_STRING, "legacy",
                             0, 0, {NULL},
                             "Lc0's time manager and its settings: legacy or legacy(slowmover=X,"
                             "midpoint-move=X,steepness=X,immediate-use=X,first-move-bonus=X,"
                             "book-ply-bonus=X); Lc0's smooth, alphazero and simple are not "
                             "implemented", {{NULL, NULL}}, cf_uci_clock_changed},
    [CF_OPT_SLOWMOVER] = {"Slowmover", "slowmover", NULL, 0, CF_OPT_TYPE_FLOAT, "1", 0, 100,
                          {NULL},
                          "a clocked move's budget is multiplied by this (Lc0's legacy "
                          "slowmover; cannot be set together with TimeManager)", {{NULL, NULL}}, cf_uci_clock_changed},
    [CF_OPT_TEMPERATURE] = {"Temperature", "temperature", NULL, 0, CF_OPT_TYPE_FLOAT, "0", 0, 100,
                            {NULL},
                            "the move played is drawn from the root visits with weights "
                            "N^(1/T) (the policy agent: prior^(1/T)); 0 = the best move", {{NULL, NULL}}, NULL},
    [CF_OPT_TEMP_DECAY_MOVES] = {"TempDecayMoves", "tempdecay-moves", NULL, 0, CF_OPT_TYPE_SPIN,
                                 "0", 0, 640, {NULL},
                                 "Temperature falls linearly to 0 over this many moves; 0 = no "
                                 "decay", {{NULL, NULL}}, NULL},
    [CF_OPT_TEMP_DECAY_DELAY_MOVES] = {"TempDecayDelayMoves", "tempdecay-delay-moves", NULL, 0,
                                       CF_OPT_TYPE_SPIN, "0", 0, 100, {NULL},
                                       "moves before the decay of Temperature starts", {{NULL, NULL}}, NULL},
    [CF_OPT_TEMP_CUTOFF_MOVE] = {"TempCutoffMove", "temp-cutoff-move", NULL, 0, CF_OPT_TYPE_SPIN,
                                 "0", 0, 1000, {NULL},
                                 "from this move number on TempEndgame is used; 0 = never", {{NULL, NULL}}, NULL},
    [CF_OPT_TEMP_ENDGAME] = {"TempEndgame", "temp-endgame", NULL, 0, CF_OPT_TYPE_FLOAT, "0", 0,
                             100, {NULL},
                             "temperature from TempCutoffMove on, and the floor of the decay", {{NULL, NULL}}, NULL},
    [CF_OPT_TEMP_VALUE_CUTOFF] = {"TempValueCutoff", "temp-value-cutoff", NULL, 0,
                                  CF_OPT_TYPE_FLOAT, "100", 0, 100, {NULL},
                                  "with a temperature, moves whose win percentage is more than "
                                  "this below the most visited move's are not drawn", {{NULL, NULL}}, NULL},
    [CF_OPT_TEMP_VISIT_OFFSET] = {"TempVisitOffset", "temp-visit-offset", NULL, 0,
                                  CF_OPT_TYPE_FLOAT, "0", -1000, 1000, {NULL},
                                  "added to every move's visits before the draw; a move left at "
                                  "0 or below is not drawn", {{NULL, NULL}}, NULL},
    [CF_OPT_SEED] = {"Seed", "seed", NULL, 0, CF_OPT_TYPE_SPIN, "0", 0, 2147483647, {NULL},
                     "seed of the temperature's draws, so that a run repeats its games "
                     "exactly; 0 = a different seed each run", {{NULL, NULL}}, cf_uci_seed_changed},
    [CF_OPT_UCI_LIMIT_STRENGTH] = {"UCI_LimitStrength", "limit-strength", NULL, 0,
                                   CF_OPT_TYPE_CHECK, "false", 0, 0, {NULL},
                                   "play at the strength UCI_Elo names: each move searches at "
                                   "most that level's nodes and is drawn with its temperature "
                                   "(the clock still applies)", {{NULL, NULL}}, NULL},
    [CF_OPT_UCI_ELO] = {"UCI_Elo", "elo", NULL, 0, CF_OPT_TYPE_SPIN, CF_STRENGTH_ELO_MAX_TEXT,
                        CF_STRENGTH_ELO_MIN, CF_STRENGTH_ELO_MAX, {NULL},
                        "the strength with UCI_LimitStrength, on Stockfish 15.1's UCI_Elo "
                        "scale; the top is full strength (docs/STRENGTH.md)", {{NULL, NULL}}, NULL},
    [CF_OPT_MULTIPV] = {"MultiPV", "multipv", NULL, 0, CF_OPT_TYPE_SPIN, "1", 1, 500, {NULL},
                        "lines (principal variations) in the info output", {{NULL, NULL}}, NULL},
    [CF_OPT_VERBOSE_MOVE_STATS] = {"VerboseMoveStats", "verbose-move-stats", NULL, 'v',
                                   CF_OPT_TYPE_CHECK, "false", 0, 0, {NULL},
                                   "an info string per root move with N, P, Q, W/D/L, U, V "
                                   "before bestmove", {{NULL, NULL}}, NULL},
    [CF_OPT_SCORE_TYPE] = {"ScoreType", "score-type", NULL, 0, CF_OPT_TYPE_COMBO, "WDL_mu", 0, 0,
                           {"centipawn", "centipawn_with_drawscore", "centipawn_2019",
                            "centipawn_2018", "win_percentage", "Q", "W-L", "WDL_mu", NULL},
                           "what `score cp` shows (docs/engine.md): Lc0's choices", {{NULL, NULL}}, NULL},
    [CF_OPT_PER_PV_COUNTERS] = {"PerPVCounters", "per-pv-counters", NULL, 0, CF_OPT_TYPE_CHECK,
                                "false", 0, 0, {NULL},
                                "each info line's nodes are its own move's visits instead of "
                                "the whole search's", {{NULL, NULL}}, NULL},
    [CF_OPT_SHOW_EPS] = {"UCI_ShowEPS", "show-eps", NULL, 0, CF_OPT_TYPE_CHECK, "false", 0, 0,
                         {NULL}, "add network evaluations per second to the info lines as eps",
                         {{NULL, NULL}}, NULL},
    [CF_OPT_CONTEMPT] = {"Contempt", "contempt", NULL, 0, CF_OPT_TYPE_STRING, "", 0, 0, {NULL},
                         "contempt in Elo, as value or name=value,... (name: matched against "
                         "UCI_Opponent, ignoring case); empty = UCI_RatingAdv",
                         {{NULL, NULL}}, cf_uci_contempt_changed},
    [CF_OPT_UCI_OPPONENT] = {"UCI_Opponent", "uci-opponent", NULL, 0, CF_OPT_TYPE_STRING, "", 0,
                             0, {NULL},
                             "the opponent, as a GUI passes it (title, Elo, computer or human, "
                             "name); Contempt's names are looked for in it",
                             {{NULL, NULL}}, cf_uci_opponent_changed},
    [CF_OPT_PONDER] = {"Ponder", "ponder", NULL, 0, CF_OPT_TYPE_CHECK, "false", 0, 0, {NULL},
                       "the GUI may send go ponder (the engine ponders only when told)", {{NULL, NULL}}, NULL},
    [CF_OPT_LOG_FILE] = {"LogFile", "logfile", NULL, 'l', CF_OPT_TYPE_STRING, "", 0, 0, {NULL},
                         "append every line read and written, timestamped, to this file; "
                         "<stderr> = standard error; empty = no log", {{NULL, NULL}}, cf_uci_log_changed},
    [CF_OPT_CONFIG_FILE] = {"ConfigFile", "config", NULL, 'c', CF_OPT_TYPE_STRING,
                            CF_CONFIG_DEFAULT_FILE, 0, 0, {NULL},
                            "file of flags read at startup, one a line (--threads=2; the "
                            "leading -- may be left out), # starts a comment; by default "
                            CF_CONFIG_DEFAULT_FILE " beside the binary, if there; empty = none", {{NULL, NULL}}, NULL},
};

/* The search's rows (CF_SEARCH_OPTIONS), made into options: the table's
 * tail, filled on first use with the rest. */
static void fill_search_rows(void) {
  static const cf_uci_option_type types[] = {
      [CF_SEARCH_PARAM_FLOAT] = CF_OPT_TYPE_FLOAT,
      [CF_SEARCH_PARAM_INT] = CF_OPT_TYPE_SPIN,
      [CF_SEARCH_PARAM_BOOL] = CF_OPT_TYPE_CHECK,
      [CF_SEARCH_PARAM_CHOICE] = CF_OPT_TYPE_COMBO,
  };
  static char defaults[CF_SEARCH_OPTION_COUNT][32];
  for (int i = 0; i < CF_SEARCH_OPTION_COUNT; i++) {
    const cf_search_param *r = cf_search_param_at(i);
    cf_uci_option_desc *o = &table[CF_OPT_SEARCH_FIRST + i];
    *o = (cf_uci_option_desc){.name = r->name, .flag = r->flag, .alias = r->alias,
                              .type = types[r->kind], .def = defaults[i], .min = r->min,
                              .max = r->max, .help = r->help,
                              .on_change = cf_uci_search_changed};
    switch (r->kind) {
    case CF_SEARCH_PARAM_FLOAT: snprintf(defaults[i], sizeof defaults[i], "%g", r->def); break;
    case CF_SEARCH_PARAM_INT: snprintf(defaults[i], sizeof defaults[i], "%.0f", r->def); break;
    case CF_SEARCH_PARAM_BOOL: snprintf(defaults[i], sizeof defaults[i], "%s", r->def ? "true" : "false"); break;
    case CF_SEARCH_PARAM_CHOICE:
      snprintf(defaults[i], sizeof defaults[i], "%s", r->choices[(int)r->def]);
      for (int k = 0; r->choices[k] && k < CF_UCI_OPTION_VARS_MAX - 1; k++) o->vars[k] = r->choices[k];
      break;
    }
  }
}

static void fill_once(void) {
  fill_search_rows();
  const char **v = table[CF_OPT_BACKEND].vars;
  int k = 0;
  v[k++] = "auto";
  for (int i = 0; i < cf_backend_count() && k < CF_UCI_OPTION_VARS_MAX - 1; i++)
    v[k++] = cf_backend_at(i)->name;
  v[k] = NULL;
  const char **a = table[CF_OPT_AGENT].vars;
  k = 0;
  for (int i = 0; i < cf_agent_count() && k < CF_UCI_OPTION_VARS_MAX - 1; i++)
    a[k++] = cf_agent_at(i)->name;
  a[k] = NULL;
}

/* Engines may be made on several threads at once (the library's users). */
static void fill_vars(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, fill_once);
}

const cf_uci_option_desc *cf_uci_option_at(cf_uci_option_id id) {
  fill_vars();
  return id >= 0 && id < CF_OPT_COUNT ? &table[id] : NULL;
}

const cf_uci_option_desc *cf_uci_option_by_name(const char *name, cf_uci_option_id *id) {
  fill_vars();
  for (int i = 0; name && i < CF_OPT_COUNT; i++)
    if (strcasecmp(table[i].name, name) == 0) {
      if (id) *id = (cf_uci_option_id)i;
      return &table[i];
    }
  return NULL;
}

const cf_uci_option_desc *cf_uci_option_by_flag(const char *flag, cf_uci_option_id *id) {
  fill_vars();
  for (int i = 0; flag && i < CF_OPT_COUNT; i++) {
    bool hit = flag[0] && !flag[1] ? table[i].short_flag == flag[0]
                                   : strcmp(table[i].flag, flag) == 0 ||
                                         (table[i].alias && strcmp(table[i].alias, flag) == 0);
    if (hit) {
      if (id) *id = (cf_uci_option_id)i;
      return &table[i];
    }
  }
  return NULL;
}

static void list_vars(const cf_uci_option_desc *o, char *out, size_t size) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; o->vars[i] && at < size; i++)
    at += (size_t)snprintf(out + at, size - at, "%s%s", i ? ", " : "", o->vars[i]);
}

/* The text check of cf_uci_option_check: the normalised text to out. */
static cf_status check_text(const cf_uci_option_desc *o, const char *text,
                            char out[CF_UCI_VALUE_MAX], cf_error *err) {
  if (!text) text = "";
  if (strlen(text) >= CF_UCI_VALUE_MAX)
    return cf_error_set(err, CF_ERR_ARG, "option %s: value too long (%zu characters, at most %d)",
                        o->name, strlen(text), CF_UCI_VALUE_MAX - 1);
  char *end;
  switch (o->type) {
  case CF_OPT_TYPE_STRING:
    snprintf(out, CF_UCI_VALUE_MAX, "%s", text);
    return CF_OK;
  case CF_OPT_TYPE_SPIN: {
    long v = strtol(text, &end, 10);
    if (!*text || *end || isspace((unsigned char)*text) || v < o->min || v > o->max)
      return cf_error_set(err, CF_ERR_ARG, "option %s: bad value '%s' (expected %g to %g)",
                          o->name, text, o->min, o->max);
    snprintf(out, CF_UCI_VALUE_MAX, "%ld", v);
    return CF_OK;
  }
  case CF_OPT_TYPE_FLOAT: {
    double v = strtod(text, &end);
    if (!*text || *end || isspace((unsigned char)*text) || !isfinite(v) || v < o->min ||
        v > o->max)
      return cf_error_set(err, CF_ERR_ARG, "option %s: bad value '%s' (expected %g to %g)",
                          o->name, text, o->min, o->max);
    snprintf(out, CF_UCI_VALUE_MAX, "%g", v);
    return CF_OK;
  }
  case CF_OPT_TYPE_CHECK:
    if (strcasecmp(text, "true") == 0 || strcasecmp(text, "false") == 0) {
      snprintf(out, CF_UCI_VALUE_MAX, "%s", strcasecmp(text, "true") == 0 ? "true" : "false");
      return CF_OK;
    }
    return cf_error_set(err, CF_ERR_ARG, "option %s: bad value '%s' (expected true or false)",
                        o->name, text);
  case CF_OPT_TYPE_COMBO:
    for (int i = 0; i < CF_UCI_OPTION_ALIASES_MAX && o->aliases[i][0]; i++)
      if (strcasecmp(o->aliases[i][0], text) == 0) text = o->aliases[i][1];
    for (int i = 0; o->vars[i]; i++)
      if (strcasecmp(o->vars[i], text) == 0) {
        snprintf(out, CF_UCI_VALUE_MAX, "%s", o->vars[i]);
        return CF_OK;
      }
    {
      char vars[512];
      list_vars(o, vars, sizeof vars);
      return cf_error_set(err, CF_ERR_ARG, "option %s: bad value '%s' (expected one of: %s)",
                          o->name, text, vars);
    }
  }
  return cf_error_set(err, CF_ERR_INTERNAL, "option %s: unknown type", o->name);
}

cf_status cf_uci_option_check(const cf_uci_option_desc *o, const char *text, cf_uci_value *out,
                              cf_error *err) {
  cf_uci_value v = {0};
  CF_TRY(check_text(o, text, v.text, err));
  if (o->type == CF_OPT_TYPE_SPIN) {
    v.i = strtol(v.text, NULL, 10);
    v.f = (double)v.i;
  } else if (o->type == CF_OPT_TYPE_FLOAT) {
    v.f = strtod(v.text, NULL);
  } else if (o->type == CF_OPT_TYPE_CHECK) {
    v.on = strcmp(v.text, "true") == 0;
    v.i = v.on;
    v.f = v.on;
  } else if (o->type == CF_OPT_TYPE_COMBO) {
    while (o->vars[v.i] && strcmp(o->vars[v.i], v.text) != 0) v.i++;
    v.f = (double)v.i;
  }
  *out = v;
  return CF_OK;
}

void cf_uci_option_line(const cf_uci_option_desc *o, char *out, size_t size) {
  static const char *const types[] = {"string", "spin", "string", "check", "combo"};
  int n = snprintf(out, size, "option name %s type %s default %s", o->name, types[o->type], o->def);
  size_t at = n > 0 ? (size_t)n : 0;
  if (o->type == CF_OPT_TYPE_SPIN && at < size)
    at += (size_t)snprintf(out + at, size - at, " min %d max %d", (int)o->min, (int)o->max);
  for (int i = 0; o->type == CF_OPT_TYPE_COMBO && o->vars[i] && at < size; i++)
    at += (size_t)snprintf(out + at, size - at, " var %s", o->vars[i]);
}

/* ---- an engine's values ------------------------------------------------- */

cf_status cf_uci_options_default(cf_uci *u, cf_error *err) {
  for (int i = 0; i < CF_OPT_COUNT; i++) {
    const cf_uci_option_desc *o = cf_uci_option_at((cf_uci_option_id)i);
    CF_TRY(cf_uci_option_check(o, o->def, &u->opt[i], err));
  }
  return CF_OK;
}

cf_status cf_uci_set_option_locked(cf_uci *u, cf_uci_option_id id, const char *value,
                                   cf_error *err) {
  const cf_uci_option_desc *o = cf_uci_option_at(id);
  if (!o) return cf_error_set(err, CF_ERR_ARG, "no option %d", (int)id);
  cf_uci_value v;
  CF_TRY(cf_uci_option_check(o, value, &v, err));
  const cf_uci_value old = u->opt[id];
  u->opt[id] = v;
  const cf_status st = o->on_change ? o->on_change(u, err) : CF_OK;
  if (st != CF_OK) u->opt[id] = old; /* the handler changed nothing */
  return st;
}

cf_status cf_uci_set_option(cf_uci *u, cf_uci_option_id id, const char *value, cf_error *err) {
  pthread_mutex_lock(&u->cmd_mu);
  cf_status st = cf_uci_set_option_locked(u, id, value, err);
  pthread_mutex_unlock(&u->cmd_mu);
  return st;
}

const char *cf_uci_get_option(const cf_uci *u, cf_uci_option_id id) {
  return id >= 0 && id < CF_OPT_COUNT ? u->opt[id].text : NULL;
}
