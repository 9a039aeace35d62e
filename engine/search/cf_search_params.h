/* cf_search_params.h: the search's parameters, declared once.
 *
 * Each row of CF_SEARCH_OPTIONS is one parameter: the field of
 * cf_search_params, its C type, its kind, Lc0's UCI name, the command-line
 * flag (and an older spelling, or NULL), the default, the range and the help
 * text. From the rows come the struct, cf_search_params_default, the range
 * check of cf_search_set_params and the UCI option and flag of each (the UCI
 * room reads cf_search_param_at). Adding a search option is one row here and
 * its use in the search (docs/DEVELOPING.md shows one).
 *
 * Families of options have their own table, in the same row layout, joined
 * at the end of CF_SEARCH_OPTIONS: cf_search_params_wdl.h (WDL rescaling
 * and contempt) and cf_search_params_lc0.h (Lc0's further search options).
 *
 * CF_SEARCH_KNOBS are parameters without a UCI option (a developer's or a
 * test's, set through the struct); they are checked the same way.
 *
 * Kinds: FLOAT and INT are numbers in [min, max]; BOOL is 0 or 1; CHOICE is
 * the index of one of the row's choices (the default is an index too). */
#ifndef CF_SEARCH_PARAMS_H
#define CF_SEARCH_PARAMS_H

#include <stdbool.h>

#include "common/cf_status.h"
#include "engine/search/cf_search_params_lc0.h"
#include "engine/search/cf_search_params_wdl.h"

/* X(field, ctype, kind, name, flag, alias, def, min, max, choices, help) */
#define CF_SEARCH_OPTIONS(X)                                                                       \
  X(cpuct, float, FLOAT, "CPuct", "cpuct", NULL, 1.745, 0, 100, NULL,                              \
    "search: exploration constant of PUCT (higher explores more)")                                 \
  X(cpuct_factor, float, FLOAT, "CPuctFactor", "cpuct-factor", NULL, 3.894, 0, 1000, NULL,         \
    "search: growth of CPuct with visits")                                                         \
  X(cpuct_base, float, FLOAT, "CPuctBase", "cpuct-base", NULL, 38739, 1, 1e9, NULL,                \
    "search: visits at which CPuct has grown by CPuctFactor * ln 2")                               \
  X(fpu_absolute, bool, CHOICE, "FpuStrategy", "fpu-strategy", NULL, 0, 0, 1,                      \
    CF_SEARCH_CHOICES("reduction", "absolute"),                                                    \
    "search: value of unvisited moves: the parent's Q reduced by FpuValue * sqrt(visited "         \
    "policy), or FpuValue itself")                                                                 \
  X(fpu_value, float, FLOAT, "FpuValue", "fpu-value", NULL, 0.33, -100, 100, NULL,                 \
    "search: first-play urgency (see FpuStrategy)")                                                \
  X(policy_temperature, float, FLOAT, "PolicyTemperature", "policy-softmax-temp",                  \
    "policy-temperature", 1.359, 0.1, 10, NULL,                                                    \
    "policy softmax temperature: the search's priors and the reported policy; higher widens "     \
    "the search")                                                                                  \
  X(draw_score, float, FLOAT, "DrawScore", "draw-score", NULL, 0, -1, 1, NULL,                     \
    "search: a draw's value to White (Black gets its negative)")                                   \
  X(two_fold_draws, bool, BOOL, "TwoFoldDraws", "two-fold-draws", NULL, 1, 0, 1, NULL,             \
    "search: a position repeated inside the search tree is a draw")                                \
  X(minibatch_size, int, INT, "MinibatchSize", "minibatch-size", NULL, 0, 0, 1024, NULL,           \
    "search: positions per network call; 0 = the backend's default (ref 8, onednn/openblas "      \
    "16, cuda 256)")                                                                               \
  X(nn_cache_size, long, INT, "NNCacheSize", "nncache", NULL, 2000000, 0, 999999999, NULL,         \
    "search: positions whose network output is kept (across moves; cleared by ucinewgame)")       \
  X(smart_pruning_factor, float, FLOAT, "SmartPruningFactor", "smart-pruning-factor", NULL, 1.33,  \
    0, 10, NULL,                                                                                   \
    "search: stop when no other move can catch the best in the time or nodes left (divided by "   \
    "this); 0 = off")                                                                              \
  X(ram_limit_mb, long, INT, "RamLimitMb", "ramlimit-mb", NULL, 0, 0, 100000000, NULL,             \
    "search: stop when the tree holds this many MiB; 0 = no limit")                               \
  X(lczero_gather, bool, BOOL, "LcZeroGather", "lczero-gather", NULL, 0, 0, 1, NULL,             \
    "search: gather batches as Lc0 does: a collision stands for several visits, bounded by "      \
    "MaxCollisionVisits and its scaling alone (below 28 nodes, 1 collision visit a batch)")       \
  CF_SEARCH_WDL_OPTIONS(X)                                                                         \
  CF_SEARCH_LC0_OPTIONS(X)

#define CF_SEARCH_KNOBS(X)                                                                         \
  X(fill_batches, bool, BOOL, NULL, NULL, NULL, 0, 0, 1, NULL,                                     \
    "multi-visit collisions under a budget (MaxCollisionVisits and its scaling), as Lc0 gathers " \
    "(cf_search_gather.c); off until a match shows it costs no strength")                          \
  X(batches_in_flight, int, INT, NULL, NULL, NULL, 1, 1, 16, NULL,                                 \
    "batches in the network at once: 1 = gather, evaluate, back up in turn; more keep a device " \
    "busy: the next batch is gathered while the last ones compute (the UCI engine sets it from " \
    "Threads on device backends)")                                                                 \
  X(noise_epsilon, float, FLOAT, NULL, NULL, NULL, 0, 0, 1, NULL,                                  \
    "Lc0's DirichletNoiseEpsilon (selfplay): the share of Dirichlet noise mixed into the root's " \
    "priors; 0 = none (cf_search_noise.c)")                                                        \
  X(noise_alpha, float, FLOAT, NULL, NULL, NULL, 0.3, 0.001, 1e7, NULL,                            \
    "Lc0's DirichletNoiseAlpha: the concentration of that noise")                                  \
  CF_SEARCH_WDL_KNOBS(X)

/* A CHOICE row's names, NULL-terminated (a static array). */
#define CF_SEARCH_CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})

typedef struct cf_search_params {
#define CF_SEARCH_PARAM_FIELD(field, ctype, ...) ctype field;
  CF_SEARCH_OPTIONS(CF_SEARCH_PARAM_FIELD)
  CF_SEARCH_KNOBS(CF_SEARCH_PARAM_FIELD)
#undef CF_SEARCH_PARAM_FIELD
} cf_search_params;

/* Row numbers: CF_SEARCH_PARAM_cpuct, ...; the options come first, so
 * those below CF_SEARCH_OPTION_COUNT are the UCI options. */
typedef enum cf_search_param_id {
#define CF_SEARCH_PARAM_ID(field, ...) CF_SEARCH_PARAM_##field,
  CF_SEARCH_OPTIONS(CF_SEARCH_PARAM_ID)
  CF_SEARCH_OPTION_COUNT,
  CF_SEARCH_KNOBS_BEFORE = CF_SEARCH_OPTION_COUNT - 1,
  CF_SEARCH_KNOBS(CF_SEARCH_PARAM_ID)
  CF_SEARCH_PARAM_COUNT
#undef CF_SEARCH_PARAM_ID
} cf_search_param_id;

typedef enum cf_search_param_kind {
  CF_SEARCH_PARAM_FLOAT,
  CF_SEARCH_PARAM_INT,
  CF_SEARCH_PARAM_BOOL,
  CF_SEARCH_PARAM_CHOICE,
} cf_search_param_kind;

typedef struct cf_search_param {
  const char *field; /* of cf_search_params */
  const char *name;  /* Lc0's UCI name; NULL for a knob */
  const char *flag;  /* long command-line flag, without "--" */
  const char *alias; /* an older spelling of the flag, or NULL */
  cf_search_param_kind kind;
  double def, min, max;
  const char *const *choices; /* CHOICE: the names, NULL-terminated; the value is the index */
  const char *help;
  /* The field as a number (CHOICE: the index; BOOL: 0 or 1). */
  double (*get)(const cf_search_params *p);
  void (*set)(cf_search_params *p, double v);
} cf_search_param;

/* The row of id (0 <= id < CF_SEARCH_PARAM_COUNT), NULL otherwise. */
const cf_search_param *cf_search_param_at(int id);

/* Every parameter at its default (Lc0's, where Lc0 has the option). */
void cf_search_params_default(cf_search_params *p);

/* Every parameter in its row's range; CF_ERR_ARG naming the first that is
 * not, with its range. */
cf_status cf_search_params_check(const cf_search_params *p, cf_error *err);

/* The backend's own minibatch (cf_backend_desc.default_minibatch: ref 8,
 * the CPU backends 16, cuda 256; docs/SEARCH.md says why), by backend
 * name: NULL, "" or "auto" mean the backend a net gets by default; a name
 * no backend has gets 32. */
int cf_search_default_minibatch(const char *backend);

/* The MinibatchSize a search runs at: the parameter, or when it is 0 the
 * backend's (cf_search_default_minibatch). */
int cf_search_minibatch(const cf_search_params *p, const char *backend);

#endif /* CF_SEARCH_PARAMS_H */
