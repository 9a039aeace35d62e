/* gen_random_net: writes a random net of a given shape (test-only; the
 * values come from the library's cf_weights_random, as `netconv random`'s
 * do; this tool adds the legacy single-head layout and the fuzz seeds).
 *
 *   gen_random_net OUT [preset] [key=value ...]
 *     presets: cf6m   CF-6M shape (cf_random_spec_cf6m)
 *              cf240m CF-240M shape (alias: large)
 *              tiny   1 layer, d 4, 2 heads, dff 4 (fuzz seeds)
 *     keys:    layers d heads dff dm input_format embedding(1 old|2 dense)
 *              dense_s emb_dff rpe rms gating qkv_bias smolgen sg_hc sg_hs
 *              sg_gs pos_table cv cm (cm=-1: no moves-left head) de dp seed
 *              (0/1 for flags), enc=linear16|float16|bfloat16|float32,
 *              gzip=0|1, legacy=1 (single-head network 6 layout)
 *   gen_random_net --seeds DIR    the fuzz seed corpus
 *
 * Example (the RSS measurement of the weights issue):
 *   build/tests/weights/gen_random_net /tmp/cf6m.pb.gz cf6m */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/weights/weights_test_pb.h"
#include "tools/random_net/cf_weights_random.h"

static cf_random_spec preset(const char *name, bool *found) {
  cf_random_spec s = cf_random_spec_cf6m();
  *found = true;
  if (strcmp(name, "large") == 0) return cf_random_spec_cf240m();
  if (cf_random_spec_preset(name, &s)) return s;
  if (strcmp(name, "tiny") == 0) {
    s = (cf_random_spec){.layers = 1, .d = 4, .heads = 2, .dff = 4, .value_cv = 1,
                         .moves_left = true, .mlh_cm = 1, .seed = 3};
    return s;
  }
  *found = false;
  return s;
}

typedef struct gen_opts {
  cf_random_spec shape;
  cf_encoding enc;
  bool gzip, legacy;
} gen_opts;

static bool set_key(gen_opts *o, const char *kv) {
  const char *eq = strchr(kv, '=');
  if (!eq) return false;
  size_t kl = (size_t)(eq - kv);
  const char *v = eq + 1;
  int n = atoi(v);
  cf_random_spec *s = &o->shape;
#define KEY(k) (kl == strlen(k) && strncmp(kv, k, kl) == 0)
  if (KEY("layers")) s->layers = n;
  else if (KEY("d")) s->d = n;
  else if (KEY("heads")) s->heads = n;
  else if (KEY("dff")) s->dff = n;
  else if (KEY("dm")) s->dm = n;
  else if (KEY("input_format")) s->input_format = n;
  else if (KEY("embedding")) s->embedding_style = n == 2 ? CF_EMBEDDING_DENSE : CF_EMBEDDING_OLD;
  else if (KEY("dense_s")) s->dense_width = n;
  else if (KEY("emb_dff")) s->emb_dff = n;
  else if (KEY("rpe")) s->rpe_q = s->rpe_k = s->rpe_v = n;
  else if (KEY("rms")) s->rms_norm = n;
  else if (KEY("gating")) s->gating = n;
  else if (KEY("qkv_bias")) s->qkv_bias = n;
  else if (KEY("smolgen")) s->smolgen = n;
  else if (KEY("pos_table")) s->pos_table = n;
  else if (KEY("cv")) s->value_cv = n;
  else if (KEY("cm")) {
    s->moves_left = n >= 0;
    s->mlh_cm = n > 0 ? n : 0;
  } else if (KEY("de")) s->policy_de = n;
  else if (KEY("dp")) s->policy_dp = n;
  else if (KEY("sg_hc")) s->smolgen_hc = n;
  else if (KEY("sg_hs")) s->smolgen_hs = n;
  else if (KEY("sg_gs")) s->smolgen_gs = n;
  else if (KEY("seed")) s->seed = (uint64_t)n;
  else if (KEY("gzip")) o->gzip = n;
  else if (KEY("legacy")) o->legacy = n;
  else if (KEY("enc")) {
    if (strcmp(v, "linear16") == 0) o->enc = CF_ENC_LINEAR16;
    else if (strcmp(v, "float16") == 0) o->enc = CF_ENC_FLOAT16;
    else if (strcmp(v, "bfloat16") == 0) o->enc = CF_ENC_BFLOAT16;
    else if (strcmp(v, "float32") == 0) o->enc = CF_ENC_FLOAT32;
    else return false;
  } else return false;
#undef KEY
  return true;
}

/* Rewrites a multi-head file into the single-head network 6 layout. */
static bool write_legacy(const cf_weights *w, const gen_opts *o, const char *path) {
  Pblczero__Net *net = cf_test_unpack_net(w, o->enc);
  if (!net) return false;
  Pblczero__Weights *pw = net->weights;
  Pblczero__Weights__PolicyHeads *ph = pw->policy_heads;
  Pblczero__Weights__ValueHead *v = pw->value_heads->winner;
  net->format->network_format->network = 6;
  pw->ip_pol_w = ph->ip_pol_w;
  pw->ip_pol_b = ph->ip_pol_b;
  pw->ip2_pol_w = ph->vanilla->ip2_pol_w;
  pw->ip2_pol_b = ph->vanilla->ip2_pol_b;
  pw->ip3_pol_w = ph->vanilla->ip3_pol_w;
  pw->ip3_pol_b = ph->vanilla->ip3_pol_b;
  pw->ip4_pol_w = ph->vanilla->ip4_pol_w;
  pw->ip_val_w = v->ip_val_w;
  pw->ip_val_b = v->ip_val_b;
  pw->ip1_val_w = v->ip1_val_w;
  pw->ip1_val_b = v->ip1_val_b;
  pw->ip2_val_w = v->ip2_val_w;
  pw->ip2_val_b = v->ip2_val_b;
  ph->ip_pol_w = ph->ip_pol_b = NULL;
  ph->vanilla->ip2_pol_w = ph->vanilla->ip2_pol_b = ph->vanilla->ip3_pol_w = NULL;
  ph->vanilla->ip3_pol_b = ph->vanilla->ip4_pol_w = NULL;
  v->ip_val_w = v->ip_val_b = v->ip1_val_w = v->ip1_val_b = v->ip2_val_w = v->ip2_val_b = NULL;
  protobuf_c_message_free_unpacked(&pw->policy_heads->base, NULL);
  protobuf_c_message_free_unpacked(&pw->value_heads->base, NULL);
  pw->policy_heads = NULL;
  pw->value_heads = NULL;
  size_t n;
  uint8_t *buf = cf_test_pack_net(net, &n);
  protobuf_c_message_free_unpacked(&net->base, NULL);
  uint8_t *out = buf;
  size_t out_n = n;
  if (o->gzip) out = cf_test_gzip_stored(buf, n, &out_n);
  bool ok = out && cf_test_write_file(path, out, out_n);
  if (out != buf) free(out);
  free(buf);
  return ok;
}

static int generate(const gen_opts *o, const char *path) {
  cf_error err;
  cf_weights *w = NULL;
  if (cf_weights_random(&o->shape, &w, &err) != CF_OK) {
    fprintf(stderr, "gen_random_net: %s\n", err.msg);
    return 1;
  }
  bool ok;
  if (o->legacy) {
    ok = write_legacy(w, o, path);
    if (!ok) snprintf(err.msg, sizeof err.msg, "%s: cannot write", path);
  } else {
    ok = cf_weights_save_file(w, path, o->enc, o->gzip, &err) == CF_OK;
  }
  if (!ok) {
    fprintf(stderr, "gen_random_net: %s\n", err.msg);
    cf_weights_free(w);
    return 1;
  }
  printf("%s: %d layers, d %d, %d heads, dff %d, %zu params (%.1f MB as float32), %s%s\n", path,
         w->arch.layers, w->arch.d, w->arch.heads, w->arch.dff, w->param_count,
         (double)w->param_count * 4 / 1e6, cf_encoding_name(o->enc), o->gzip ? ", gzip" : "");
  cf_weights_free(w);
  return 0;
}

/* The fuzz seed corpus: tiny nets covering the layouts and encodings. */
static int write_seeds(const char *dir) {
  struct seed {
    const char *name;
    const char *keys[9];
  } seeds[] = {
    {"tiny_rms_rpe_linear16.pb", {"rms=1", "rpe=1", "gating=1", "enc=linear16", "gzip=0"}},
    {"tiny_dense_smolgen_float16.pb",
     {"embedding=2", "dense_s=1", "smolgen=1", "sg_hc=1", "sg_hs=2", "sg_gs=1", "qkv_bias=1",
      "cm=-1", "enc=float16"}},
    {"tiny_map176_bfloat16.pb.gz", {"pos_table=1", "cm=-1", "enc=bfloat16", "gzip=1"}},
    {"tiny_legacy6_float32.pb", {"legacy=1", "enc=float32", "gzip=0", "cm=-1"}},
  };
  int rc = 0;
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
    bool found;
    gen_opts o = {.shape = preset("tiny", &found), .enc = CF_ENC_LINEAR16, .gzip = false};
    for (int k = 0; k < 9 && seeds[i].keys[k]; k++) set_key(&o, seeds[i].keys[k]);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, seeds[i].name);
    rc |= generate(&o, path);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/text_v2.txt", dir);
  rc |= !cf_test_write_file(path, "2\n0.5 -0.25\n", 12);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--seeds") == 0) return write_seeds(argv[2]);
  if (argc < 2) {
    fprintf(stderr, "usage: gen_random_net OUT [cf6m|large|tiny] [key=value ...]\n"
                    "       gen_random_net --seeds DIR\n");
    return 2;
  }
  gen_opts o = {.enc = CF_ENC_LINEAR16, .gzip = true};
  bool found = false;
  int first = 2;
  if (argc > 2) o.shape = preset(argv[2], &found);
  if (found)
    first = 3;
  else
    o.shape = preset("cf6m", &found);
  for (int i = first; i < argc; i++) {
    if (!set_key(&o, argv[i])) {
      fprintf(stderr, "gen_random_net: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  return generate(&o, argv[1]);
}
