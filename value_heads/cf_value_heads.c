/* cf_value_heads.c: value and moves-left heads on the backend, squashing on
 * the host. */
#include "value_heads/cf_value_heads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A generic "token embedding -> flatten -> dense -> dense" head; the value
 * heads add the optional error and categorical outputs. */
typedef struct head {
  bool on;
  int cv, hidden, outputs, n_cat;
  cf_op_act final_act;     /* relu for moves-left, none otherwise */
  cf_bweight *we, *be_;    /* [cv][d], [cv] */
  cf_bweight *w1, *b1;     /* [hidden][64*cv], [hidden] */
  cf_bweight *w2, *b2;     /* [outputs][hidden], [outputs] */
  cf_bweight *werr, *berr; /* [1][hidden], [1] or NULL */
  cf_bweight *wcat, *bcat; /* [nb][hidden], [nb] or NULL */
  float *host_out;         /* [B][outputs] */
  float *host_err;         /* [B] */
  float *host_cat;         /* [B][nb] */
} head;

#define MOVES_LEFT CF_VALUE_HEAD_COUNT /* heads[] slot of the moves-left head */

struct cf_values {
  cf_backend *be; /* not owned */
  int max_batch, d;
  cf_op_act act;
  /* backend scratch, shared by the heads */
  float *v0;  /* [B*64][max cv] = [B][64*cv] */
  float *h;   /* [B][max hidden] */
  float *out; /* [B][max(outputs, nb, 1)] */
  head heads[CF_VALUE_HEAD_COUNT + 1];
};

unsigned cf_values_requirements(const cf_net_arch *arch) {
  return (1u << CF_OP_ACT_NONE) | (1u << CF_OP_ACT_RELU) |
         (cf_op_act_valid(arch->default_act) ? 1u << arch->default_act : 0u);
}

static cf_status weight(cf_backend *be, cf_weight_role role, int rows, int cols, const cf_tensor *t,
                        const char *head_name, const char *what, cf_bweight **out, cf_error *err) {
  *out = NULL;
  if (!cf_tensor_present(t)) return CF_OK;
  if (rows <= 0 || cols <= 0 || t->n != (size_t)rows * (size_t)cols)
    return cf_error_set(err, CF_ERR_FORMAT, "%s head: %s has %zu values, expected %d x %d",
                        head_name, what, t->n, rows, cols);
  return cf_op_weight_use(be, CF_WEIGHT_USE_HEAD, role, rows, cols, t->data, out, err);
}

/* The tensors of one head, as the value and moves-left heads share them. */
typedef struct head_tensors {
  const cf_tensor *we, *be_, *w1, *b1, *w2, *b2, *werr, *berr, *wcat, *bcat;
} head_tensors;

static cf_status upload_head(cf_values *v, head *h, const char *name, const head_tensors *t,
                             cf_op_act final_act, cf_error *err) {
  cf_backend *be = v->be;
  const int d = v->d;
  h->on = true;
  h->final_act = final_act;
  h->cv = (int)(t->we->n / (size_t)d);
  h->hidden = h->cv > 0 ? (int)(t->w1->n / ((size_t)64 * h->cv)) : 0;
  h->outputs = h->hidden > 0 ? (int)(t->w2->n / (size_t)h->hidden) : 0;
  if (h->cv <= 0 || h->hidden <= 0 || h->outputs <= 0)
    return cf_error_set(err, CF_ERR_FORMAT, "%s head: missing dense weights", name);
  CF_TRY(weight(be, CF_WEIGHT_MATRIX, h->cv, d, t->we, name, "embedding", &h->we, err));
  CF_TRY(weight(be, CF_WEIGHT_VECTOR, 1, h->cv, t->be_, name, "embedding bias", &h->be_, err));
  CF_TRY(weight(be, CF_WEIGHT_MATRIX, h->hidden, 64 * h->cv, t->w1, name, "dense1", &h->w1, err));
  CF_TRY(weight(be, CF_WEIGHT_VECTOR, 1, h->hidden, t->b1, name, "dense1 bias", &h->b1, err));
  CF_TRY(weight(be, CF_WEIGHT_MATRIX, h->outputs, h->hidden, t->w2, name, "dense2", &h->w2, err));
  CF_TRY(weight(be, CF_WEIGHT_VECTOR, 1, h->outputs, t->b2, name, "dense2 bias", &h->b2, err));
  if (t->werr && cf_tensor_present(t->werr)) {
    CF_TRY(weight(be, CF_WEIGHT_MATRIX, 1, h->hidden, t->werr, name, "error", &h->werr, err));
    CF_TRY(weight(be, CF_WEIGHT_VECTOR, 1, 1, t->berr, name, "error bias", &h->berr, err));
  }
  if (t->wcat && cf_tensor_present(t->wcat)) {
    h->n_cat = (int)(t->wcat->n / (size_t)h->hidden);
    CF_TRY(weight(be, CF_WEIGHT_MATRIX, h->n_cat, h->hidden, t->wcat, name, "categorical", &h->wcat,
                  err));
    CF_TRY(weight(be, CF_WEIGHT_VECTOR, 1, h->n_cat, t->bcat, name, "categorical bias", &h->bcat,
                  err));
  }
  size_t B = (size_t)v->max_batch;
  h->host_out = malloc(B * h->outputs * sizeof(float));
  h->host_err = malloc(B * sizeof(float));
  h->host_cat = malloc(B * (h->n_cat ? h->n_cat : 1) * sizeof(float));
  if (!h->host_out || !h->host_err || !h->host_cat)
    return cf_error_set(err, CF_ERR_NOMEM, "%s head: out of memory", name);
  return CF_OK;
}

static cf_status create(cf_values *v, const cf_weights *w, unsigned head_mask, cf_error *err) {
  const cf_net_arch *a = &w->arch;
  if (!cf_op_act_valid(a->default_act))
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "value heads: activation %d unsupported",
                        a->default_act);
  for (int id = 0; id < CF_VALUE_HEAD_COUNT; id++) {
    if (!(head_mask & (1u << id))) continue;
    const char *name = cf_value_head_name((cf_value_head_id)id);
    const cf_value_head_weights *vw = &w->value[id];
    if (!a->has_value[id] || !vw->present)
      return cf_error_set(err, CF_ERR_ARG, "the network has no '%s' value head", name);
    head_tensors t = {&vw->ip_val_w,     &vw->ip_val_b,    &vw->ip1_val_w,    &vw->ip1_val_b,
                      &vw->ip2_val_w,    &vw->ip2_val_b,   &vw->ip_val_err_w, &vw->ip_val_err_b,
                      &vw->ip_val_cat_w, &vw->ip_val_cat_b};
    CF_TRY(upload_head(v, &v->heads[id], name, &t, CF_OP_ACT_NONE, err));
    int outs = v->heads[id].outputs;
    if (outs != 1 && outs != 3)
      return cf_error_set(err, CF_ERR_UNSUPPORTED, "%s head has %d outputs (expected 1 or 3)", name,
                          outs);
  }
  if (a->has_moves_left && cf_tensor_present(&w->ip_mov_w)) {
    head_tensors t = {&w->ip_mov_w,  &w->ip_mov_b, &w->ip1_mov_w, &w->ip1_mov_b, &w->ip2_mov_w,
                      &w->ip2_mov_b, NULL,         NULL,          NULL,          NULL};
    CF_TRY(upload_head(v, &v->heads[MOVES_LEFT], "moves-left", &t, CF_OP_ACT_RELU, err));
  }
  int cv = 1, hidden = 1, outs = 1;
  for (int i = 0; i <= MOVES_LEFT; i++) {
    const head *h = &v->heads[i];
    if (!h->on) continue;
    cv = h->cv > cv ? h->cv : cv;
    hidden = h->hidden > hidden ? h->hidden : hidden;
    outs = h->outputs > outs ? h->outputs : outs;
    outs = h->n_cat > outs ? h->n_cat : outs;
  }
  size_t B = (size_t)v->max_batch;
  const char *what = "value head activations";
  CF_TRY(cf_op_buffer(v->be, B * 64 * cv, what, &v->v0, err));
  CF_TRY(cf_op_buffer(v->be, B * hidden, what, &v->h, err));
  return cf_op_buffer(v->be, B * outs, what, &v->out, err);
}

cf_status cf_values_create(const cf_weights *w, cf_backend *be, int max_batch, unsigned head_mask,
                           cf_values **out, cf_error *err) {
  *out = NULL;
  cf_values *v = calloc(1, sizeof *v);
  if (!v) return cf_error_set(err, CF_ERR_NOMEM, "value heads: out of memory");
  v->be = be;
  v->max_batch = max_batch;
  v->d = w->arch.d;
  v->act = (cf_op_act)w->arch.default_act;
  cf_status st = create(v, w, head_mask, err);
  if (st != CF_OK) {
    cf_values_free(v);
    return st;
  }
  *out = v;
  return CF_OK;
}

void cf_values_free(cf_values *v) {
  if (!v) return;
  for (int i = 0; i <= MOVES_LEFT; i++) {
    head *h = &v->heads[i];
    cf_bweight *ws[] = {h->we, h->be_,  h->w1,   h->b1,   h->w2,
                        h->b2, h->werr, h->berr, h->wcat, h->bcat};
    for (size_t k = 0; k < sizeof ws / sizeof ws[0]; k++) cf_op_weight_free(v->be, ws[k]);
    free(h->host_out);
    free(h->host_err);
    free(h->host_cat);
  }
  cf_op_free(v->be, v->v0);
  cf_op_free(v->be, v->h);
  cf_op_free(v->be, v->out);
  free(v);
}

static void head_forward(cf_values *v, head *h, int batch, const float *tokens) {
  cf_backend *be = v->be;
  /* v0[batch*64][cv] = act(tokens W_e^T + b_e), read as [batch][64*cv] */
  cf_op_linear(be, batch * 64, v->d, h->cv, tokens, h->we, h->be_, v->act, v->v0);
  /* h[batch][hidden] = act(v0 W1^T + b1) */
  cf_op_linear_positions(be, batch, 1, 64 * h->cv, h->hidden, v->v0, h->w1, h->b1, v->act, v->h);
  /* out[batch][outputs] = final_act(h W2^T + b2) */
  cf_op_linear_positions(be, batch, 1, h->hidden, h->outputs, v->h, h->w2, h->b2, h->final_act,
                         v->out);
  cf_op_download(be, h->host_out, v->out, (size_t)batch * h->outputs);
  if (h->werr) {
    /* err[batch][1] = sigmoid(h W_err^T + b_err) */
    cf_op_linear_positions(be, batch, 1, h->hidden, 1, v->h, h->werr, h->berr, CF_OP_ACT_SIGMOID,
                           v->out);
    cf_op_download(be, h->host_err, v->out, (size_t)batch);
  }
  if (h->wcat) {
    /* cat[batch][nb] = h W_cat^T + b_cat */
    cf_op_linear_positions(be, batch, 1, h->hidden, h->n_cat, v->h, h->wcat, h->bcat,
                           CF_OP_ACT_NONE, v->out);
    cf_op_download(be, h->host_cat, v->out, (size_t)batch * h->n_cat);
  }
}

void cf_values_forward(cf_values *v, int batch, const float *tokens) {
  for (int i = 0; i <= MOVES_LEFT; i++)
    if (v->heads[i].on) head_forward(v, &v->heads[i], batch, tokens);
}

void cf_values_read(const cf_values *v, cf_value_head_id id, int b, cf_value_result *out,
                    float *cat) {
  const head *h = &v->heads[id];
  const float *o = h->host_out + (size_t)b * h->outputs;
  out->outputs = h->outputs;
  out->has_err = h->werr != NULL;
  out->err = out->has_err ? h->host_err[b] : NAN;
  out->n_cat = h->n_cat;
  if (h->outputs == 3) {
    /* softmax over (win, draw, loss) */
    float mx = fmaxf(o[0], fmaxf(o[1], o[2]));
    float e[3], sum = 0.0f;
    for (int i = 0; i < 3; i++) sum += e[i] = expf(o[i] - mx);
    for (int i = 0; i < 3; i++) out->wdl[i] = e[i] / sum;
    out->q = out->wdl[0] - out->wdl[2];
  } else {
    out->q = tanhf(o[0]);
    out->wdl[0] = out->wdl[1] = out->wdl[2] = NAN;
  }
  if (cat)
    for (int i = 0; i < h->n_cat; i++) cat[i] = h->host_cat[(size_t)b * h->n_cat + i];
}

float cf_values_moves_left(const cf_values *v, int b) {
  const head *h = &v->heads[MOVES_LEFT];
  return h->on ? h->host_out[(size_t)b * h->outputs] : NAN;
}
