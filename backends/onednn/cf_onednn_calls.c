/* cf_onednn_calls.c: the first pass's distinct projections (see the
 * header). A network has a few hundred at most, added once each, so a
 * linear scan is enough. */
#include "backends/onednn/cf_onednn_calls.h"

#include <stdlib.h>

static bool same(const cf_onednn_call *a, const cf_onednn_call *b) {
  return a->w == b->w && a->b == b->b && a->rows == b->rows && a->in == b->in &&
         a->out == b->out && a->act == b->act && a->per_position == b->per_position &&
         a->layer == b->layer && a->x_bf16 == b->x_bf16 && a->y_bf16 == b->y_bf16;
}

void cf_onednn_calls_add(cf_onednn_calls *l, const cf_onednn_call *call) {
  for (int i = 0; i < l->n; i++)
    if (same(&l->v[i], call)) return;
  if (l->n == l->cap) {
    const int cap = l->cap ? 2 * l->cap : 64;
    cf_onednn_call *grown = realloc(l->v, (size_t)cap * sizeof *grown);
    if (!grown) {
      l->nomem = true;
      return;
    }
    l->v = grown;
    l->cap = cap;
  }
  l->v[l->n++] = *call;
}

void cf_onednn_calls_free(cf_onednn_calls *l) {
  free(l->v);
  *l = (cf_onednn_calls){0};
}
