/* cf_search_tree.c: nodes from a pool, edge arrays, freeing subtrees. The
 * pool's byte count is what RamLimitMb is checked against. */
#include <stdlib.h>
#include <string.h>

#include "engine/search/cf_search_internal.h"

#define SLAB_NODES 4096

cf_snode *cf_node_new(cf_node_pool *pool, cf_snode *parent, int edge_index) {
  cf_snode *n = pool->free_list;
  if (n) {
    pool->free_list = n->parent;
  } else {
    if (pool->n_slabs == 0 || pool->used_in_last == SLAB_NODES) {
      if (pool->n_slabs == pool->cap_slabs) {
        int cap = pool->cap_slabs ? 2 * pool->cap_slabs : 16;
        cf_snode **grown = realloc(pool->slabs, (size_t)cap * sizeof *grown);
        if (!grown) return NULL;
        pool->slabs = grown;
        pool->cap_slabs = cap;
      }
      cf_snode *slab = malloc(SLAB_NODES * sizeof *slab);
      if (!slab) return NULL;
      pool->slabs[pool->n_slabs++] = slab;
      pool->used_in_last = 0;
      pool->bytes += SLAB_NODES * sizeof *slab;
    }
    n = &pool->slabs[pool->n_slabs - 1][pool->used_in_last++];
  }
  *n = (cf_snode){.parent = parent,
                  .edge_index = (uint16_t)edge_index,
                  .v = NAN,
                  .proven = CF_UNPROVEN};
  pool->live++;
  return n;
}

bool cf_node_alloc_edges(cf_node_pool *pool, cf_snode *node, int n) {
  node->edges = n > 0 ? calloc((size_t)n, sizeof *node->edges) : NULL;
  if (n > 0 && !node->edges) return false;
  node->n_edges = (uint16_t)n;
  pool->bytes += (size_t)n * sizeof *node->edges;
  return true;
}

/* Iterative (the tree can be deep): children first, through an explicit
 * stack grown on the heap. */
void cf_node_free_subtree(cf_node_pool *pool, cf_snode *node) {
  if (!node) return;
  size_t cap = 256, top = 0;
  cf_snode **stack = malloc(cap * sizeof *stack);
  cf_snode *small[1];
  if (!stack) { /* out of memory: free what we can without a stack, leaking children */
    small[0] = node;
    stack = small;
    cap = 1;
  }
  stack[top++] = node;
  while (top) {
    cf_snode *x = stack[--top];
    for (int i = 0; i < x->n_edges; i++) {
      cf_snode *c = x->edges[i].child;
      if (!c) continue;
      if (top == cap && stack != small) {
        cf_snode **grown = realloc(stack, 2 * cap * sizeof *grown);
        if (grown) {
          stack = grown;
          cap *= 2;
        }
      }
      if (top < cap) stack[top++] = c;
    }
    pool->bytes -= (size_t)x->n_edges * sizeof *x->edges;
    free(x->edges);
    x->edges = NULL;
    x->n_edges = 0;
    x->parent = pool->free_list;
    pool->free_list = x;
    pool->live--;
  }
  if (stack != small) free(stack);
}

void cf_node_pool_free(cf_node_pool *pool) {
  for (int i = 0; i < pool->n_slabs; i++) {
    cf_snode *slab = pool->slabs[i];
    int used = i == pool->n_slabs - 1 ? pool->used_in_last : SLAB_NODES;
    for (int k = 0; k < used; k++) free(slab[k].edges); /* free-listed nodes hold NULL */
    free(slab);
  }
  free(pool->slabs);
  memset(pool, 0, sizeof *pool);
}

bool cf_node_has_twofold(const cf_snode *node) {
  if (!node) return false;
  if (node->flags & CF_NODE_TWOFOLD) return true;
  for (int i = 0; i < node->n_edges; i++)
    if (cf_node_has_twofold(node->edges[i].child)) return true;
  return false;
}
