/* analyse_engine.h: the positions of `cformer analyse` through the network
 * and, on request, an agent. Net-only, positions from any number of units
 * (games) are batched into one network call of up to `batch`; with an
 * agent, each position is evaluated and searched as it comes. Records come
 * out through the emit callback in the order positions went in.
 *
 * Determinism: the search starts afresh (new tree, empty cache) at every
 * position, a --nodes search runs without smart pruning (which reads the
 * clock), and the caller flushes the batch at shard boundaries, so the
 * same position in the same place of its shard gives the same record
 * however the input is split among processes (docs/ANALYSE.md). */
#ifndef ANALYSE_ENGINE_H
#define ANALYSE_ENGINE_H

#include "chess/cf_game.h"
#include "common/cf_status.h"
#include "engine/cf_agent.h"
#include "net/cf_net.h"
#include "tools/analyse/analyse_record.h"

typedef struct analyse_engine_options {
  int batch;                  /* positions per network call (net-only) */
  int top_k;                  /* policy moves per record */
  const cf_agent_desc *agent; /* NULL: net-only */
  long nodes;                 /* agent limit: visits (0 = none) */
  long movetime_ms;           /* agent limit: time per position (0 = none) */
  int multipv;                /* lines per record (>= 1) */
} analyse_engine_options;

typedef void (*analyse_emit_fn)(void *ctx, const analyse_record *r);

typedef struct analyse_engine analyse_engine;

cf_status analyse_engine_create(cf_net *net, const analyse_engine_options *opts,
                                analyse_emit_fn emit, void *emit_ctx, analyse_engine **out,
                                cf_error *err);

/* Adds the current position of game, ply `ply` of unit. The game must stay
 * valid until the call returns only (everything needed is copied). May
 * evaluate (a full batch, or at once with an agent) and emit. */
cf_status analyse_engine_add(analyse_engine *e, const analyse_unit *unit, int ply, cf_game *game,
                             cf_error *err);

/* Evaluates and emits what is pending. */
cf_status analyse_engine_flush(analyse_engine *e, cf_error *err);

/* Network evaluations made so far (net-only: positions; with a search, its
 * evaluations too). */
long analyse_engine_evals(const analyse_engine *e);

void analyse_engine_free(analyse_engine *e);

#endif /* ANALYSE_ENGINE_H */
