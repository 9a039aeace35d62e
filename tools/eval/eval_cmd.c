/* eval_cmd.c: `cformer eval`, the network's outputs for positions given as
 * JSON lines, in the parity case schema (data/parity/README.md).
 *
 *     cformer eval --weights NET [--cases FILE] [--backend NAME] [--batch N]
 *                  [--backend-opts OPTS] [--threads N] [--weights-max-mb MB]
 *                  [--history-fill fen_only|no|always] [--no-planes]
 *                  [--policy logits|softmax] [--policy-softmax-temp T] [--bench RUNS]
 *
 * Each input line is an object with "id", "fen" (default: the start
 * position) and "moves" (UCI, played from fen); other keys are ignored, so a
 * parity case file can be fed as it is. Each output line has "id", "fen",
 * "moves", "input_format", "transform", "planes" (unless --no-planes),
 * "wdl", "q", "moves_left", "value_heads", "policy" (every policy head of
 * the net: raw logits of the legal moves keyed by UCI text, or with
 * --policy softmax their probabilities, and "policy_softmax_temp") and
 * "policy_index", with numbers to 9 significant digits, so a script can
 * compare any two implementations (schema: docs/CLI.md). A line that
 * cannot be evaluated gives {"id": ..., "error": "..."} and exit status 1
 * (as does a network or cases file that cannot be read; 2 is a bad command
 * line, tools/cli/cf_cli.h).
 *
 * Streaming: each answer is written and flushed as soon as it is computed;
 * lines are batched (up to --batch) only while more input is ready at
 * once, so a program may write a line and wait for its answer
 * (tools/eval/line_reader.h). --bench RUNS then evaluates the whole set RUNS
 * more times and reports evaluations per second on stderr. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_net_input.h"
#include "net/cf_net.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/eval/line_reader.h"
#include "weights/cf_weights.h"

#define PROG "cformer eval" /* cf_cli_fail's prefix */

#define DEFAULT_BATCH 16
#define MAX_BATCH 4096

typedef struct eval_args {
  const char *weights, *cases, *backend, *backend_opts;
  int batch, bench, threads;
  cf_history_fill fill;
  cf_weights_load_options load; /* --weights-max-mb */
  bool planes;       /* --planes (default) / --no-planes: the input planes in the output */
  int policy;        /* --policy: POLICY_LOGITS or POLICY_SOFTMAX */
  double policy_temp; /* --policy-softmax-temp, with --policy softmax */
} eval_args;

enum { POLICY_LOGITS, POLICY_SOFTMAX };
#define DEFAULT_POLICY_TEMP 1.0

/* One input line and everything computed for it. */
typedef struct eval_case {
  cJSON *input;                 /* the parsed line (owned), for id / fen / moves */
  char error[CF_ERROR_MSG_MAX]; /* non-empty: the case could not be evaluated */
  cf_net_position position;
  int n_moves;
  cf_policy_move moves[CF_MAX_MOVES];
  char uci[CF_MAX_MOVES][CF_UCI_MOVE_MAX];
  bool black_to_move;
  cf_planes planes;
  cf_net_output out;
  float policy[CF_POLICY_HEAD_COUNT][CF_MAX_MOVES];
  float *cat; /* owned: every value head's categorical logits */
} eval_case;

#define USAGE                                                                                 \
  "usage: cformer eval --weights NET [--cases FILE] [--backend NAME] [--batch N]\n"            \
  "                    [--backend-opts K=V,...] [--threads N] [--history-fill fen_only|no|always]\n" \
  "                    [--no-planes] [--policy logits|softmax] [--policy-softmax-temp T]\n"   \
  "                    [--bench RUNS] [--weights-max-mb MB]\n\n"                                \
  "Evaluates positions given as JSON lines ({\"id\", \"fen\", \"moves\"}; a parity case\n"      \
  "file works as is) and writes one JSON line per position: input planes, transform,\n"       \
  "W/D/L, Q, moves left, extra value heads and the policy of every legal move for\n"         \
  "each policy head (raw logits, or probabilities with --policy softmax), in the\n"          \
  "parity case schema (docs/CLI.md). Each answer is written as soon as it is computed:\n"    \
  "a program may write a line and wait for its answer.\n\n"

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Returns -1 when the arguments are fine, else the exit status. */
static int parse_args(int argc, char **argv, eval_args *a) {
  *a = (eval_args){
      .batch = DEFAULT_BATCH, .fill = CF_HISTORY_FILL_FEN_ONLY, .load = CF_CLI_WEIGHTS_LOAD,
      .planes = true, .policy = POLICY_LOGITS, .policy_temp = DEFAULT_POLICY_TEMP};
  static const char *const fills[] = {"fen_only", "no", "always", NULL};
  static const char *const policies[] = {"logits", "softmax", NULL};
  char batch_help[80];
  snprintf(batch_help, sizeof batch_help, "positions per network pass, 1-%d (default %d)",
           MAX_BATCH, DEFAULT_BATCH);
  cf_cli_flag flags[] = {
      {.name = "weights", .letter = 'w', .kind = CF_CLI_STRING, .dest = &a->weights, .arg = "NET",
       .attrs = CF_CLI_REQUIRED, .help = "network file (.pb.gz), or <built in>"},
      CF_CLI_WEIGHTS_MAX_MB_FLAG(&a->load),
      {.name = "cases", .kind = CF_CLI_STRING, .dest = &a->cases, .arg = "FILE",
       .help = "read positions from FILE (default: standard input)"},
      {.name = "backend", .letter = 'b', .kind = CF_CLI_STRING, .dest = &a->backend, .arg = "NAME",
       .set = cf_cli_check_backend, .help = "compute backend (default: the best available)"},
      {.name = "backend-opts", .letter = 'o', .kind = CF_CLI_STRING, .dest = &a->backend_opts,
       .arg = "S", .help = "backend options, e.g. threads=2 (docs/BACKENDS.md)"},
      {.name = "threads", .letter = 't', .kind = CF_CLI_INT, .dest = &a->threads, .imin = 1,
       .imax = 128, .help = "threads evaluating each batch (lanes=N unless --backend-opts sets lanes or threads)"},
      {.name = "batch", .kind = CF_CLI_INT, .dest = &a->batch, .imin = 1, .imax = MAX_BATCH,
       .help = batch_help},
      {.name = "history-fill", .kind = CF_CLI_CHOICE, .choices = fills, .arg = "M",
       .set = cf_cli_set_history_fill, .ctx = &a->fill,
       .help = "Lc0's HistoryFill: fen_only (default), no, always"},
      {.name = "bench", .kind = CF_CLI_INT, .dest = &a->bench, .imin = 0, .imax = 1000000,
       .arg = "RUNS", .help = "then evaluate everything RUNS more times and report evals/s"},
      {.name = "planes", .kind = CF_CLI_BOOL, .dest = &a->planes,
       .help = "write the 112 input planes (default); --no-planes leaves them out"},
      {.name = "policy", .kind = CF_CLI_CHOICE, .choices = policies, .dest = &a->policy,
       .arg = "KIND",
       .help = "logits (default: the raw logits) or softmax (probabilities over\n"
               "the legal moves, at --policy-softmax-temp)"},
      {.name = "policy-softmax-temp", .alias = "policy-temperature", .kind = CF_CLI_DOUBLE,
       .dest = &a->policy_temp, .arg = "T", .dmin = 0.1, .dmax = 10,
       .help = "softmax temperature of --policy softmax, 0.1 to 10 (default 1:\n"
               "the network's own distribution; the engine's priors use 1.359)"},
  };
  cf_cli_spec spec = {.prog = "cformer eval", .version = "cformer " CF_VERSION, .usage = USAGE,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
  if (a->backend && strcmp(a->backend, "auto") == 0) a->backend = NULL;
  if (a->policy != POLICY_SOFTMAX && cf_cli_given(&spec, "policy-softmax-temp"))
    return cf_cli_usage_error(&spec, "--policy-softmax-temp needs --policy softmax");
  return -1;
}

/* Replays the case's game and prepares its request; on failure fills
 * c->error. */
static void prepare_case(eval_case *c, const cf_net *net) {
  const cJSON *fen = cJSON_GetObjectItemCaseSensitive(c->input, "fen");
  const cJSON *moves = cJSON_GetObjectItemCaseSensitive(c->input, "moves");
  if (fen && !cJSON_IsString(fen)) {
    snprintf(c->error, sizeof c->error, "\"fen\" is not a string");
    return;
  }
  if (moves && !cJSON_IsArray(moves)) {
    snprintf(c->error, sizeof c->error, "\"moves\" is not an array");
    return;
  }
  cf_game game;
  cf_error err = {0};
  if (cf_game_init_fen(&game, fen ? fen->valuestring : CF_FEN_STARTPOS, &err) != CF_OK) {
    snprintf(c->error, sizeof c->error, "%s", err.msg);
    return;
  }
  const cJSON *m;
  cJSON_ArrayForEach(m, moves) {
    if (!cJSON_IsString(m)) {
      snprintf(c->error, sizeof c->error, "a move is not a string");
      break;
    }
    if (cf_game_push_uci(&game, m->valuestring, &err) != CF_OK) {
      snprintf(c->error, sizeof c->error, "%s", err.msg);
      break;
    }
  }
  if (!c->error[0]) {
    const cf_net_info *info = cf_net_get_info(net);
    const cf_position *pos = cf_game_position(&game);
    cf_move legal[CF_MAX_MOVES];
    cf_engine_net_position(&game, info->input_format, &c->position);
    c->n_moves = cf_engine_legal_policy_moves(pos, legal, c->moves);
    c->black_to_move = pos->side == CF_BLACK;
    for (int i = 0; i < c->n_moves; i++) cf_move_write_uci(legal[i], pos->chess960, c->uci[i]);
  }
  cf_game_free(&game);
}

/* Binds the case's output buffers to the heads the net computes. */
static bool bind_outputs(eval_case *c, const cf_net *net) {
  const cf_net_info *info = cf_net_get_info(net);
  int total = 0;
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) total += info->value_cat[h];
  c->cat = malloc((size_t)(total ? total : 1) * sizeof(float));
  if (!c->cat) return false;
  for (int h = 0, at = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    c->out.value_cat[h] = info->value_cat[h] ? c->cat + at : NULL;
    at += info->value_cat[h];
  }
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    c->out.policy[h] = (info->policy_heads >> h & 1) ? c->policy[h] : NULL;
  return true;
}

/* A number as JSON text with 9 significant digits (the case files' form);
 * NaN becomes null. */
static void add_number(cJSON *obj, const char *key, double v) {
  char text[32];
  if (isnan(v) || isinf(v)) {
    cJSON_AddNullToObject(obj, key);
    return;
  }
  snprintf(text, sizeof text, "%.9g", v);
  cJSON_AddRawToObject(obj, key, text);
}

static void push_number(cJSON *arr, double v) {
  char text[32];
  snprintf(text, sizeof text, "%.9g", v);
  cJSON_AddItemToArray(arr, isnan(v) || isinf(v) ? cJSON_CreateNull() : cJSON_CreateRaw(text));
}

/* Copies key from the input line (id, fen, moves), if present. */
static void echo(cJSON *out, const cJSON *in, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, key);
  if (v) cJSON_AddItemToObject(out, key, cJSON_Duplicate(v, 1));
}

/* The head's policy over the legal moves as probabilities:
 * softmax(logit / T), computed from the largest logit down so that no
 * exp() overflows. */
static void softmax(const float *logits, int n, double temp, double *p) {
  double top = -INFINITY, sum = 0;
  for (int i = 0; i < n; i++)
    if (logits[i] > top) top = logits[i];
  for (int i = 0; i < n; i++) sum += p[i] = exp((logits[i] - top) / temp);
  for (int i = 0; i < n && sum > 0; i++) p[i] /= sum;
}

static cJSON *case_json(const eval_case *c, const cf_net *net, const eval_args *a) {
  const cf_net_info *info = cf_net_get_info(net);
  const cf_net_output *o = &c->out;
  cJSON *j = cJSON_CreateObject();
  echo(j, c->input, "id");
  if (c->error[0]) {
    cJSON_AddStringToObject(j, "error", c->error);
    return j;
  }
  if (cJSON_GetObjectItemCaseSensitive(c->input, "fen"))
    echo(j, c->input, "fen");
  else
    cJSON_AddStringToObject(j, "fen", CF_FEN_STARTPOS);
  if (cJSON_GetObjectItemCaseSensitive(c->input, "moves"))
    echo(j, c->input, "moves");
  else
    cJSON_AddArrayToObject(j, "moves");
  cJSON_AddNumberToObject(j, "input_format", info->input_format);
  cJSON_AddNumberToObject(j, "transform", o->transform);
  cJSON *planes = a->planes ? cJSON_AddArrayToObject(j, "planes") : NULL;
  for (int p = 0; planes && p < CF_PLANE_COUNT; p++) {
    char mask[24];
    snprintf(mask, sizeof mask, "0x%016llx", (unsigned long long)c->planes.mask[p]);
    cJSON *pl = cJSON_CreateObject();
    cJSON_AddStringToObject(pl, "mask", mask);
    add_number(pl, "value", c->planes.value[p]);
    cJSON_AddItemToArray(planes, pl);
  }
  cJSON *wdl = cJSON_AddArrayToObject(j, "wdl");
  for (int i = 0; i < 3; i++) push_number(wdl, o->wdl[i]);
  add_number(j, "q", o->q);
  add_number(j, "moves_left", info->has_moves_left ? o->moves_left : NAN);
  cJSON *values = cJSON_AddObjectToObject(j, "value_heads");
  for (int h = CF_VALUE_Q; h < CF_VALUE_HEAD_COUNT; h++) {
    if (!(info->value_heads >> h & 1)) continue;
    const cf_value_result *r = &o->value[h];
    cJSON *v = cJSON_AddObjectToObject(values, cf_value_head_name((cf_value_head_id)h));
    add_number(v, "q", r->q);
    if (r->outputs == 3) {
      cJSON *w = cJSON_AddArrayToObject(v, "wdl");
      for (int i = 0; i < 3; i++) push_number(w, r->wdl[i]);
    }
    if (r->has_err) add_number(v, "err", r->err);
    if (r->n_cat) {
      cJSON *cat = cJSON_AddArrayToObject(v, "cat_logits");
      for (int i = 0; i < r->n_cat; i++) push_number(cat, o->value_cat[h][i]);
    }
  }
  if (a->policy == POLICY_SOFTMAX) add_number(j, "policy_softmax_temp", a->policy_temp);
  cJSON *policy = cJSON_AddObjectToObject(j, "policy");
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
    if (!o->policy[h]) continue;
    cJSON *head = cJSON_AddObjectToObject(policy, cf_policy_head_name((cf_policy_head_id)h));
    double p[CF_MAX_MOVES];
    if (a->policy == POLICY_SOFTMAX) softmax(o->policy[h], c->n_moves, a->policy_temp, p);
    for (int i = 0; i < c->n_moves; i++)
      add_number(head, c->uci[i], a->policy == POLICY_SOFTMAX ? p[i] : o->policy[h][i]);
  }
  cJSON *index = cJSON_AddObjectToObject(j, "policy_index");
  for (int i = 0; i < c->n_moves; i++)
    cJSON_AddNumberToObject(index, c->uci[i],
                            cf_policy_move_index(c->moves[i], c->black_to_move, o->transform));
  char source[96];
  snprintf(source, sizeof source, "cformer %s, backend %s", CF_VERSION, info->backend);
  cJSON_AddStringToObject(j, "source", source);
  return j;
}

/* A case for one input line (a line that is not a JSON object becomes a
 * case with an error); NULL when out of memory. */
static eval_case *new_case(const char *line, long number) {
  eval_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->input = cJSON_Parse(line);
  if (!cJSON_IsObject(c->input)) {
    cJSON_Delete(c->input);
    c->input = cJSON_CreateObject();
    snprintf(c->error, sizeof c->error, "line %ld is not a JSON object", number);
  }
  return c;
}

static void free_case(eval_case *c) {
  if (!c) return;
  cJSON_Delete(c->input);
  free(c->cat);
  free(c);
}

/* Evaluates the cases that have no error, in passes of the net's batch. */
static cf_status evaluate(cf_net *net, eval_case **cases, int n, cf_net_request *req,
                          cf_net_output *out, cf_error *err) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    eval_case *c = cases[i];
    if (c->error[0]) continue;
    req[k] = (cf_net_request){.position = &c->position, .moves = c->moves, .n_moves = c->n_moves};
    out[k++] = c->out;
  }
  if (k == 0) return CF_OK;
  CF_TRY(cf_net_eval(net, k, req, out, err));
  for (int i = 0, j = 0; i < n; i++)
    if (!cases[i]->error[0]) cases[i]->out = out[j++];
  return CF_OK;
}

static cf_net *open_net(const eval_args *a, cf_error *err) {
  cf_weights *w = NULL;
  cf_kv *kv = NULL;
  if (cf_cli_backend_options(a->backend_opts, a->threads, &kv, err) != CF_OK ||
      cf_cli_load_weights(a->weights, &a->load, &w, err) != CF_OK) {
    cf_kv_free(kv);
    return NULL;
  }
  cf_net_options opts = {.backend = a->backend,
                         .backend_kv = kv,
                         .max_batch = a->batch,
                         .history_fill = a->fill};
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (w->arch.has_policy[h]) opts.policy_heads |= 1u << h;
  for (int h = CF_VALUE_Q; h < CF_VALUE_HEAD_COUNT; h++)
    if (w->arch.has_value[h]) opts.value_heads |= 1u << h;
  cf_net *net = NULL;
  cf_net_create(w, &opts, &net, err);
  cf_weights_free(w);
  cf_kv_free(kv);
  return net;
}

/* The cases read but not answered yet, and with --bench every valid case
 * (kept for the timing runs). */
typedef struct case_list {
  eval_case **items;
  int count, cap;
} case_list;

static bool push_case(case_list *l, eval_case *c) {
  if (l->count == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    eval_case **grown = realloc(l->items, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    l->items = grown;
    l->cap = cap;
  }
  l->items[l->count++] = c;
  return true;
}

/* Answers the pending cases: one network pass over the valid ones, a line
 * each, in input order, flushed at once. Each answered case is freed or,
 * with --bench, moved to kept. Returns false when the network failed
 * (then nothing is printed for them). */
static bool answer(const eval_args *a, cf_net *net, case_list *pending, case_list *kept,
                   cf_net_request *req, cf_net_output *out, bool *line_failed) {
  cf_error err = {0};
  if (evaluate(net, pending->items, pending->count, req, out, &err) != CF_OK) {
    cf_cli_fail(PROG, "%s", err.msg);
    return false;
  }
  for (int i = 0; i < pending->count; i++) {
    eval_case *c = pending->items[i];
    cJSON *j = case_json(c, net, a);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    if (text) puts(text);
    else *line_failed = true;
    free(text);
    cJSON_Delete(j);
    if (c->error[0]) *line_failed = true;
    if (a->bench > 0 && !c->error[0] && push_case(kept, c)) continue;
    free_case(c);
  }
  pending->count = 0;
  fflush(stdout);
  return true;
}

/* --bench RUNS: every valid case RUNS more times, timed; on stderr. */
static int bench_runs(const eval_args *a, cf_net *net, case_list *kept) {
  if (kept->count == 0) return 0;
  cf_net_request *req = malloc((size_t)kept->count * sizeof *req);
  cf_net_output *out = malloc((size_t)kept->count * sizeof *out);
  if (!req || !out) {
    free(req);
    free(out);
    return cf_cli_fail(PROG, "out of memory");
  }
  int rc = 0;
  cf_error err = {0};
  /* Wall time, and process CPU time (what a loaded machine does not skew,
   * as long as the backend runs on one thread). */
  double t0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  for (int r = 0; r < a->bench; r++)
    if (evaluate(net, kept->items, kept->count, req, out, &err) != CF_OK) {
      rc = cf_cli_fail(PROG, "%s", err.msg);
      break;
    }
  double dt = seconds(CLOCK_MONOTONIC) - t0, dc = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  double evals = (double)kept->count * a->bench;
  if (rc == 0)
    fprintf(stderr,
            "cformer eval: %d positions x %d runs in %.3f s: %.1f evals/s (%.1f per CPU second; "
            "backend %s, batch %d)\n",
            kept->count, a->bench, dt, dt > 0 ? evals / dt : 0.0, dc > 0 ? evals / dc : 0.0,
            cf_net_get_info(net)->backend, a->batch);
  free(req);
  free(out);
  return rc;
}

int cf_cmd_eval(int argc, char **argv) {
  eval_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  cf_error err = {0};
  cf_net *net = open_net(&a, &err);
  if (!net) {
    cf_cli_fail(PROG, "%s", err.msg);
    return cf_cli_net_failure_status(err.status);
  }
  int fd = STDIN_FILENO;
  if (a.cases && (fd = open(a.cases, O_RDONLY | O_CLOEXEC)) < 0) {
    cf_net_free(net);
    return cf_cli_fail(PROG, "cannot open %s: %s", a.cases, strerror(errno));
  }
  line_reader in;
  line_reader_init(&in, fd);
  case_list pending = {0}, kept = {0};
  cf_net_request *req = malloc((size_t)a.batch * sizeof *req);
  cf_net_output *out = malloc((size_t)a.batch * sizeof *out);
  bool broken = !(req && out) && cf_cli_fail(PROG, "out of memory"), line_failed = false;
  long number = 0;
  char *line;
  ssize_t len;
  /* Streaming: the lines read so far are answered as soon as the next one
   * is not there yet (or a batch is full), so a program that writes a line
   * and waits gets its answer; lines that are ready together share a pass. */
  while (!broken) {
    if (pending.count > 0 && (pending.count == a.batch || !line_reader_ready(&in)))
      broken = !answer(&a, net, &pending, &kept, req, out, &line_failed);
    if (broken || (len = line_reader_next(&in, &line)) < 0) break;
    number++;
    bool blank = true;
    for (ssize_t i = 0; i < len; i++) blank &= strchr(" \t\r", line[i]) != NULL;
    if (blank) continue;
    eval_case *c = new_case(line, number);
    if (!c || !push_case(&pending, c)) {
      free_case(c);
      broken = cf_cli_fail(PROG, "out of memory");
      break;
    }
    if (!c->error[0]) prepare_case(c, net);
    if (!bind_outputs(c, net)) broken = cf_cli_fail(PROG, "out of memory");
    else if (!c->error[0])
      c->out.transform = cf_net_encode_planes(&c->position, a.fill, &c->planes);
  }
  if (!broken && pending.count > 0)
    broken = !answer(&a, net, &pending, &kept, req, out, &line_failed);
  if (!broken && in.error) broken = cf_cli_fail(PROG, "reading %s: %s", a.cases ? a.cases : "standard input",
                                        strerror(in.error));
  rc = broken || line_failed ? 1 : 0;
  if (!broken && a.bench > 0 && bench_runs(&a, net, &kept) != 0) rc = 1;
  for (int i = 0; i < pending.count; i++) free_case(pending.items[i]);
  for (int i = 0; i < kept.count; i++) free_case(kept.items[i]);
  free(pending.items);
  free(kept.items);
  free(req);
  free(out);
  line_reader_free(&in);
  if (fd != STDIN_FILENO) close(fd);
  cf_net_free(net);
  return rc;
}
