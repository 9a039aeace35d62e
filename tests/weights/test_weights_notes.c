/* test_weights_notes.c: fields of the Chessformer trainer (lczero-training,
 * tf/net.proto) that cformer reads but does not run (quantisation scales,
 * policy_heads.next, future_head, a placeholder opponent head) and fields no
 * schema declares load, leave the network's tensors as they are, and each
 * kind leaves one note in cf_weights.notes. Network format 134 is written on
 * request and nothing else but 7. */
#include "tests/cf_test.h"
#include "tests/weights/weights_test_pb.h"

static const cf_test_shape shape = {
  .layers = 2, .d = 16, .heads = 2, .dff = 24, .rpe = true, .cv = 2, .cm = 2, .seed = 11,
};

/* A FLOAT32 Layer of n values v, v + 1, ... (freed with its message). */
static Pblczero__Weights__Layer *new_layer(size_t n, float v) {
  Pblczero__Weights__Layer *l = malloc(sizeof *l);
  pblczero__weights__layer__init(l);
  l->has_params = 1;
  l->params.len = 4 * n;
  l->params.data = malloc(4 * n);
  for (size_t i = 0; i < n; i++) {
    float x = v + (float)i;
    memcpy(l->params.data + 4 * i, &x, 4);
  }
  l->has_encoding = 1;
  l->encoding = PBLCZERO__WEIGHTS__LAYER__ENCODING__FLOAT32;
  return l;
}

static Pblczero__Weights__PolicyHead *new_head(void) {
  Pblczero__Weights__PolicyHead *h = malloc(sizeof *h);
  pblczero__weights__policy_head__init(h);
  return h;
}

/* Everything the Chessformer trainer adds, as its model_to_net writes it:
 * per layer the MHA scales s1, q_s, k_s, v_s, s2, dense_s and the FFN
 * scales s1, dense1_s, s2, dense2_s; policy/next and policy/opponent as
 * placeholders holding only a 2-wide wq; future_head. */
static void add_trainer_fields(Pblczero__Net *net) {
  Pblczero__Weights *pw = net->weights;
  for (size_t i = 0; i < pw->n_encoder; i++) {
    Pblczero__Weights__MHA *m = pw->encoder[i]->mha;
    m->s1 = new_layer(1, 0.5f);
    m->q_s = new_layer(16, 0.1f);
    m->k_s = new_layer(16, 0.1f);
    m->v_s = new_layer(16, 0.1f);
    m->s2 = new_layer(1, 0.5f);
    m->dense_s = new_layer(16, 0.1f);
    Pblczero__Weights__FFN *f = pw->encoder[i]->ffn;
    f->s1 = new_layer(1, 0.5f);
    f->dense1_s = new_layer(24, 0.1f);
    f->s2 = new_layer(1, 0.5f);
    f->dense2_s = new_layer(16, 0.1f);
  }
  Pblczero__Weights__PolicyHeads *ph = pw->policy_heads;
  ph->next = new_head();
  ph->next->ip2_pol_w = new_layer(2 * 16, 0.0f);
  ph->next->ip2_pol_b = new_layer(2, 0.0f);
  ph->opponent = new_head();
  ph->opponent->ip2_pol_w = new_layer(2 * 16, 0.0f);
  ph->opponent->ip2_pol_b = new_layer(2, 0.0f);
  pw->future_head = malloc(sizeof *pw->future_head);
  pblczero__weights__future_head__init(pw->future_head);
  pw->future_head->ip_fut_w = new_layer(4, 1.0f);
}

/* Two unknown varint fields (number 40) in each MHA, one (number 41) in Net. */
static void add_unknown(ProtobufCMessage *m, uint32_t tag, unsigned count) {
  ProtobufCMessageUnknownField *u = malloc(count * sizeof *u);
  for (unsigned i = 0; i < count; i++) {
    u[i].tag = tag;
    u[i].wire_type = PROTOBUF_C_WIRE_TYPE_VARINT;
    u[i].len = 1;
    u[i].data = calloc(1, 1);
  }
  m->n_unknown_fields = count;
  m->unknown_fields = u;
}

static void add_unknown_fields(Pblczero__Net *net) {
  for (size_t i = 0; i < net->weights->n_encoder; i++)
    add_unknown(&net->weights->encoder[i]->mha->base, 40, 2);
  add_unknown(&net->base, 41, 1);
}

typedef void (*mutate_fn)(Pblczero__Net *net);

/* shape after mutate(s), loaded; *orig receives the net before. */
static cf_weights *load_with(cf_test *t, mutate_fn a, mutate_fn b, cf_weights **orig) {
  cf_error err = {0};
  *orig = cf_test_random_net(&shape, &err);
  if (!CHECK(*orig != NULL)) return NULL;
  Pblczero__Net *net = cf_test_unpack_net(*orig, CF_ENC_FLOAT32);
  if (!CHECK(net != NULL)) return NULL;
  if (a) a(net);
  if (b) b(net);
  size_t n;
  uint8_t *buf = cf_test_pack_net(net, &n);
  protobuf_c_message_free_unpacked(&net->base, NULL);
  cf_weights *w = NULL;
  cf_status st = cf_weights_load_memory(buf, n, "trainer.pb", NULL, &w, &err);
  free(buf);
  if (!CHECK_INT_EQ(st, CF_OK)) fprintf(stderr, "  %s\n", err.msg);
  return w;
}

/* Every tensor of a equals b's, value for value. */
typedef struct pair_ctx {
  cf_tensor **t;
  int n, cap;
} pair_ctx;

static bool collect(void *user, const char *path, cf_tensor *t) {
  (void)path;
  pair_ctx *c = user;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 256;
    c->t = realloc(c->t, (size_t)c->cap * sizeof *c->t);
  }
  c->t[c->n++] = t;
  return true;
}

static bool same_tensors(cf_weights *a, cf_weights *b) {
  pair_ctx ca = {0}, cb = {0};
  cf_weights_visit(a, collect, &ca);
  cf_weights_visit(b, collect, &cb);
  bool same = ca.n == cb.n;
  for (int i = 0; same && i < ca.n; i++)
    same = ca.t[i]->n == cb.t[i]->n &&
           (ca.t[i]->n == 0 || memcmp(ca.t[i]->data, cb.t[i]->data, ca.t[i]->n * 4) == 0);
  free(ca.t);
  free(cb.t);
  return same;
}

/* The note that contains needle, or NULL. */
static const char *find_note(const cf_weights *w, const char *needle) {
  for (int i = 0; i < w->n_notes; i++)
    if (strstr(w->notes[i], needle)) return w->notes[i];
  return NULL;
}

static void test_plain_net_has_no_notes(cf_test *t) {
  cf_weights *orig, *w = load_with(t, NULL, NULL, &orig);
  if (w) CHECK_INT_EQ(w->n_notes, 0);
  cf_weights_free(w);
  cf_weights_free(orig);
  /* Nor does any parity net (Lc0's and the Chessformer trainer's files). */
  static const char *const nets[] = {"cf-rpe-rms", "cf-rpe-ln-canonical", "lc0-map-classic",
                                     "lc0-smolgen-relu2", "lc0-smolgen-relu2-bf16",
                                     "lc0-smolgen-relu2-f32"};
  for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/parity/%s.pb.gz", cf_test_data_dir(), nets[i]);
    cf_weights *p = NULL;
    cf_error err;
    if (!CHECK_INT_EQ(cf_weights_load_file(path, NULL, &p, &err), CF_OK)) continue;
    if (!CHECK_INT_EQ(p->n_notes, 0)) fprintf(stderr, "  %s: %s\n", nets[i], p->notes[0]);
    cf_weights_free(p);
  }
}

static void test_trainer_fields(cf_test *t) {
  cf_weights *orig, *w = load_with(t, add_trainer_fields, NULL, &orig);
  if (!w) {
    cf_weights_free(orig);
    return;
  }
  /* The net is the one without the extra fields, tensor for tensor. */
  CHECK(same_tensors(orig, w));
  CHECK(!w->arch.has_policy[CF_POLICY_OPPONENT]);
  CHECK(w->arch.has_policy[CF_POLICY_VANILLA]);
  CHECK_INT_EQ(w->n_notes, 4); /* one per kind */
  const char *n = find_note(w, "quantisation scales");
  if (CHECK(n != NULL)) {
    CHECK_STR_CONTAINS(n, "ignored 20 quantisation scales"); /* 10 per layer, 2 layers */
    CHECK_STR_CONTAINS(n, "mha.s1, mha.q_s, mha.k_s, mha.v_s, mha.s2, mha.dense_s, ffn.s1, "
                          "ffn.dense1_s, ffn.s2, ffn.dense2_s");
    CHECK_STR_CONTAINS(n, "unquantised");
  }
  CHECK(find_note(w, "ignored weights.policy_heads.next") != NULL);
  CHECK(find_note(w, "ignored weights.future_head") != NULL);
  n = find_note(w, "ignored weights.policy_heads.opponent");
  if (CHECK(n != NULL)) CHECK_STR_CONTAINS(n, "holds only wq");
  cf_weights_free(w);
  cf_weights_free(orig);
}

/* Only the scales a file has are named. */
static void one_scale(Pblczero__Net *net) { net->weights->encoder[1]->ffn->dense2_s = new_layer(16, 0.1f); }

static void test_one_scale(cf_test *t) {
  cf_weights *orig, *w = load_with(t, one_scale, NULL, &orig);
  if (w && CHECK_INT_EQ(w->n_notes, 1))
    CHECK_STR_CONTAINS(w->notes[0], "ignored 1 quantisation scale (ffn.dense2_s)");
  cf_weights_free(w);
  cf_weights_free(orig);
}

static void test_unknown_fields(cf_test *t) {
  cf_weights *orig, *w = load_with(t, add_unknown_fields, NULL, &orig);
  if (!w) {
    cf_weights_free(orig);
    return;
  }
  CHECK(same_tensors(orig, w));
  CHECK_INT_EQ(w->n_notes, 2);
  const char *n = find_note(w, "in Weights.MHA");
  if (CHECK(n != NULL)) CHECK_STR_CONTAINS(n, "ignored 4 unknown fields in Weights.MHA (field number 40)");
  n = find_note(w, "in Net ");
  if (CHECK(n != NULL)) CHECK_STR_CONTAINS(n, "ignored 1 unknown field in Net (field number 41)");
  cf_weights_free(w);
  cf_weights_free(orig);
  /* Both kinds at once: every note is there. */
  w = load_with(t, add_trainer_fields, add_unknown_fields, &orig);
  if (w) CHECK_INT_EQ(w->n_notes, 6);
  cf_weights_free(w);
  cf_weights_free(orig);
}

/* An opponent head with wq and wk but no ppo is a broken head, not the
 * placeholder: still an error. */
static void broken_opponent(Pblczero__Net *net) {
  Pblczero__Weights__PolicyHeads *ph = net->weights->policy_heads;
  ph->opponent = new_head();
  ph->opponent->ip2_pol_w = new_layer(16 * 16, 0.0f);
  ph->opponent->ip3_pol_w = new_layer(16 * 16, 0.0f);
}

static void test_broken_opponent_still_fails(cf_test *t) {
  cf_weights *w = cf_test_random_net(&shape, NULL);
  if (!CHECK(w != NULL)) return;
  Pblczero__Net *net = cf_test_unpack_net(w, CF_ENC_FLOAT32);
  cf_weights_free(w);
  if (!CHECK(net != NULL)) return;
  broken_opponent(net);
  size_t n;
  uint8_t *buf = cf_test_pack_net(net, &n);
  protobuf_c_message_free_unpacked(&net->base, NULL);
  cf_error err = {0};
  w = NULL;
  CHECK_INT_EQ(cf_weights_load_memory(buf, n, "broken.pb", NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.policy_heads.opponent.ip4_pol_w: required tensor missing");
  CHECK(w == NULL);
  free(buf);
}

static void test_notes_overflow(cf_test *t) {
  cf_weights *w = calloc(1, sizeof *w);
  if (!CHECK(w != NULL)) return;
  for (int i = 0; i < CF_WEIGHTS_NOTES_MAX + 5; i++) cf_weights_add_note(w, "note %d", i);
  CHECK_INT_EQ(w->n_notes, CF_WEIGHTS_NOTES_MAX);
  CHECK_STR_EQ(w->notes[0], "note 0");
  CHECK_STR_EQ(w->notes[CF_WEIGHTS_NOTES_MAX - 2], "note 14");
  CHECK_STR_CONTAINS(w->notes[CF_WEIGHTS_NOTES_MAX - 1], "more notes");
  cf_weights_add_note(NULL, "ignored"); /* accepted, does nothing */
  free(w);
}

/* save_network_format: 134 is written and read back as 134 (run as 7), 0 and
 * 7 write 7, anything else is refused. */
static void test_save_network_format(cf_test *t) {
  cf_weights *w = cf_test_random_net(&shape, NULL);
  if (!CHECK(w != NULL)) return;
  const int formats[] = {0, 7, 134};
  const int written[] = {7, 7, 134};
  for (int i = 0; i < 3; i++) {
    w->save_network_format = formats[i];
    void *buf = NULL;
    size_t n = 0;
    cf_error err = {0};
    if (!CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_LINEAR16, true, &buf, &n, &err), CF_OK))
      continue;
    cf_weights *back = NULL;
    if (CHECK_INT_EQ(cf_weights_load_memory(buf, n, "saved", NULL, &back, &err), CF_OK)) {
      CHECK_INT_EQ(back->raw_network_format, written[i]);
      CHECK_INT_EQ(back->arch.network_format, 7);
      CHECK_INT_EQ(back->save_network_format, 0);
      CHECK_INT_EQ(back->arch.layers, 2);
    }
    cf_weights_free(back);
    free(buf);
  }
  w->save_network_format = 6;
  void *buf = NULL;
  size_t n = 0;
  cf_error err = {0};
  CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_LINEAR16, true, &buf, &n, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "network format 6 cannot be written (7 or 134");
  CHECK(buf == NULL);
  cf_weights_free(w);
}

CF_TEST_MAIN(test_plain_net_has_no_notes, test_trainer_fields, test_one_scale,
             test_unknown_fields, test_broken_opponent_still_fails, test_notes_overflow,
             test_save_network_format)
