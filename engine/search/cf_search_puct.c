/* cf_search_puct.c: which child to visit (PUCT with first-play urgency),
 * which move to play, and proofs (mates and forced draws) carried up the
 * tree. Values are from the side to move at `node` unless said otherwise. */
#include <math.h>

#include "engine/search/cf_search_internal.h"

/* cpuct grows slowly with the visits: CPuct + CPuctFactor * ln((N + base) / base);
 * at the root with RootHasOwnCpuctParams, from the *AtRoot three. */
float cf_search_cpuct(const cf_search_params *p, uint32_t n, bool at_root) {
  const bool own = at_root && p->root_has_own_cpuct_params;
  const float c = own ? p->cpuct_at_root : p->cpuct;
  const float factor = own ? p->cpuct_factor_at_root : p->cpuct_factor;
  const float base = own ? p->cpuct_base_at_root : p->cpuct_base;
  return c + (factor != 0 ? factor * logf(((float)n + base) / base) : 0.0f);
}

/* The node's own Q for its side to move: -(its mean, which is from the
 * view of the side that moved into it). */
static float node_q_to_move(const cf_snode *node, float draw_score) {
  return (float)-node->wl + draw_score * node->d;
}

/* FpuStrategyAtRoot's choices, in the row's order. */
enum { FPU_AT_ROOT_REDUCTION, FPU_AT_ROOT_ABSOLUTE, FPU_AT_ROOT_SAME };

float cf_search_fpu(const cf_search_params *p, const cf_snode *node, float draw_score) {
  /* The root (no parent) has its own strategy and value unless "same". */
  bool absolute = p->fpu_absolute;
  float value = p->fpu_value;
  if (!node->parent && p->fpu_strategy_at_root != FPU_AT_ROOT_SAME) {
    absolute = p->fpu_strategy_at_root == FPU_AT_ROOT_ABSOLUTE;
    value = p->fpu_value_at_root;
  }
  if (absolute) return value;
  float visited = 0;
  for (int i = 0; i < node->n_edges; i++) {
    const cf_snode *c = node->edges[i].child;
    if (c && c->n > 0) visited += node->edges[i].p;
  }
  return node_q_to_move(node, draw_score) - value * sqrtf(visited);
}

float cf_search_edge_q(const cf_sedge *e, float fpu, float draw_score) {
  const cf_snode *c = e->child;
  if (!c || c->n == 0) return fpu;
  return (float)c->wl + draw_score * c->d;
}

bool cf_search_allowed(cf_move m, const cf_move *allowed, int n_allowed) {
  if (!allowed || n_allowed <= 0) return true;
  for (int i = 0; i < n_allowed; i++)
    if (allowed[i] == m) return true;
  return false;
}

/* Visits a child has started: completed, and on their way to the network
 * (a collision's visits included, cf_search_gather.c). */
static uint32_t started_visits(const cf_snode *c) { return c ? c->n + c->in_flight : 0; }

/* Whether the chosen edge is still chosen with j more visits started: its
 * score computed as cf_search_select computes it, ties going to the first
 * edge. */
static bool still_chosen(const cf_run_edges *r, double j, int *probes) {
  if (probes) ++*probes;
  const float score = r->q + r->u_coeff * r->p / (1.0f + (float)((double)r->started + j));
  return score > r->rival || (score == r->rival && r->best < r->rival_index);
}

/* How many visits in a row the chosen edge takes, the next one included:
 * Q + u P / (1 + started + k) stays ahead of the rival for k <= u P /
 * (rival - Q) - 1 - started, then set exactly by the float scores: the
 * smallest k >= 1 at which still_chosen fails. A rival its Q alone beats
 * never catches it.
 *
 * still_chosen is monotone in k (each float operation is), so the exact
 * k is found by galloping from the estimate and bisecting: where Q and
 * the rival differ by a few float ulps (near-equal values in a decided
 * line) the estimate can be millions of visits off, and stepping one
 * visit at a time from it took up to a second a batch. */
uint32_t cf_search_run_length(const cf_run_edges *r, int *probes) {
  if (!(r->rival > r->q)) return UINT32_MAX;
  const double top = (double)UINT32_MAX - 2;
  double k = floor((double)r->u_coeff * r->p / (double)(r->rival - r->q) - (double)r->started);
  if (k < 1) k = 1;
  if (k >= top) return UINT32_MAX;
  /* chosen: still chosen at `chosen` (or 0, the visit at hand); gone: not
   * chosen at `gone`; the answer is the first gone after chosen. */
  double chosen, gone;
  if (still_chosen(r, k, probes)) {
    chosen = k;
    for (double step = 1;; step *= 2) {
      gone = k + step;
      if (gone >= top) return UINT32_MAX;
      if (!still_chosen(r, gone, probes)) break;
      chosen = gone;
    }
  } else {
    gone = k;
    chosen = 0;
    for (double step = 1; k - step >= 1; step *= 2) {
      if (still_chosen(r, k - step, probes)) {
        chosen = k - step;
        break;
      }
      gone = k - step;
    }
  }
  while (gone - chosen > 1) {
    const double mid = floor((chosen + gone) / 2);
    if (still_chosen(r, mid, probes))
      chosen = mid;
    else
      gone = mid;
  }
  return (uint32_t)gone;
}

float cf_search_edge_utility(const cf_search_params *p, const cf_snode *node, const cf_sedge *e,
                             float fpu, float draw_score, bool moves_left) {
  const float q = cf_search_edge_q(e, fpu, draw_score);
  return moves_left ? q + cf_search_moves_left_utility(p, node, e->child, q) : q;
}

int cf_search_select_full(const cf_search_params *p, const cf_snode *node, float draw_score,
                          const cf_move *allowed, int n_allowed, bool moves_left, uint32_t *run) {
  const float fpu = cf_search_fpu(p, node, draw_score);
  const uint32_t children_visits = node->n > 0 ? node->n - 1 : 0;
  const float u_coeff = cf_search_cpuct(p, node->n, !node->parent) *
                        sqrtf((float)(children_visits > 1 ? children_visits : 1));
  int best = -1, second = -1;
  float best_score = -INFINITY, second_score = -INFINITY;
  for (int i = 0; i < node->n_edges; i++) {
    const cf_sedge *e = &node->edges[i];
    if (!cf_search_allowed(e->move, allowed, n_allowed)) continue;
    float score = cf_search_edge_utility(p, node, e, fpu, draw_score, moves_left) +
                  u_coeff * e->p / (1.0f + (float)started_visits(e->child));
    if (score > best_score) {
      second_score = best_score;
      second = best;
      best_score = score;
      best = i;
    } else if (score > second_score) {
      second_score = score;
      second = i;
    }
  }
  if (run && best >= 0) {
    const cf_sedge *e = &node->edges[best];
    const cf_run_edges r = {.u_coeff = u_coeff, .p = e->p,
                         .q = cf_search_edge_utility(p, node, e, fpu, draw_score, moves_left),
                         .rival = second_score, .started = started_visits(e->child),
                         .best = best, .rival_index = second};
    *run = cf_search_run_length(&r, NULL);
  }
  return best;
}

int cf_search_select_run(const cf_search_params *p, const cf_snode *node, float draw_score,
                         const cf_move *allowed, int n_allowed, uint32_t *run) {
  return cf_search_select_full(p, node, draw_score, allowed, n_allowed, false, run);
}

int cf_search_select(const cf_search_params *p, const cf_snode *node, float draw_score,
                     const cf_move *allowed, int n_allowed) {
  return cf_search_select_full(p, node, draw_score, allowed, n_allowed, false, NULL);
}

int cf_search_compare_edges(const cf_sedge *a, const cf_sedge *b, float draw_score) {
  const cf_snode *ca = a->child, *cb = b->child;
  /* Proven outcomes first: a won move (sooner is better) beats everything,
   * a lost move (later is better) loses to everything. */
  int pa = ca ? ca->proven : CF_UNPROVEN, pb = cb ? cb->proven : CF_UNPROVEN;
  int ra = pa == 1 ? 2 : pa == -1 ? 0 : 1, rb = pb == 1 ? 2 : pb == -1 ? 0 : 1;
  if (ra != rb) return ra - rb;
  if (ra == 2 && ca->proven_plies != cb->proven_plies) return cb->proven_plies - ca->proven_plies;
  if (ra == 0 && ca->proven_plies != cb->proven_plies) return ca->proven_plies - cb->proven_plies;
  uint32_t na = ca ? ca->n : 0, nb = cb ? cb->n : 0;
  if (na != nb) return na > nb ? 1 : -1;
  if (na > 0) {
    float qa = (float)ca->wl + draw_score * ca->d, qb = (float)cb->wl + draw_score * cb->d;
    if (qa != qb) return qa > qb ? 1 : -1;
  }
  if (a->p != b->p) return a->p > b->p ? 1 : -1;
  return 0;
}

int cf_search_best_edge(const cf_snode *node, float draw_score, const cf_move *allowed,
                        int n_allowed) {
  int best = -1;
  for (int i = 0; i < node->n_edges; i++) {
    if (!cf_search_allowed(node->edges[i].move, allowed, n_allowed)) continue;
    if (best < 0 || cf_search_compare_edges(&node->edges[i], &node->edges[best], draw_score) > 0) best = i;
  }
  return best;
}

/* From the children's proofs (each from the view of the side to move at
 * node): a won child proves node lost for the side that moved into it; when
 * every child is proven, node is worth the best of them. */
bool cf_search_update_proof(cf_snode *node) {
  if (node->proven != CF_UNPROVEN || node->n_edges == 0) return false;
  int best = -2, win_plies = 1 << 14, loss_plies = 0;
  bool all = true;
  for (int i = 0; i < node->n_edges; i++) {
    const cf_snode *c = node->edges[i].child;
    if (!c || c->proven == CF_UNPROVEN) {
      all = false;
      continue;
    }
    if (c->proven == 1 && c->proven_plies < win_plies) win_plies = c->proven_plies;
    if (c->proven == -1 && c->proven_plies > loss_plies) loss_plies = c->proven_plies;
    if (c->proven > best) best = c->proven;
  }
  if (best == 1) { /* the side to move here wins: the mover into node lost */
    node->proven = -1;
    node->proven_plies = (int16_t)(win_plies + 1);
  } else if (all && best == 0) {
    node->proven = 0;
    node->proven_plies = 0;
  } else if (all && best == -1) { /* every move here loses: the mover into node won */
    node->proven = 1;
    node->proven_plies = (int16_t)(loss_plies + 1);
  } else {
    return false;
  }
  return true;
}
