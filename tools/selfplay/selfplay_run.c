/* selfplay_run.c: the threads of a selfplay run and what they share
 * (selfplay_run.h). Games are handed out by number; each game's seed comes
 * from the run's seed and its number (sp_game_seed), so which thread plays
 * it, and when, changes nothing in it. */
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

static void *worker(void *arg) {
  shared *sh = arg;
  const sp_run_options *o = sh->o;
  cf_error err = {0};
  cf_net *net = NULL;
  cf_search *search = NULL;
  cf_status st = open_net(o, &net, &err);
  if (st == CF_OK) st = cf_search_create(&sh->params, &search, &err);
  long n;
  while (st == CF_OK && !atomic_load(&sh->stop) && (n = take(sh)) > 0) {
    cf_position standard;
    cf_position_startpos(&standard);
    const sp_opening *op = sh->openings.count ? &sh->openings.items[(n - 1) % sh->openings.count]
                                              : NULL;
    sp_game g;
    st = sp_play(net, search, &o->settings, op ? &op->start : &standard, op ? op->moves : NULL,
                 op ? op->n_moves : 0, sp_game_seed(o->seed, n), &sh->stop, &g, &err);
    const bool whole = st == CF_OK && g.result != CF_RESULT_ONGOING;
    if (whole && o->training) st = write_chunk(o->training, n, &g, &err);
    if (whole && st == CF_OK) st = finish_game(sh, n, &g, &err);
    sp_game_free(&g);
  }
  if (st != CF_OK) fail(sh, st, &err);
  cf_search_free(search);
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
