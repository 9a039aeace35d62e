/* cf_search_puct.c: which child to visit (PUCT with first-play urgency),
 * which move to play, and proofs (mates and forced draws) carried up the
 * tree. Values are from the side to move at `node` unless said otherwise. */
#include <math.h>

#include "engine/search/cf_search_internal.h"

/* cpuct grows slowly with the visits: CPuct + CPuctFactor * ln((N + base) / base). */
float cf_search_cpuct(const cf_search_params *p, uint32_t n) {
  return p->cpuct + (p->cpuct_factor != 0
                         ? p->cpuct_factor * logf(((float)n + p->cpuct_base) / p->cpuct_base)
                         : 0.0f);
}

/* The node's own Q for its side to move: -(its mean, which is from the
 * view of the side that moved into it). */
static float node_q_to_move(const cf_snode *node, float draw_score) {
  return (float)-node->wl + draw_score * node->d;
}

float cf_search_fpu(const cf_search_params *p, const cf_snode *node, float draw_score) {
  if (p->fpu_absolute) return p->fpu_value;
  float visited = 0;
  for (int i = 0; i < node->n_edges; i++) {
    const cf_snode *c = node->edges[i].child;
    if (c && c->n > 0) visited += node->edges[i].p;
  }
  return node_q_to_move(node, draw_score) - p->fpu_value * sqrtf(visited);
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

/* Visits a child has started: completed, on their way to the network, and
 * those this batch's collisions stand for. */
static uint32_t started_visits(const cf_snode *c) {
  return c ? c->n + c->in_flight + c->collision_visits : 0;
}

static bool blocked(const cf_snode *c) { return c && c->collision_visits >= CF_COLLISION_BLOCKED; }

int cf_search_select(const cf_search_params *p, const cf_snode *node, float draw_score,
                     const cf_move *allowed, int n_allowed) {
  const float fpu = cf_search_fpu(p, node, draw_score);
  const uint32_t children_visits = node->n > 0 ? node->n - 1 : 0;
  const float u_coeff =
      cf_search_cpuct(p, node->n) * sqrtf((float)(children_visits > 1 ? children_visits : 1));
  int best = -1;
  float best_score = -INFINITY;
  for (int i = 0; i < node->n_edges; i++) {
    const cf_sedge *e = &node->edges[i];
    if (!cf_search_allowed(e->move, allowed, n_allowed)) continue;
    uint32_t started = started_visits(e->child);
    float score = cf_search_edge_q(e, fpu, draw_score) + u_coeff * e->p / (1.0f + (float)started);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

uint32_t cf_search_edge_run(const cf_search_params *p, const cf_snode *node, int edge,
                            float draw_score, const cf_move *allowed, int n_allowed) {
  const float fpu = cf_search_fpu(p, node, draw_score);
  const uint32_t children_visits = node->n > 0 ? node->n - 1 : 0;
  const float u_coeff =
      cf_search_cpuct(p, node->n) * sqrtf((float)(children_visits > 1 ? children_visits : 1));
  /* The best score among the other edges, leaving out leaves waiting for
   * the network: a visit sent there would collide too. */
  float rival = -INFINITY;
  for (int i = 0; i < node->n_edges; i++) {
    const cf_sedge *e = &node->edges[i];
    if (i == edge || !cf_search_allowed(e->move, allowed, n_allowed)) continue;
    if (blocked(e->child) || (e->child && !e->child->edges && e->child->in_flight > 0)) continue;
    float score = cf_search_edge_q(e, fpu, draw_score) +
                  u_coeff * e->p / (1.0f + (float)started_visits(e->child));
    if (score > rival) rival = score;
  }
  /* The edge keeps winning while Q + u P / (1 + started + k) stays at or
   * above the rival's score: k <= u P / (rival - Q) - 1 - started. A rival
   * that its Q alone beats never catches it. */
  const cf_sedge *e = &node->edges[edge];
  const float q = cf_search_edge_q(e, fpu, draw_score);
  if (!(rival > q)) return UINT32_MAX;
  const double k = floor((double)u_coeff * e->p / (double)(rival - q) - 1.0 - (double)started_visits(e->child));
  if (k < 0) return 1;
  return k >= (double)(UINT32_MAX - 1) ? UINT32_MAX : (uint32_t)k + 1;
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
