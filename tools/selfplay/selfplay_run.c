/* selfplay_run.c: the threads of a selfplay run and what they share
 * (selfplay_run.h). Games are handed out by number; each game's seed comes
 * from the run's seed and its number (sp_game_seed), so which thread plays
 * it, when, and beside which games, changes nothing in it. */
#include "tools/selfplay/selfplay_run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "common/cf_clock.h"
#include "common/cf_kv.h"
#include "engine/cf_engine_weights.h"
#include "engine/search/cf_search_group.h"
#include "tools/chunks/cf_chunk_file.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/selfplay/selfplay_openings.h"
#include "tools/selfplay/selfplay_out.h"

typedef struct shared {
  const sp_run_options *o;
  cf_search_params params;
  sp_openings openings;
  bool *done;            /* per game: finished by this run or an earlier one */
  FILE *pgn;
  pthread_mutex_t lock;  /* next, the PGN, progress, the first error */
  long next;             /* the next game number to hand out */
  long finished, to_play;
  long w, d, l;
  double start;
  atomic_bool stop;
  cf_status status;
  cf_error err;
} shared;

/* Keeps the first failure and stops the others. */
static void fail(shared *sh, cf_status st, const cf_error *e) {
  pthread_mutex_lock(&sh->lock);
  if (sh->status == CF_OK) {
    sh->status = st;
    sh->err = *e;
  }
  pthread_mutex_unlock(&sh->lock);
  atomic_store(&sh->stop, true);
}

static long take(shared *sh) {
  pthread_mutex_lock(&sh->lock);
  while (sh->next <= sh->o->games && sh->done[sh->next - 1]) sh->next++;
  const long n = sh->next <= sh->o->games ? sh->next++ : 0;
  pthread_mutex_unlock(&sh->lock);
  return n;
}

static cf_status write_chunk(const char *dir, long n, const sp_game *g, cf_error *err) {
  cf_chunk_writer *w;
  CF_TRY(cf_chunk_writer_open(dir, n, &w, err));
  for (int i = 0; i < g->n_records; i++) {
    const cf_status st = cf_chunk_writer_add(w, &g->records[i], err);
    if (st != CF_OK) {
      cf_chunk_writer_abort(w);
      return st;
    }
  }
  return cf_chunk_writer_close(w, err);
}

/* The game's PGN and the progress line, under the lock. */
static cf_status finish_game(shared *sh, long n, const sp_game *g, cf_error *err) {
  pthread_mutex_lock(&sh->lock);
  cf_status st = sp_pgn_write(sh->pgn, g, n, err);
  if (st == CF_OK) {
    sh->finished++;
    sh->w += g->result == CF_RESULT_WHITE_WINS;
    sh->l += g->result == CF_RESULT_BLACK_WINS;
    sh->d += g->result == CF_RESULT_DRAW;
    const double t = cf_clock_now() - sh->start;
    const double eta = t / (double)sh->finished * (double)(sh->to_play - sh->finished);
    fprintf(stderr,
            "cformer selfplay: game %ld %s (%s, %d plies) | %ld/%ld done, +%ld =%ld -%ld, "
            "%.0f s, ETA %.0f s\n",
            n, cf_game_result_name(g->result), g->reason, g->game.count - 1, sh->finished,
            sh->to_play, sh->w, sh->d, sh->l, t, eta);
  }
  pthread_mutex_unlock(&sh->lock);
  return st;
}

static cf_status open_net(const sp_run_options *o, cf_net **net, cf_error *err) {
  cf_kv *kv = NULL;
  CF_TRY(cf_cli_backend_options(o->backend_opts, 0, &kv, err));
  cf_engine_weights_spec spec = {.weights = o->weights,
                                 .net = {.backend = o->backend, .backend_kv = kv, .max_batch = 256,
                                         .history_fill = o->history_fill},
                                 .load = o->load};
  cf_engine_weights_info info;
  const cf_status st = cf_engine_load_net(&spec, net, &info, err);
  cf_kv_free(kv);
  return st;
}

/* One of a thread's games in play: its search and state; n = 0 when the
 * slot waits for a game. */
typedef struct slot {
  cf_search *search;
  long n;
  sp_game g;
} slot;

static cf_status start_game(shared *sh, slot *x, long n, cf_error *err) {
  cf_position standard;
  cf_position_startpos(&standard);
  const sp_opening *op = sh->openings.count ? &sh->openings.items[(n - 1) % sh->openings.count]
                                            : NULL;
  x->n = n;
  return sp_begin(x->search, &sh->o->settings, op ? &op->start : &standard,
                  op ? op->moves : NULL, op ? op->n_moves : 0, sp_game_seed(sh->o->seed, n),
                  &x->g, err);
}

/* A finished game's chunk and PGN; the slot is free after. */
static cf_status end_game(shared *sh, slot *x, cf_error *err) {
  cf_status st = CF_OK;
  if (sh->o->training) st = write_chunk(sh->o->training, x->n, &x->g, err);
  if (st == CF_OK) st = finish_game(sh, x->n, &x->g, err);
  sp_game_free(&x->g);
  x->n = 0;
  return st;
}

/* Brings slot x to its next search: games that end are written and the
 * slot takes the next game. False when no game is left for it. */
static bool next_search(shared *sh, slot *x, cf_search_limits *lim, cf_status *st,
                        cf_error *err) {
  while (*st == CF_OK && !atomic_load(&sh->stop)) {
    if (x->n == 0) {
      const long n = take(sh);
      if (n == 0) return false;
      *st = start_game(sh, x, n, err);
    } else if (sp_next(x->search, &sh->o->settings, &x->g, lim)) {
      lim->stop = &sh->stop;
      return true;
    } else {
      *st = end_game(sh, x, err);
    }
  }
  return false;
}

/* A thread: --batch-games games at once, each with its own search (its
 * own tree, NN cache and noise), on one network. Each round every game in
 * play makes its move's search; with more than one, the searches run as
 * one group (cf_search_run_group), their leaves in shared network calls,
 * which changes nothing in any of them. */
static void *worker(void *arg) {
  shared *sh = arg;
  const sp_run_options *o = sh->o;
  const int n_slots = o->batch_games > 0 ? o->batch_games : 1;
  cf_error err = {0};
  cf_net *net = NULL;
  slot *slots = calloc((size_t)n_slots, sizeof *slots);
  cf_search_job *jobs = calloc((size_t)n_slots, sizeof *jobs);
  int *which = calloc((size_t)n_slots, sizeof *which);
  cf_status st = slots && jobs && which
                     ? open_net(o, &net, &err)
                     : cf_error_set(&err, CF_ERR_NOMEM, "selfplay: out of memory");
  for (int i = 0; st == CF_OK && i < n_slots; i++)
    st = cf_search_create(&sh->params, &slots[i].search, &err);
  while (st == CF_OK) {
    int n_jobs = 0;
    for (int i = 0; i < n_slots; i++) {
      cf_search_limits lim;
      if (!next_search(sh, &slots[i], &lim, &st, &err)) continue;
      jobs[n_jobs] = (cf_search_job){.search = slots[i].search, .game = &slots[i].g.game,
                                     .limits = lim};
      which[n_jobs++] = i;
    }
    if (st != CF_OK || n_jobs == 0 || atomic_load(&sh->stop)) break;
    if (n_jobs == 1)
      st = cf_search_run(jobs[0].search, net, jobs[0].game, &jobs[0].limits, NULL, NULL,
                         &jobs[0].result, &err);
    else
      st = cf_search_run_group(net, jobs, n_jobs, NULL, &err);
    if (atomic_load(&sh->stop)) break; /* the games in play stay unfinished */
    for (int k = 0; st == CF_OK && k < n_jobs; k++)
      st = sp_after_search(net, jobs[k].search, &o->settings, &jobs[k].result,
                           &slots[which[k]].g, &err);
  }
  if (st != CF_OK) fail(sh, st, &err);
  for (int i = 0; slots && i < n_slots; i++) {
    if (slots[i].n) sp_game_free(&slots[i].g);
    cf_search_free(slots[i].search);
  }
  free(slots);
  free(jobs);
  free(which);
  cf_net_free(net);
  return NULL;
}

static cf_status prepare(shared *sh, cf_error *err) {
  const sp_run_options *o = sh->o;
  cf_search_params_default(&sh->params);
  sh->params.noise_epsilon = (float)o->noise_epsilon;
  sh->params.noise_alpha = (float)o->noise_alpha;
  /* Smart pruning reads the clock; off, a search of N visits is the same
   * search every time, and every move gets its N visits of training data,
   * as Lc0's selfplay (which prunes on visits only) nearly does. */
  sh->params.smart_pruning_factor = 0;
  CF_TRY(cf_search_params_check(&sh->params, err));
  if (o->training && !o->resume && sp_dir_has_chunks(o->training))
    return cf_error_set(err, CF_ERR_ARG,
                        "--training %s already holds chunks of a run: --resume continues it, "
                        "or give another directory",
                        o->training);
  if (o->openings) CF_TRY(sp_openings_load(o->openings, &sh->openings, err));
  sh->done = calloc((size_t)o->games, sizeof *sh->done);
  if (!sh->done) return cf_error_set(err, CF_ERR_NOMEM, "selfplay: out of memory");
  const bool to_stdout = strcmp(o->pgn, "-") == 0;
  long n_done = 0;
  if (o->resume)
    CF_TRY(sp_resume_scan(to_stdout ? NULL : o->pgn, o->training, o->games, sh->done, &n_done, err));
  sh->pgn = to_stdout ? stdout : fopen(o->pgn, o->resume ? "ab" : "wb");
  if (!sh->pgn) return cf_error_set(err, CF_ERR_IO, "--pgn %s: cannot write it", o->pgn);
  sh->to_play = o->games - n_done;
  if (o->resume)
    fprintf(stderr, "cformer selfplay: resuming: %ld of %ld games already finished\n", n_done,
            o->games);
  return CF_OK;
}

cf_status sp_run(const sp_run_options *o, cf_error *err) {
  shared *sh = calloc(1, sizeof *sh);
  if (!sh) return cf_error_set(err, CF_ERR_NOMEM, "selfplay: out of memory");
  sh->o = o;
  sh->next = 1;
  pthread_mutex_init(&sh->lock, NULL);
  atomic_init(&sh->stop, false);
  cf_status st = prepare(sh, err);
  if (st == CF_OK) {
    sh->start = cf_clock_now();
    const int n = o->parallelism;
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    int started = 0;
    if (!threads) st = cf_error_set(err, CF_ERR_NOMEM, "selfplay: out of memory");
    for (int i = 0; threads && i < n; i++, started++)
      if (pthread_create(&threads[i], NULL, worker, sh) != 0) {
        cf_error e;
        cf_error_set(&e, CF_ERR_NOMEM, "selfplay: cannot start thread %d of %d", i + 1, n);
        fail(sh, CF_ERR_NOMEM, &e);
        break;
      }
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    free(threads);
    if (st == CF_OK && sh->status != CF_OK) {
      st = sh->status;
      *err = sh->err;
    }
  }
  if (sh->pgn && sh->pgn != stdout) fclose(sh->pgn);
  else if (sh->pgn) fflush(stdout);
  sp_openings_free(&sh->openings);
  free(sh->done);
  pthread_mutex_destroy(&sh->lock);
  free(sh);
  return st;
}
