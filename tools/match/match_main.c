/* cformer-match: plays cformer against any UCI engine and reports W/D/L
 * with the Elo difference and its 95% interval.
 *
 *     cformer-match --games 200 --movetime 500 --opponent-elo 1350 --pgn out.pgn
 *
 * Openings (data/match/openings.txt, shipped as share/cformer/match/openings.txt, by
 * default) are played in order, each
 * twice with colours swapped. Games are adjudicated by the rules; an
 * illegal move, a crash or a timeout loses. --concurrency N plays N games
 * at once, each worker with its own pair of engine processes. Flags:
 * tools/cli/cf_cli.h. Exit status: 0 done, 1 the openings, the PGN file or
 * an engine that does not start, 2 bad arguments (nothing started or
 * written), 3 when cformer lost a game by a fault (illegal move, crash,
 * timeout). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chess/cf_move_uci.h"
#include "tools/match/cf_elo.h"
#include "tools/match/cf_engine_proc.h"
#include "tools/match/cf_match_game.h"
#include "tools/cli/cf_cli.h"
#include "tools/data/cf_data_path.h"
#include "tools/match/cf_openings.h"
#include "chess/cf_san.h"
#include "tools/match/cf_sprt.h"

#define MAX_CONCURRENCY 64

typedef struct match_args {
  cf_engine_spec cformer, opponent;
  char cformer_default[PATH_MAX + 8];
  char elo_opts[2][64];
  const char *openings, *pgn, *rss_log;
  int games, concurrency;
  cf_match_limits limits; /* its nodes[] are set per game from the two below */
  long cformer_nodes, opponent_nodes; /* go nodes N instead of movetime; 0 = movetime */
  bool quiet;
  bool sprt_on;
  cf_sprt sprt; /* --sprt: its hypotheses; the pairs are counted in match_state */
} match_args;

typedef struct match_state {
  const match_args *a;
  cf_openings openings;
  pthread_mutex_t mu;
  int next, finished;
  int wins, draws, losses; /* cformer's view */
  int faults_cformer, faults_opponent, adjudicated;
  long evals, cformer_moves;
  uint64_t *game_keys; /* per finished game: its moves and cformer's colour */
  FILE *pgn, *rss_log;
  bool pgn_failed; /* a --pgn write failed: named once, the games went on without it */
  char cformer_name[128], opponent_name[128];
  bool start_failed;
  cf_status start_status;
  char start_error[CF_ERROR_MSG_MAX];
  double started_at;        /* monotonic seconds, for the ETA */
  uint64_t seen[64];        /* engine messages already shown (hashes) */
  int n_seen;
  cf_sprt sprt;             /* --sprt: the pairs so far */
  cf_sprt_verdict verdict;  /* set once a bound is crossed: no further game starts */
  bool overhead_checked;    /* the movetime was held against cformer's MoveOverheadMs */
} match_state;

/* An engine's `info string error/warning` line, shown once on stderr with
 * the engine's side: a GUI would show it, and a match that loses every game
 * to an engine with no network should say why. */
static void show_engine_message(void *user, const cf_engine_proc *p, const char *line) {
  match_state *s = user;
  uint64_t h = 14695981039346656037ull;
  for (const char *c = p->name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  for (const char *c = line; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  pthread_mutex_lock(&s->mu);
  bool fresh = true;
  for (int i = 0; i < s->n_seen && fresh; i++) fresh = s->seen[i] != h;
  if (fresh && s->n_seen < (int)(sizeof s->seen / sizeof s->seen[0])) s->seen[s->n_seen++] = h;
  if (fresh) fprintf(stderr, "cformer-match: %s says: %s\n", p->name, line + 12);
  pthread_mutex_unlock(&s->mu);
}

/* "100 ms/move", "400 nodes/move" or "clock 1+0.1 s", for one side. */
static const char *limit_text(const match_args *a, long nodes, char *buf, size_t cap) {
  if (nodes > 0) snprintf(buf, cap, "%ld nodes/move", nodes);
  else if (a->limits.tc_base_ms > 0)
    snprintf(buf, cap, "clock %g+%g s", a->limits.tc_base_ms / 1000.0, a->limits.tc_inc_ms / 1000.0);
  else snprintf(buf, cap, "%d ms/move", a->limits.movetime_ms);
  return buf;
}

/* A movetime at most cformer's MoveOverheadMs leaves the search almost
 * nothing (half the movetime at best): said once, on the first start. */
static void warn_overhead(match_state *s, const cf_engine_proc *c) {
  const match_args *a = s->a;
  pthread_mutex_lock(&s->mu);
  bool check = !s->overhead_checked;
  s->overhead_checked = true;
  pthread_mutex_unlock(&s->mu);
  if (!check || a->cformer_nodes > 0 || a->limits.tc_base_ms > 0 || c->move_overhead_ms < 0) return;
  if (a->limits.movetime_ms <= c->move_overhead_ms)
    fprintf(stderr, "cformer-match: warning: --movetime %d is at most cformer's MoveOverheadMs (%ld): "
            "its search gets at most half of each move's time; lower it with --copt "
            "MoveOverheadMs=N or give a longer --movetime\n", a->limits.movetime_ms,
            c->move_overhead_ms);
}

/* --tc BASE+INC in seconds ("1+0", "0.3+0", "60+0.6"): ctx is the limits. */
static bool set_tc(void *ctx, const char *value, char *why, size_t why_size) {
  cf_match_limits *l = ctx;
  char *end;
  double base = strtod(value, &end), inc = 0;
  bool ok = end != value && base > 0 && base <= 86400;
  if (ok && *end == '+') {
    const char *at = end + 1;
    inc = strtod(at, &end);
    ok = end != at && inc >= 0 && inc <= 3600;
  }
  ok = ok && *end == 0;
  if (!ok) {
    snprintf(why, why_size, "BASE+INC in seconds, e.g. 1+0 or 60+0.6 (BASE above 0)");
    return false;
  }
  l->tc_base_ms = base * 1000.0;
  l->tc_inc_ms = inc * 1000.0;
  return true;
}

static bool add_option(cf_engine_spec *s, const char *opt) {
  if (s->n_options >= CF_PROC_OPTIONS_MAX) return false;
  s->options[s->n_options++] = opt;
  return true;
}

/* --copt / --oopt: NAME=VALUE. */
static bool check_option(void *ctx, const char *value, char *why, size_t why_size) {
  (void)ctx;
  if (strchr(value, '=') && value[0] != '=') return true;
  snprintf(why, why_size, "expected NAME=VALUE, e.g. Threads=2");
  return false;
}

/* --sprt ELO0,ELO1[,ALPHA,BETA]: ctx is the match_args. */
static bool set_sprt(void *ctx, const char *value, char *why, size_t why_size) {
  match_args *a = ctx;
  a->sprt_on = cf_sprt_parse(value, &a->sprt, why, (int)why_size);
  return a->sprt_on;
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, match_args *a) {
  /* The cformer beside this binary: the same folder when installed
   * (<prefix>/bin), the parent in the build tree (build/tools/match); else
   * whatever `cformer` is on PATH. */
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  bool found = false;
  if (n > 0) {
    self[n] = 0;
    const char *dir = dirname(self);
    static const char *const rel[] = {"%s/cformer", "%s/../cformer"};
    for (int i = 0; i < 2 && !found; i++) {
      snprintf(a->cformer_default, sizeof a->cformer_default, rel[i], dir);
      found = access(a->cformer_default, X_OK) == 0;
    }
  }
  if (!found) snprintf(a->cformer_default, sizeof a->cformer_default, "cformer");
  a->cformer.command = a->cformer_default;
  a->opponent.command = "/usr/games/stockfish";
  a->openings = NULL; /* the shipped file, found in main */
  a->games = 20;
  a->concurrency = 1;
  a->limits = (cf_match_limits){.movetime_ms = 500, .margin_ms = 2000, .max_plies = 1000};
  char search[1024], openings_help[1400], concurrency_help[64];
  cf_data_search_path(search, sizeof search);
  snprintf(openings_help, sizeof openings_help, "openings file (default: the shipped %s, in\n%s)",
           CF_DATA_OPENINGS, search);
  snprintf(concurrency_help, sizeof concurrency_help, "games played at once, 1 to %d (default 1)",
           MAX_CONCURRENCY);
  cf_cli_list copts = {0}, oopts = {0};
  int elo = 0;
  cf_cli_flag flags[] = {
      {.name = "cformer", .kind = CF_CLI_STRING, .dest = &a->cformer.command, .arg = "CMD",
       .help = "cformer command (default: the cformer binary built beside\nthis one)"},
      {.name = "copt", .kind = CF_CLI_STRINGS, .dest = &copts, .arg = "NAME=VALUE",
       .set = check_option, .help = "UCI option for cformer (repeatable), e.g. Agent=policy"},
      {.name = "opponent", .kind = CF_CLI_STRING, .dest = &a->opponent.command, .arg = "CMD",
       .help = "opponent command (default /usr/games/stockfish)"},
      {.name = "oopt", .kind = CF_CLI_STRINGS, .dest = &oopts, .arg = "NAME=VALUE",
       .set = check_option, .help = "UCI option for the opponent (repeatable)"},
      {.name = "opponent-elo", .kind = CF_CLI_INT, .dest = &elo, .imin = 0, .imax = 10000,
       .help = "shorthand for --oopt UCI_LimitStrength=true --oopt UCI_Elo=N\n"
               "(Stockfish 15.1: 1350 to 2850)"},
      {.name = "games", .kind = CF_CLI_INT, .dest = &a->games, .imin = 1, .imax = 1000000,
       .help = "games to play (default 20)"},
      {.name = "movetime", .kind = CF_CLI_INT, .dest = &a->limits.movetime_ms, .imin = 1,
       .imax = 3600000, .arg = "MS", .help = "time per move (default 500)"},
      {.name = "tc", .kind = CF_CLI_STRING, .arg = "BASE+INC", .set = set_tc, .ctx = &a->limits,
       .help = "a clock for both sides instead of a movetime: BASE seconds plus INC a\n"
               "move (go wtime/btime/winc/binc); a side whose clock runs out loses"},
      {.name = "nodes", .kind = CF_CLI_LONG, .dest = &a->cformer_nodes, .imin = 1,
       .imax = 1000000000L, .help = "cformer plays `go nodes N` instead of a movetime"},
      {.name = "opponent-nodes", .kind = CF_CLI_LONG, .dest = &a->opponent_nodes, .imin = 1,
       .imax = 1000000000L, .help = "the opponent plays `go nodes N` instead of a movetime"},
      {.name = "margin", .kind = CF_CLI_INT, .dest = &a->limits.margin_ms, .imin = 0,
       .imax = 3600000, .arg = "MS",
       .help = "extra time before a move is a timeout loss (default 2000)"},
      {.name = "max-plies", .kind = CF_CLI_INT, .dest = &a->limits.max_plies, .imin = 1,
       .imax = 100000, .help = "adjudicate a draw after N plies (default 1000)"},
      {.name = "openings", .kind = CF_CLI_STRING, .dest = &a->openings, .arg = "FILE",
       .help = openings_help},
      {.name = "pgn", .kind = CF_CLI_STRING, .dest = &a->pgn, .arg = "FILE",
       .help = "write the games as PGN"},
      {.name = "rss-log", .kind = CF_CLI_STRING, .dest = &a->rss_log, .arg = "FILE",
       .help = "after each game, write a line with cformer's process id and\n"
               "resident memory (VmRSS, kB): a leak shows as a rising column"},
      {.name = "concurrency", .kind = CF_CLI_INT, .dest = &a->concurrency, .imin = 1,
       .imax = MAX_CONCURRENCY, .help = concurrency_help},
      {.name = "sprt", .kind = CF_CLI_STRING, .arg = "ELO0,ELO1[,ALPHA,BETA]", .set = set_sprt,
       .ctx = a,
       .help = "stop as soon as a sequential probability ratio test over game\n"
               "pairs decides between cformer being elo0 and elo1 Elo stronger\n"
               "(alpha, beta 0.05 unless given; --games is then the most games,\n"
               "20000 unless given); LLR and bounds after every pair"},
      {.name = "quiet", .kind = CF_CLI_BOOL, .dest = &a->quiet, .help = "no per-game progress lines"},
  };
  cf_cli_spec spec = {
      .prog = "cformer-match", .version = "cformer-match " CF_VERSION,
      .usage = "usage: cformer-match [options]\n\n"
               "Plays cformer against a UCI engine from a set of openings (each twice, colours\n"
               "swapped) and prints W/D/L from cformer's side with the Elo difference and its 95%\n"
               "interval.\n\n",
      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  bool ok = true;
  for (int i = 0; i < copts.count; i++) ok = ok && add_option(&a->cformer, copts.items[i]);
  for (int i = 0; i < oopts.count; i++) ok = ok && add_option(&a->opponent, oopts.items[i]);
  if (cf_cli_given(&spec, "opponent-elo")) {
    snprintf(a->elo_opts[0], sizeof a->elo_opts[0], "UCI_LimitStrength=true");
    snprintf(a->elo_opts[1], sizeof a->elo_opts[1], "UCI_Elo=%d", elo);
    ok = ok && add_option(&a->opponent, a->elo_opts[0]) && add_option(&a->opponent, a->elo_opts[1]);
  }
  if (a->sprt_on && !cf_cli_given(&spec, "games")) a->games = 20000;
  cf_cli_free(&spec);
  if (!ok)
    return cf_cli_usage_error(&spec, "too many UCI options (at most %d per engine, "
                              "--opponent-elo counting 2)", CF_PROC_OPTIONS_MAX);
  return -1;
}

static void write_pgn(match_state *s, int round, const cf_match_game_result *r, const char *white,
                      const char *black, const char *opening) {
  if (!s->pgn) return;
  char date[16];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y.%m.%d", &tm);
  const char *res = cf_game_result_name(r->result);
  /* PGN's TimeControl has no word for a movetime or a node count: "-" when the
   * two sides' limits differ, as when one of them counts nodes */
  char time_control[64] = "-";
  if (s->a->cformer_nodes == 0 && s->a->opponent_nodes == 0 && s->a->limits.tc_base_ms > 0)
    snprintf(time_control, sizeof time_control, "%g+%g", s->a->limits.tc_base_ms / 1000.0,
             s->a->limits.tc_inc_ms / 1000.0); /* PGN's own form: seconds+increment */
  else if (s->a->cformer_nodes == 0 && s->a->opponent_nodes == 0)
    snprintf(time_control, sizeof time_control, "movetime %d ms", s->a->limits.movetime_ms);
  else if (s->a->cformer_nodes == s->a->opponent_nodes)
    snprintf(time_control, sizeof time_control, "nodes %ld", s->a->cformer_nodes);
  fprintf(s->pgn,
          "[Event \"cformer-match\"]\n[Site \"local\"]\n[Date \"%s\"]\n[Round \"%d\"]\n"
          "[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n[Opening \"%s\"]\n"
          "[TimeControl \"%s\"]\n[Termination \"%s\"]\n[PlyCount \"%d\"]\n\n",
          date, round, white, black, res, opening, time_control,
          r->rules_end ? "normal" : strstr(r->reason, "time") ? "time forfeit"
                                  : strstr(r->reason, "adjudicated") ? "adjudication"
                                                                     : "rules infraction",
          r->game.count - 1);
  int col = 0;
  for (int k = 1; k < r->game.count; k++) {
    const cf_position *before = &r->game.plies[k - 1].pos;
    char san[CF_SAN_MAX], num[16] = "";
    cf_san_write(before, r->game.plies[k].move, san);
    if (before->side == CF_WHITE) snprintf(num, sizeof num, "%d. ", before->fullmove);
    else if (k == 1) snprintf(num, sizeof num, "%d... ", before->fullmove);
    int len = (int)(strlen(num) + strlen(san) + 1);
    if (col + len > 79) {
      fputc('\n', s->pgn);
      col = 0;
    }
    col += fprintf(s->pgn, "%s%s ", num, san);
  }
  fprintf(s->pgn, "{%s} %s\n\n", r->reason, res);
  if (fflush(s->pgn) != 0 || ferror(s->pgn)) { /* a full disk: say so once, play on */
    fprintf(stderr, "cformer-match: cannot write '%s': %s (the games go on without it)\n",
            s->a->pgn, strerror(errno));
    fclose(s->pgn);
    s->pgn = NULL;
    s->pgn_failed = true;
  }
}

static void print_standing(const match_state *s, FILE *out) {
  cf_elo e = cf_elo_from_wdl(s->wins, s->draws, s->losses);
  fprintf(out, "W %d D %d L %d  score %.1f%%  Elo %+.0f [%+.0f, %+.0f]", s->wins, s->draws,
          s->losses, 100.0 * e.score, e.diff + 0.0, e.lo + 0.0, e.hi + 0.0); /* no "-0" */
}

/* "SPRT [0, 10]: LLR 1.23 (-2.94, 2.94) after 12 pairs [LL 1 LD 2 DD/WL 5 WD 3 WW 1]" */
static void print_sprt(const match_state *s, FILE *out) {
  const cf_sprt *p = &s->sprt;
  long n = 0;
  for (int i = 0; i < CF_SPRT_OUTCOMES; i++) n += p->pairs[i];
  fprintf(out, "SPRT [%g, %g] alpha %g beta %g: LLR %.3f (bounds %.3f, %.3f) after %ld pairs "
          "[pentanomial %ld %ld %ld %ld %ld]%s\n", s->a->sprt.elo0, s->a->sprt.elo1,
          s->a->sprt.alpha, s->a->sprt.beta, cf_sprt_llr(p), p->lower, p->upper, n, p->pairs[0],
          p->pairs[1], p->pairs[2], p->pairs[3], p->pairs[4],
          s->verdict == CF_SPRT_H1   ? ": H1 accepted (cformer gains at least elo1)"
          : s->verdict == CF_SPRT_H0 ? ": H0 accepted (cformer gains at most elo0)"
                                     : "");
  fflush(out);
}

static int compare_keys(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Games that repeat an earlier one move for move, with cformer on the same
 * side: deterministic engines do that whenever an opening comes round again. */
static int count_distinct(uint64_t *keys, int n) {
  qsort(keys, (size_t)n, sizeof *keys, compare_keys);
  int distinct = 0;
  for (int i = 0; i < n; i++) distinct += i == 0 || keys[i] != keys[i - 1];
  return distinct;
}

/* A process's resident memory in kB (VmRSS of /proc/PID/status); -1 when
 * it cannot be read (the process is gone, or no /proc). */
static long vm_rss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long kb = -1;
  while (kb < 0 && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

static void *worker(void *arg) {
  match_state *s = arg;
  const match_args *a = s->a;
  cf_engine_proc c = {.pid = -1}, o = {.pid = -1};
  cf_error err = {0};
  bool need_start = true;
  for (;;) {
    pthread_mutex_lock(&s->mu);
    int i = s->start_failed || s->verdict != CF_SPRT_CONTINUE ? a->games : s->next++;
    pthread_mutex_unlock(&s->mu);
    if (i >= a->games) break;
    if (need_start) {
      cf_engine_stop(&c, 1000);
      cf_engine_stop(&o, 1000);
      if (cf_engine_start(&a->cformer, 30000, &c, &err) != CF_OK ||
          cf_engine_start(&a->opponent, 30000, &o, &err) != CF_OK) {
        pthread_mutex_lock(&s->mu);
        s->start_failed = true;
        s->start_status = err.status;
        snprintf(s->start_error, sizeof s->start_error, "%s", err.msg);
        pthread_mutex_unlock(&s->mu);
        break;
      }
      need_start = false;
      warn_overhead(s, &c);
    }
    int k = (i / 2) % s->openings.count;
    bool cformer_white = i % 2 == 0;
    cf_match_game_result r;
    cf_match_limits limits = a->limits;
    limits.nodes[cformer_white ? 0 : 1] = a->cformer_nodes;
    limits.nodes[cformer_white ? 1 : 0] = a->opponent_nodes;
    if (cf_match_play(cformer_white ? &c : &o, cformer_white ? &o : &c, s->openings.lines[k],
                      &limits, &r, &err) != CF_OK) {
      fprintf(stderr, "cformer-match: %s\n", err.msg);
      continue;
    }
    bool faulted = !r.rules_end && !strstr(r.reason, "adjudicated");
    need_start = faulted; /* a fault may leave an engine dead or out of step */
    int us = cformer_white ? 0 : 1;
    bool win = (r.result == CF_RESULT_WHITE_WINS && cformer_white) ||
               (r.result == CF_RESULT_BLACK_WINS && !cformer_white);
    bool loss = r.result != CF_RESULT_DRAW && !win;
    pthread_mutex_lock(&s->mu);
    s->wins += win;
    s->losses += loss;
    s->draws += r.result == CF_RESULT_DRAW;
    s->adjudicated += strstr(r.reason, "adjudicated") != NULL;
    if (faulted) {
      if (loss) s->faults_cformer++;
      else s->faults_opponent++;
    }
    s->game_keys[s->finished] = cf_match_game_key(&r.game) ^ (cformer_white ? 0 : 0x9e3779b97f4a7c15ull);
    s->evals += r.evals_sum[us];
    s->cformer_moves += r.engine_moves[us];
    snprintf(s->cformer_name, sizeof s->cformer_name, "%s", c.name);
    snprintf(s->opponent_name, sizeof s->opponent_name, "%s", o.name);
    s->finished++;
    if (a->sprt_on && cf_sprt_add_game(&s->sprt, i, win ? 2 : loss ? 0 : 1)) {
      s->verdict = cf_sprt_verdict_of(&s->sprt);
      if (!a->quiet || s->verdict != CF_SPRT_CONTINUE) print_sprt(s, stdout);
    }
    write_pgn(s, i + 1, &r, cformer_white ? c.name : o.name, cformer_white ? o.name : c.name,
              s->openings.names[k]);
    if (s->rss_log) { /* between games: the engine is idle, its memory settled */
      fprintf(s->rss_log, "game %d pid %ld vmrss_kb %ld fault %d\n", s->finished, (long)c.pid,
              vm_rss_kb(c.pid), faulted ? 1 : 0);
      fflush(s->rss_log);
    }
    if (!a->quiet) {
      printf("game %d/%d (%s, cformer %s): %s %s | ", s->finished, a->games, s->openings.names[k],
             cformer_white ? "white" : "black", cf_game_result_name(r.result), r.reason);
      print_standing(s, stdout);
      /* the rest at the pace so far (games run concurrency at a time) */
      double left = (cf_engine_now_ms() / 1000.0 - s->started_at) / s->finished * (a->games - s->finished);
      if (s->finished < a->games)
        printf("  ETA %dh%02dm%02ds", (int)(left / 3600), (int)(left / 60) % 60, (int)left % 60);
      printf("\n");
      fflush(stdout);
    }
    pthread_mutex_unlock(&s->mu);
    cf_game_free(&r.game);
  }
  cf_engine_stop(&c, 1000);
  cf_engine_stop(&o, 1000);
  return NULL;
}

int main(int argc, char **argv) {
  match_args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  signal(SIGPIPE, SIG_IGN); /* a dead engine is a lost game, not a dead match */
  match_state s = {.a = &a};
  cf_error err = {0};
  char shipped_openings[PATH_MAX];
  if (!a.openings) {
    if (cf_data_find(CF_DATA_OPENINGS, shipped_openings, sizeof shipped_openings, &err) != CF_OK) {
      fprintf(stderr, "cformer-match: %s (or pass --openings FILE)\n", err.msg);
      return 1;
    }
    a.openings = shipped_openings;
  }
  if (cf_openings_load(a.openings, &s.openings, &err) != CF_OK) {
    fprintf(stderr, "cformer-match: %s\n", err.msg);
    return 1;
  }
  if (a.pgn && !(s.pgn = fopen(a.pgn, "w"))) {
    fprintf(stderr, "cformer-match: cannot write '%s': %s\n", a.pgn, strerror(errno));
    cf_openings_free(&s.openings);
    return 1;
  }
  if (a.rss_log && !(s.rss_log = fopen(a.rss_log, "w"))) {
    fprintf(stderr, "cformer-match: cannot write %s\n", a.rss_log);
    if (s.pgn) fclose(s.pgn);
    cf_openings_free(&s.openings);
    return 1;
  }
  if (!(s.game_keys = calloc((size_t)a.games, sizeof *s.game_keys))) {
    fprintf(stderr, "cformer-match: out of memory\n");
    if (s.pgn) fclose(s.pgn);
    if (s.rss_log) fclose(s.rss_log);
    cf_openings_free(&s.openings);
    return 1;
  }
  if (a.sprt_on) {
    s.sprt = a.sprt;
    if (!cf_sprt_begin(&s.sprt, a.games)) {
      fprintf(stderr, "cformer-match: out of memory\n");
      free(s.game_keys);
      if (s.pgn) fclose(s.pgn);
      if (s.rss_log) fclose(s.rss_log);
      cf_openings_free(&s.openings);
      return 1;
    }
  }
  pthread_mutex_init(&s.mu, NULL);
  s.started_at = cf_engine_now_ms() / 1000.0;
  a.cformer.on_message = a.opponent.on_message = show_engine_message;
  a.cformer.message_user = a.opponent.message_user = &s;
  int n = a.concurrency < a.games ? a.concurrency : a.games;
  pthread_t threads[MAX_CONCURRENCY];
  char climit[48], olimit[48];
  limit_text(&a, a.cformer_nodes, climit, sizeof climit);
  limit_text(&a, a.opponent_nodes, olimit, sizeof olimit);
  if (strcmp(climit, olimit) == 0)
    printf("cformer-match: %d games, %s, %d openings from %s, concurrency %d\n", a.games, climit,
           s.openings.count, a.openings, n);
  else
    printf("cformer-match: %d games, cformer %s, opponent %s, %d openings from %s, "
           "concurrency %d\n", a.games, climit, olimit, s.openings.count, a.openings, n);
  if (a.games > 2 * s.openings.count)
    printf("note: %d games over %d openings: from game %d on, each opening comes round again with "
           "the same colours, and engines that play deterministically (cformer against cformer) "
           "replay the same games\n",
           a.games, s.openings.count, 2 * s.openings.count + 1);
  fflush(stdout);
  int started = 0;
  for (; started < n; started++)
    if (pthread_create(&threads[started], NULL, worker, &s) != 0) break;
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  if (s.pgn && fclose(s.pgn) != 0) {
    fprintf(stderr, "cformer-match: cannot write '%s': %s\n", a.pgn, strerror(errno));
    s.pgn_failed = true;
  }
  if (s.rss_log) fclose(s.rss_log);
  cf_openings_free(&s.openings);
  int distinct = count_distinct(s.game_keys, s.finished);
  free(s.game_keys);
  cf_sprt_end(&s.sprt); /* its counts stay for the summary */
  if (s.start_failed) {
    fprintf(stderr, "cformer-match: %s\n", s.start_error);
    /* an option the engine does not have, or a value it refuses: a bad
     * command line found late */
    return s.start_status == CF_ERR_ARG ? 2 : 1;
  }
  printf("%s vs %s: %d games: ", s.cformer_name, s.opponent_name, s.finished);
  print_standing(&s, stdout);
  printf(" (95%%)\n");
  printf("distinct games: %d of %d", distinct, s.finished);
  if (distinct < s.finished)
    printf(" (the rest repeat a game move for move; the interval above counts them as "
           "independent, so it is too narrow: use more openings)");
  printf("\n");
  printf("cformer evaluations per move: %.1f (mean over %ld moves)\n",
         s.cformer_moves ? (double)s.evals / (double)s.cformer_moves : 0.0, s.cformer_moves);
  printf("faults (illegal move, crash, timeout): cformer %d, opponent %d; adjudicated draws %d\n",
         s.faults_cformer, s.faults_opponent, s.adjudicated);
  if (a.sprt_on) {
    print_sprt(&s, stdout);
    if (s.verdict == CF_SPRT_CONTINUE) printf("SPRT: no decision within %d games\n", a.games);
  }
  if (s.pgn_failed) return 1; /* the games were played; their record is not whole */
  return s.faults_cformer ? 3 : 0;
}
