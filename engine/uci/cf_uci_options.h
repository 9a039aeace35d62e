/* cf_uci_options.h: the engine's options, declared once. The same table
 * drives the UCI `option` lines, `setoption`, and the command-line flags of
 * `cformer uci` (Lc0's names: --weights/-w, --backend/-b,
 * --backend-opts/-o, --threads/-t, ...). A value is parsed once, when it is
 * set (cf_uci_option_check), into a cf_uci_value: its normalised text and
 * its number or truth, so nothing reads it back with atoi/atof.
 *
 * Adding a search option: a row in CF_SEARCH_OPTIONS
 * (engine/search/cf_search_params.h); its UCI option is made from it.
 * Adding another option: a name in cf_uci_option_id (before
 * CF_OPT_SEARCH_FIRST) and its row in cf_uci_options.c's table (name, flag,
 * type, default, range, help, and the handler of a change where setting it
 * does more than store the value). The `option` line, setoption, the flag
 * and the parse follow from the row; the engine reads it as
 * u->opt[CF_OPT_...].i / .f / .on / .text. */
#ifndef CF_UCI_OPTIONS_H
#define CF_UCI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "engine/cf_engine_weights.h"
#include "engine/search/cf_search_params.h"
#include "engine/uci/cf_uci_text.h" /* CF_UCI_VALUE_MAX */

typedef enum cf_uci_option_id {
  CF_OPT_WEIGHTS_FILE = 0,
  CF_OPT_WEIGHTS_MAX_MB,
  CF_OPT_BACKEND,
  CF_OPT_BACKEND_OPTIONS,
  CF_OPT_THREADS,
  CF_OPT_AGENT,
  CF_OPT_HISTORY_FILL,
  CF_OPT_SHOW_WDL,
  CF_OPT_SHOW_MOVESLEFT,
  CF_OPT_UCI_CHESS960,
  CF_OPT_SYZYGY_PATH,
  /* The move's clock. */
  CF_OPT_MOVE_OVERHEAD,
  CF_OPT_TIME_MANAGER,
  CF_OPT_SLOWMOVER,
  /* The move played: Lc0's temperature (engine/cf_temperature.h). */
  CF_OPT_TEMPERATURE,
  CF_OPT_TEMP_DECAY_MOVES,
  CF_OPT_TEMP_DECAY_DELAY_MOVES,
  CF_OPT_TEMP_CUTOFF_MOVE,
  CF_OPT_TEMP_ENDGAME,
  CF_OPT_TEMP_VALUE_CUTOFF,
  CF_OPT_TEMP_VISIT_OFFSET,
  CF_OPT_SEED,
  /* A weaker engine on request: a node limit and a temperature per level
   * (engine/cf_strength.h). */
  CF_OPT_UCI_LIMIT_STRENGTH,
  CF_OPT_UCI_ELO,
  /* Output. */
  CF_OPT_MULTIPV,
  CF_OPT_VERBOSE_MOVE_STATS,
  CF_OPT_SCORE_TYPE,
  CF_OPT_PER_PV_COUNTERS,
  CF_OPT_SHOW_EPS,
  /* Contempt's text options (engine/uci/cf_uci_contempt.h); the rest of the
   * WDL family are search options. */
  CF_OPT_CONTEMPT,
  CF_OPT_UCI_OPPONENT,
  CF_OPT_PONDER,
  CF_OPT_LOG_FILE,
  CF_OPT_CONFIG_FILE,
  /* The search's options follow, one per row of CF_SEARCH_OPTIONS
   * (engine/search/cf_search_params.h), in its order: CF_OPT_SEARCH(cpuct). */
  CF_OPT_SEARCH_FIRST,
  CF_OPT_COUNT = CF_OPT_SEARCH_FIRST + CF_SEARCH_OPTION_COUNT
} cf_uci_option_id;

/* The UCI option of a search parameter, by its field name. */
#define CF_OPT_SEARCH(field) ((cf_uci_option_id)(CF_OPT_SEARCH_FIRST + CF_SEARCH_PARAM_##field))

typedef enum cf_uci_option_type {
  CF_OPT_TYPE_STRING, /* any text */
  CF_OPT_TYPE_SPIN,   /* integer in [min, max] */
  CF_OPT_TYPE_FLOAT,  /* decimal in [min, max]; shown to GUIs as `type string`, as Lc0 does */
  CF_OPT_TYPE_CHECK,  /* true | false */
  CF_OPT_TYPE_COMBO,  /* one of vars */
} cf_uci_option_type;

#define CF_UCI_OPTION_VARS_MAX 16
#define CF_UCI_OPTION_ALIASES_MAX 4

struct cf_uci;

/* What else setting an option does, after its value is stored (Stockfish's
 * on-change): a failure puts the old value back and is the setoption's
 * error. */
typedef cf_status (*cf_uci_option_changed_fn)(struct cf_uci *u, cf_error *err);

typedef struct cf_uci_option_desc {
  const char *name;       /* UCI name (matched without regard to case) */
  const char *flag;       /* long command-line flag, without the leading "--" */
  const char *alias;      /* another long flag accepted for it (older spelling), or NULL */
  char short_flag;        /* single-letter flag, or 0 */
  cf_uci_option_type type;
  const char *def;        /* default, as text */
  double min, max;        /* SPIN and FLOAT */
  const char *vars[CF_UCI_OPTION_VARS_MAX]; /* COMBO, NULL-terminated */
  const char *help;
  /* COMBO: other names taken for a var, as {name, var} pairs (Lc0's
   * spelling of the same thing), NULL-terminated */
  const char *aliases[CF_UCI_OPTION_ALIASES_MAX][2];
  cf_uci_option_changed_fn on_change; /* NULL: storing the value is all */
} cf_uci_option_desc;

/* An option's value, parsed once when set. */
typedef struct cf_uci_value {
  char text[CF_UCI_VALUE_MAX]; /* normalised text (check: "true"/"false"; combo: as declared) */
  long i;                      /* SPIN: the number; CHECK: 1/0; COMBO: the var's index */
  double f;                    /* FLOAT and SPIN: the number; CHECK: 1/0; COMBO: the index */
  bool on;                     /* CHECK: the truth; else false */
} cf_uci_value;

/* WeightsMaxMb's name and flag: the loader's refusal names them. */
#define CF_UCI_WEIGHTS_MAX_MB_NAME "WeightsMaxMb"
#define CF_UCI_WEIGHTS_MAX_MB_FLAG "weights-max-mb"

/* WeightsFile's special values are the loader's: CF_WEIGHTS_AUTODISCOVER
 * and CF_WEIGHTS_BUILT_IN (engine/cf_engine_weights.h). */

/* ConfigFile's default: this file beside the binary, read when there (Lc0 reads
 * lc0.config so). */
#define CF_CONFIG_DEFAULT_FILE "cformer.config"

const cf_uci_option_desc *cf_uci_option_at(cf_uci_option_id id);
/* By UCI name, case-insensitive; NULL if none. */
const cf_uci_option_desc *cf_uci_option_by_name(const char *name, cf_uci_option_id *id);
/* By command-line flag: "weights", an alias, or the letter 'w'; NULL if none. */
const cf_uci_option_desc *cf_uci_option_by_flag(const char *flag, cf_uci_option_id *id);

/* Checks text against the option's type and writes the parsed value to out
 * (out is left as it was on failure). CF_ERR_ARG naming the option and the
 * accepted values otherwise. */
cf_status cf_uci_option_check(const cf_uci_option_desc *o, const char *text, cf_uci_value *out,
                              cf_error *err);

/* The `option name ... type ...` line (no newline). */
void cf_uci_option_line(const cf_uci_option_desc *o, char *out, size_t size);

/* For engine/uci/ only: every option of u at its default; setting one with
 * the command lock held (cf_uci_set_option takes it). */
cf_status cf_uci_options_default(struct cf_uci *u, cf_error *err);
cf_status cf_uci_set_option_locked(struct cf_uci *u, cf_uci_option_id id, const char *value,
                                   cf_error *err);

#endif /* CF_UCI_OPTIONS_H */
