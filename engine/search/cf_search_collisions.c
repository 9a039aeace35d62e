/* cf_search_collisions.c: how much a batch may collide: the collision
 * events it may have (MaxCollisionEvents) and, with multi-visit collisions
 * (fill_batches), the collision visits it may spend, by Lc0's
 * MaxCollisionVisits scaling with the tree's size; and where a collision's
 * visits are in flight. */
#include <limits.h>
#include <math.h>

#include "engine/search/cf_search_internal.h"

/* A batch may always spend this many collision visits per leaf it wants,
 * however small the tree: Lc0's scaling alone (1 visit up to 28 nodes, 19 at
 * 200) would leave the batches of the few hundred visits a CPU search makes
 * a move part empty. LcZeroGather drops it, to gather as Lc0 does. */
#define COLLISION_FLOOR_PER_LEAF 3

bool cf_search_fills_batches(const cf_search_params *p) {
  return p->fill_batches || p->lczero_gather;
}

long cf_search_collision_budget(const cf_search_params *p, long nodes) {
  const long max = p->max_collision_visits, start = p->max_collision_visits_scaling_start,
             end = p->max_collision_visits_scaling_end;
  /* The end is asked first, as Lc0 does: an end of 0 (or one below the
   * start) means the maximum at any size. */
  if (nodes >= end) return max;
  if (nodes <= start) return 1;
  const double ratio = pow((double)(nodes - start) / (double)(end - start),
                           p->max_collision_visits_scaling_power);
  const long b = lround(1.0 + (double)(max - 1) * ratio);
  return b < 1 ? 1 : b > max ? max : b;
}

int cf_search_max_collisions(const cf_search_params *p, int want) {
  if (cf_search_fills_batches(p) || p->max_collision_events < want) return p->max_collision_events;
  return want;
}

/* The collision visits a batch of `want` leaves may spend: the budget for
 * the smaller of the tree and the visits still to make (as Lc0's), and no
 * fewer than COLLISION_FLOOR_PER_LEAF per leaf but with LcZeroGather;
 * unbounded (the events bound it) without multi-visit collisions. */
long cf_search_batch_collision_budget(const cf_search *s, int want) {
  if (!cf_search_fills_batches(&s->params)) return LONG_MAX;
  long nodes = (long)s->root->n;
  const long visits = s->limits->visits;
  if (visits > 0 && visits - nodes < nodes) nodes = visits - nodes;
  const long b = cf_search_collision_budget(&s->params, nodes);
  if (s->params.lczero_gather) return b;
  const long floor_visits = (long)COLLISION_FLOOR_PER_LEAF * want;
  return b > floor_visits ? b : floor_visits;
}

/* Adds `visits` in flight to x and every node above it. */
static void add_in_flight(cf_snode *x, uint32_t visits) {
  for (; x; x = x->parent) x->in_flight += visits;
}

/* Lc0 puts a collision's visits in flight on the path above the node only:
 * a node waiting for its first visit counts that one visit (its
 * TryStartScoreUpdate refuses more), so its parent keeps choosing it while
 * the grandparent, seeing them all, turns elsewhere. cformer's own gather
 * counts them on the node too, which sends the parent's next walk to a
 * sibling instead; LcZeroGather takes Lc0's. */
cf_collision cf_search_collide(const cf_search_params *p, cf_snode *x, uint32_t visits) {
  if (!p->lczero_gather) {
    add_in_flight(x, visits - 1); /* the walk itself is the first */
    return (cf_collision){x, visits, x};
  }
  x->in_flight--; /* the walk's own visit moves off the node */
  add_in_flight(x->parent, visits - 1);
  return (cf_collision){x, visits, x->parent};
}

cf_collision cf_search_collide_after(cf_snode *x, uint32_t visits) {
  add_in_flight(x->parent, visits);
  return (cf_collision){x, visits, x->parent};
}

void cf_search_cancel_collision(const cf_collision *c) {
  for (cf_snode *x = c->marked; x; x = x->parent)
    x->in_flight -= c->visits < x->in_flight ? c->visits : x->in_flight;
}
