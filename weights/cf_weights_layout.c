/* cf_weights_layout.c: older layouts of the Weights message become the
 * current one (cf_weights_pb.h), on the unpacked message, so everything
 * after it sees one layout. */
#include "weights/cf_weights_pb.h"

static bool any_layer(Pblczero__Weights__Layer *const *ls, int n) {
  for (int i = 0; i < n; i++)
    if (ls[i]) return true;
  return false;
}

/* The one place where older layouts become the current one:
 *  - network 134 (the Chessformer trainer's AB_LEGACY_WITH_MULTIHEADFORMAT)
 *    is network 7, as Lc0 treats it;
 *  - single-head attention nets (network 6) keep their heads at top level:
 *    ip_pol_w/b become the shared policy embedding, ip2/ip3/ip4_pol the
 *    vanilla head, ip_val/ip1_val/ip2_val the winner value head.
 * Works on the unpacked message, so everything after it sees one layout. */
/* A heads message and its one head for tensors moved off the top level,
 * unless the file also has the heads message (then it is malformed: which
 * copy would count?). *outer stays NULL when there is nothing to move. */
static cf_status new_heads(Pblczero__Weights__Layer *const *top, int n, bool has_heads,
                           const char *what, const char *names, size_t outer_size,
                           size_t head_size, void **outer, void **head, cf_error *err) {
  *outer = *head = NULL;
  if (!any_layer(top, n)) return CF_OK;
  if (has_heads)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "weights: both top-level %s tensors (%s) and %s_heads are present", what,
                        names, what);
  *outer = cf_weights_pb_allocator.alloc(NULL, outer_size);
  *head = cf_weights_pb_allocator.alloc(NULL, head_size);
  if (*outer && *head) return CF_OK;
  cf_weights_pb_allocator.free(NULL, *outer);
  cf_weights_pb_allocator.free(NULL, *head);
  *outer = *head = NULL;
  return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
}

cf_status cf_weights_upgrade_layout(Pblczero__Weights *pw, int *network, cf_error *err) {
  if (*network == 134) *network = 7;

  Pblczero__Weights__Layer *pol[] = {pw->ip_pol_w, pw->ip_pol_b, pw->ip2_pol_w, pw->ip2_pol_b,
                                     pw->ip3_pol_w, pw->ip3_pol_b, pw->ip4_pol_w};
  void *outer, *head;
  CF_TRY(new_heads(pol, (int)(sizeof pol / sizeof pol[0]), pw->policy_heads != NULL, "policy",
                   "ip_pol_w, ip2_pol_w, ...", sizeof(Pblczero__Weights__PolicyHeads),
                   sizeof(Pblczero__Weights__PolicyHead), &outer, &head, err));
  if (outer) {
    Pblczero__Weights__PolicyHeads *ph = outer;
    Pblczero__Weights__PolicyHead *v = head;
    pblczero__weights__policy_heads__init(ph);
    pblczero__weights__policy_head__init(v);
    ph->ip_pol_w = pw->ip_pol_w;
    ph->ip_pol_b = pw->ip_pol_b;
    v->ip2_pol_w = pw->ip2_pol_w;
    v->ip2_pol_b = pw->ip2_pol_b;
    v->ip3_pol_w = pw->ip3_pol_w;
    v->ip3_pol_b = pw->ip3_pol_b;
    v->ip4_pol_w = pw->ip4_pol_w;
    ph->vanilla = v;
    pw->policy_heads = ph;
    pw->ip_pol_w = pw->ip_pol_b = pw->ip2_pol_w = pw->ip2_pol_b = NULL;
    pw->ip3_pol_w = pw->ip3_pol_b = pw->ip4_pol_w = NULL;
  }

  Pblczero__Weights__Layer *val[] = {pw->ip_val_w,  pw->ip_val_b,  pw->ip1_val_w,
                                     pw->ip1_val_b, pw->ip2_val_w, pw->ip2_val_b};
  CF_TRY(new_heads(val, (int)(sizeof val / sizeof val[0]), pw->value_heads != NULL, "value",
                   "ip_val_w, ip1_val_w, ...", sizeof(Pblczero__Weights__ValueHeads),
                   sizeof(Pblczero__Weights__ValueHead), &outer, &head, err));
  if (outer) {
    Pblczero__Weights__ValueHeads *vh = outer;
    Pblczero__Weights__ValueHead *v = head;
    pblczero__weights__value_heads__init(vh);
    pblczero__weights__value_head__init(v);
    v->ip_val_w = pw->ip_val_w;
    v->ip_val_b = pw->ip_val_b;
    v->ip1_val_w = pw->ip1_val_w;
    v->ip1_val_b = pw->ip1_val_b;
    v->ip2_val_w = pw->ip2_val_w;
    v->ip2_val_b = pw->ip2_val_b;
    vh->winner = v;
    pw->value_heads = vh;
    pw->ip_val_w = pw->ip_val_b = pw->ip1_val_w = pw->ip1_val_b = NULL;
    pw->ip2_val_w = pw->ip2_val_b = NULL;
  }
  return CF_OK;
}
