/* analyse_run.c: the loop of one analyse pass (analyse_run.h). Units are
 * read into a ring as long as the network batch may still point into them:
 * a batch of B positions spans at most B + 1 units. */
#include "common/cf_clock.h"
#include "tools/analyse/analyse_run.h"

#include <stdlib.h>
#include <string.h>

#include "chess/cf_game.h"
#include "tools/analyse/analyse_pgn_out.h"
#include "tools/analyse/analyse_write.h"

typedef struct run_state {
  const analyse_run_config *c;
  analyse_pgn_out *pgn;
  long skip_records; /* JSONL/CSV: records still to skip */
  long written;
  cf_error write_err;
  double t0, last_report;
  analyse_units *units;
} run_state;

static void emit(void *ctx, const analyse_record *r) {
  run_state *s = ctx;
  const analyse_run_config *c = s->c;
  if (c->out_kind == ANALYSE_OUT_PGN) {
    if (s->write_err.status == CF_OK) analyse_pgn_out_add(s->pgn, r, &s->write_err);
  } else if (c->out_kind == ANALYSE_OUT_CSV) {
    analyse_write_csv(c->out, c->source_name, c->agent_name, r);
  } else {
    analyse_write_jsonl(c->out, c->source_name, c->agent_name, r);
  }
  s->written++;
}

static void format_eta(double seconds, char *out, size_t size) {
  if (seconds < 0 || seconds > 1e7) snprintf(out, size, "?");
  else snprintf(out, size, "%dh%02dm%02ds", (int)(seconds / 3600), (int)seconds / 60 % 60,
                (int)seconds % 60);
}

static void report(run_state *s, bool final) {
  const double now = cf_clock_now(), spent = now - s->t0;
  if (!final && now - s->last_report < 2.0) return;
  s->last_report = now;
  const double rate = spent > 0 ? (double)s->written / spent : 0;
  const uint64_t size = analyse_units_size(s->units), done = analyse_units_consumed(s->units);
  char eta[32] = "?";
  double share = size ? (double)done / (double)size : 0;
  if (share > 0 && share <= 1) format_eta(spent / share - spent, eta, sizeof eta);
  if (size)
    fprintf(s->c->warn, "%s: %ld positions, %.1f positions/s, %.1f%% of the input, ETA %s%s\n",
            s->c->prog, s->written, rate, 100.0 * share, final ? "0s" : eta, final ? " (done)" : "");
  else
    fprintf(s->c->warn, "%s: %ld positions, %.1f positions/s%s\n", s->c->prog, s->written, rate,
            final ? " (done)" : "");
  fflush(s->c->warn);
}

/* Adds the unit's plies (those not already written) to the engine. */
static cf_status add_unit(analyse_engine *e, run_state *s, const analyse_unit *u, cf_game *game,
                          cf_error *err) {
  CF_TRY(cf_game_init(game, &u->pgn.start, err));
  cf_status st = CF_OK;
  for (int ply = 0; ply <= u->last_ply && st == CF_OK; ply++) {
    if (ply >= u->first_ply) {
      if (s->skip_records > 0) s->skip_records--;
      else st = analyse_engine_add(e, u, ply, game, err);
    }
    if (st == CF_OK && ply < u->last_ply) st = cf_game_push(game, u->pgn.moves[ply], err);
  }
  cf_game_free(game);
  return st;
}

cf_status analyse_run(const analyse_run_config *c, cf_net *net, const analyse_engine_options *eo,
                      analyse_run_stats *stats, cf_error *err) {
  memset(stats, 0, sizeof *stats);
  analyse_units units;
  CF_TRY(analyse_units_open(&units, c->input, c->format, err));
  run_state s = {.c = c, .units = &units, .t0 = cf_clock_now()};
  s.last_report = s.t0;
  long skip_games = 0;
  if (c->out_kind == ANALYSE_OUT_PGN) skip_games = c->skip;
  else s.skip_records = c->skip;
  /* pending positions point into their units: net-only and grouped
   * searches hold up to a batch of them (analyse_engine.c) */
  const int ring_n = eo->batch + 2;
  analyse_unit *ring = calloc((size_t)ring_n, sizeof *ring);
  analyse_engine *e = NULL;
  cf_status st = ring ? CF_OK : cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  if (st == CF_OK) st = analyse_engine_create(net, eo, emit, &s, &e, err);
  if (st == CF_OK && c->out_kind == ANALYSE_OUT_PGN) st = analyse_pgn_out_create(c->out, &s.pgn, err);
  int at = 0;
  while (st == CF_OK) {
    analyse_unit *u = &ring[at];
    int rc = analyse_units_next(&units, u, err);
    if (rc < 0) st = err ? err->status : CF_ERR_IO;
    if (rc <= 0) break;
    if (u->bad) {
      stats->bad_units++;
      if (skip_games == 0 && s.skip_records == 0)
        fprintf(c->warn, "%s: %s: %s %ld: %s (skipped)\n", c->prog, c->source_name,
                c->format == ANALYSE_PGN ? "game" : "record", u->game, u->why);
      continue;
    }
    stats->units++;
    if (u->cut[0] && skip_games == 0 && s.skip_records == 0)
      fprintf(c->warn, "%s: %s: game %ld: %s (analysed up to it)\n", c->prog, c->source_name,
              u->game, u->cut);
    if (skip_games > 0) {
      skip_games--;
    } else {
      st = add_unit(e, &s, u, &(cf_game){0}, err);
      at = (at + 1) % ring_n;
    }
    if (st == CF_OK && c->shard_size > 0 && stats->units % c->shard_size == 0)
      st = analyse_engine_flush(e, err);
    if (s.write_err.status != CF_OK) st = cf_error_set(err, s.write_err.status, "%s", s.write_err.msg);
    if (st == CF_OK && ferror(c->out)) st = cf_error_set(err, CF_ERR_IO, "cannot write the output");
    if (c->progress) report(&s, false);
  }
  if (st == CF_OK) st = analyse_engine_flush(e, err);
  if (st == CF_OK && s.write_err.status != CF_OK)
    st = cf_error_set(err, s.write_err.status, "%s", s.write_err.msg);
  if (st == CF_OK && (fflush(c->out) != 0 || ferror(c->out)))
    st = cf_error_set(err, CF_ERR_IO, "cannot write the output");
  if (c->progress && st == CF_OK) report(&s, true);
  stats->positions = s.written;
  stats->evals = e ? analyse_engine_evals(e) : 0;
  stats->seconds = cf_clock_now() - s.t0;
  analyse_engine_free(e);
  analyse_pgn_out_free(s.pgn);
  for (int i = 0; ring && i < ring_n; i++) analyse_unit_free(&ring[i]);
  free(ring);
  analyse_units_close(&units);
  return st;
}
