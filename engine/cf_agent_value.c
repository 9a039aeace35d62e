/* cf_agent_value.c: the `value` agent: a one-ply search. Every candidate
 * move's child position is scored from our side: children that end the game
 * are scored exactly (we mate: +1; stalemate, insufficient material,
 * threefold repetition, fifty-move rule: 0) without the network, the others
 * by the network's value of the child (the opponent's Q, negated), evaluated
 * in batches of the net's max_batch. Equal scores go to the move the policy
 * prefers.
 *
 * The root is evaluated first (its policy orders the children and breaks
 * ties), so a move costs 1 + (non-terminal children) evaluations. Children
 * are evaluated in policy order and the stop flag and max_evals are checked
 * between batches: work cut short still returns the best of the children
 * scored so far, which are the ones the policy likes most. The deadline (or
 * the live deadline a pondering request gets at ponderhit) is checked the
 * same way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cf_clock.h"
#include "engine/cf_agent_root.h"
#include "engine/cf_net_input.h"

/* The longest a batch should take: how late a stop may be honoured. */
#define STOP_LATENCY_S 0.1

typedef struct child {
  int index;     /* candidate index at the root */
  int pending;   /* index into work.pending / replies, -1 for terminal children */
  bool scored;
  float score;   /* -1..1 from our side */
  float wdl[3];  /* from our side */
  float moves_left; /* the child's moves-left head; NAN for terminal children */
  bool mates;
} child;

/* The deadline in force: the request's, or the one a held (pondering)
 * request was given later (UCI ponderhit). 0 = none. */
static double deadline(const cf_agent_request *req) {
  const double late = req->live_deadline ? atomic_load(req->live_deadline) : 0;
  return late > 0 ? late : req->deadline;
}

static bool stop_requested(const cf_agent_request *req) {
  const double end = deadline(req);
  return (req->stop && atomic_load(req->stop)) || (end > 0 && cf_clock_now() >= end);
}

/* Scores a child that ends the game; false if the game goes on. */
static bool score_terminal(const cf_game *game, child *c) {
  cf_game_reason reason;
  cf_game_result r = cf_game_outcome(game, &reason);
  if (r == CF_RESULT_ONGOING) return false;
  c->scored = true;
  if (r == CF_RESULT_DRAW) {
    c->score = 0;
    c->wdl[0] = c->wdl[2] = 0;
    c->wdl[1] = 1;
  } else { /* the side to move in the child is mated: we won */
    c->score = 1;
    c->wdl[0] = 1;
    c->wdl[1] = c->wdl[2] = 0;
    c->mates = true;
  }
  return true;
}

/* A non-terminal child's legal replies, whose policy logits come with its
 * evaluation (the best child's top reply is the ponder move). */
typedef struct replies {
  int n;
  cf_move moves[CF_MAX_MOVES];
  cf_policy_move policy_moves[CF_MAX_MOVES];
  float logits[CF_MAX_MOVES];
} replies;

typedef struct work {
  child kids[CF_MAX_MOVES];
  replies replies[CF_MAX_MOVES]; /* [pending index] */
  int pending[CF_MAX_MOVES]; /* children needing the network, policy order */
  int n_pending;
  cf_net_position positions[CF_MAX_MOVES];
  cf_net_request requests[CF_MAX_MOVES];
  cf_net_output outputs[CF_MAX_MOVES];
  double seconds_per_eval; /* of the last batch (the root's at first) */
} work;

/* Plays each candidate, scores the terminal children and prepares the
 * others' network positions. Leaves the game as it was. */
static cf_status expand(const cf_agent_request *req, const cf_agent_root *root, const int *order,
                        work *w, cf_error *err) {
  const int input_format = cf_net_get_info(req->net)->input_format;
  for (int k = 0; k < root->n; k++) {
    int i = order[k];
    child *c = &w->kids[i];
    *c = (child){.index = i, .pending = -1, .moves_left = NAN};
    CF_TRY(cf_game_push_legal(req->game, root->moves[i], err)); /* a legal move of the root */
    if (!score_terminal(req->game, c)) {
      int p = w->n_pending++;
      replies *r = &w->replies[p];
      c->pending = p;
      w->pending[p] = i;
      cf_engine_net_position(req->game, input_format, &w->positions[p]);
      r->n = cf_engine_legal_policy_moves(cf_game_position(req->game), r->moves, r->policy_moves);
      w->requests[p] = (cf_net_request){
          .position = &w->positions[p], .moves = r->policy_moves, .n_moves = r->n};
      memset(&w->outputs[p], 0, sizeof w->outputs[p]);
      w->outputs[p].policy[CF_POLICY_VANILLA] = r->logits;
    }
    cf_game_pop(req->game);
  }
  return CF_OK;
}

/* Evaluates the pending children batch by batch until done, stopped or out
 * of evaluations. */
static cf_status evaluate(const cf_agent_request *req, work *w, cf_agent_result *out,
                          cf_error *err) {
  int batch = cf_net_get_info(req->net)->max_batch;
  if (batch < 1) batch = 1;
  for (int at = 0; at < w->n_pending;) {
    int n = w->n_pending - at < batch ? w->n_pending - at : batch;
    if (req->max_evals > 0 && out->evals + n > req->max_evals) n = (int)(req->max_evals - out->evals);
    if (w->seconds_per_eval > 0) {
      /* A batch cannot be interrupted: take only what fits in the time left,
       * and at most about STOP_LATENCY_S of work, so stop and quit are
       * honoured promptly even on a slow backend. */
      double budget = STOP_LATENCY_S;
      const double end = deadline(req);
      if (end > 0 && end - cf_clock_now() < budget) budget = end - cf_clock_now();
      double fit = budget / w->seconds_per_eval;
      if (fit < n) n = fit >= 1 ? (int)fit : 1;
    }
    if (n <= 0 || stop_requested(req)) {
      out->stopped = true;
      break;
    }
    double t0 = cf_clock_now();
    CF_TRY(cf_net_eval(req->net, n, w->requests + at, w->outputs + at, err));
    w->seconds_per_eval = (cf_clock_now() - t0) / n;
    out->evals += n;
    if (req->poll) req->poll(req->poll_user);
    for (int j = at; j < at + n; j++) {
      child *c = &w->kids[w->pending[j]];
      const cf_net_output *o = &w->outputs[j];
      c->scored = true;
      c->score = -o->q;
      c->wdl[0] = o->wdl[2];
      c->wdl[1] = o->wdl[1];
      c->wdl[2] = o->wdl[0];
      c->moves_left = o->moves_left;
    }
    at += n;
  }
  return CF_OK;
}

/* The child's most likely reply by its policy; CF_MOVE_NONE if unknown (a
 * terminal child, or one not evaluated before the agent stopped). */
static cf_move top_reply(const work *w, const child *c) {
  if (!c->scored || c->pending < 0 || w->replies[c->pending].n == 0) return CF_MOVE_NONE;
  const replies *r = &w->replies[c->pending];
  int top = 0;
  for (int k = 1; k < r->n; k++)
    if (r->logits[k] > r->logits[top]) top = k;
  return r->moves[top];
}

/* out->moves: scored children by score (equal scores in policy order, so the
 * first is the move chosen), then the unscored ones in policy order. */
static void rank_moves(const cf_agent_root *root, const int *order, const work *w,
                       cf_agent_result *out) {
  int ranked[CF_MAX_MOVES], n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < root->n; k++)
      if (w->kids[order[k]].scored == (pass == 0)) ranked[n++] = order[k];
  for (int i = 1; i < n && w->kids[ranked[i]].scored; i++) { /* stable insertion sort */
    int x = ranked[i], j = i;
    while (j > 0 && w->kids[ranked[j - 1]].score < w->kids[x].score) {
      ranked[j] = ranked[j - 1];
      j--;
    }
    ranked[j] = x;
  }
  for (int k = 0; k < n; k++) {
    const child *c = &w->kids[ranked[k]];
    cf_agent_move_stats *m = &out->moves[k];
    *m = (cf_agent_move_stats){.move = root->moves[c->index], .reply = top_reply(w, c),
                               .p = root->prob[c->index], .proven = -2, .q = root->out.q,
                               .moves_left = NAN};
    memcpy(m->wdl, root->out.wdl, sizeof m->wdl);
    if (c->scored) {
      m->scored = true;
      m->by_net = c->pending >= 0;
      if (!m->by_net) m->proven = c->mates ? 1 : 0;
      m->q = c->score;
      memcpy(m->wdl, c->wdl, sizeof m->wdl);
      m->moves_left = c->moves_left;
    }
  }
  out->n_moves = n;
}

static cf_status choose(const cf_agent_request *req, cf_agent_result *out, cf_error *err) {
  cf_agent_root root;
  double t0 = cf_clock_now();
  CF_TRY(cf_agent_eval_root(req, &root, err));
  double root_seconds = cf_clock_now() - t0;
  cf_agent_result_from_root(&root, out);
  if (root.n == 0) return CF_OK;
  work *w = malloc(sizeof *w);
  if (!w) return cf_error_set(err, CF_ERR_NOMEM, "value agent: out of memory");
  w->seconds_per_eval = root_seconds;
  int order[CF_MAX_MOVES];
  cf_agent_policy_order(&root, order);
  w->n_pending = 0;
  cf_status st = expand(req, &root, order, w, err);
  if (st == CF_OK) st = evaluate(req, w, out, err);
  if (st == CF_OK) {
    /* Policy order plus a strict comparison: equal scores keep the move the
     * policy prefers. */
    const child *best = NULL;
    for (int k = 0; k < root.n; k++) {
      const child *c = &w->kids[order[k]];
      if (!c->scored) continue;
      out->n_scored++;
      if (!best || c->score > best->score) best = c;
    }
    if (best) {
      out->best = root.moves[best->index];
      out->policy = root.prob[best->index];
      out->q = best->score;
      memcpy(out->wdl, best->wdl, sizeof out->wdl);
      out->mate = best->mates ? 1 : 0;
      out->ponder = top_reply(w, best);
    }
    rank_moves(&root, order, w, out);
  }
  free(w);
  return st;
}

const cf_agent_desc cf_agent_value_desc = {
    .name = "value",
    .summary = "one-ply search: evaluates every legal child position, plays the best for us",
    .choose = choose,
};
