/* nc_import.c: `netconv import CKPT.safetensors [--config CONFIG] -o NET`.
 *
 * Tensor names say where each tensor goes (nc_names.h); the layer count and
 * which layers have smolgen come from the names, every width from the
 * tensor sizes (cf_weights_infer_arch, as the loader does), and what
 * weights cannot tell (input format, heads, activations) from the config
 * (the file's own __metadata__ first, then --config on top). Every failure
 * names the tensor or key at fault, and nothing is written unless all of it
 * is right (the output goes through a temporary file). */
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cf_cli.h"
#include "tools/netconv/nc_common.h"
#include "tools/netconv/nc_config.h"
#include "tools/netconv/nc_import.h"
#include "tools/netconv/nc_names.h"
#include "tools/netconv/nc_safetensors.h"

static const char usage[] =
    "usage: netconv import CKPT.safetensors [--config CONFIG] -o NET.pb.gz\n"
    "                      [--encoding E] [--no-gzip]\n\n"
    "Builds a network from trainer weights in safetensors (F32, F16 or BF16).\n"
    "Names: our trainer's (training/model.py state_dict, nn.Linear [out][in]) or\n"
    "the Chessformer trainer's (encoder_N/mha/wq/kernel, TensorFlow's ':0' suffix\n"
    "optional, [in][out] kernels; for input formats 1-3 the rule-50 column of the\n"
    "embedding is divided by 99; quantisation scales and the policy/next head are\n"
    "skipped with a warning); docs/TRAINER_NAMES.md lists both. CONFIG (JSON or YAML) gives what weights\n"
    "cannot: input_format, heads, activations (docs/NETCONV.md); a file written by\n"
    "`netconv export` carries its own.\n\n";

/* Where each safetensors tensor went, for the shape check after inference. */
typedef struct placed {
  const nc_st_tensor *st; /* NULL: an ignored tensor */
  const char *name;       /* its name as the tables spell it */
} placed;

/* Whether f holds the tensor named name (canonical). */
static bool has_name(char (*names)[NC_NAME_MAX], int count, const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* The Chessformer trainer writes its opponent head as a placeholder, a
 * 2-wide wq with nothing else; it is no attention policy head. */
static bool opponent_is_placeholder(char (*names)[NC_NAME_MAX], int count) {
  return has_name(names, count, "policy/opponent/attention/wq/kernel") &&
         !has_name(names, count, "policy/opponent/attention/wk/kernel") &&
         !has_name(names, count, "policy/opponent/attention/ppo/kernel");
}

/* Notes on what the checkpoint holds that the network will not. */
static void note_ignored(cf_weights *w, int scales, int next, int opponent) {
  if (scales)
    cf_weights_add_note(w, "ignored %d quantisation scale%s (.../s): the Chessformer trainer's "
                           "quantisation-aware training; the network runs the weights unquantised",
                        scales, scales == 1 ? "" : "s");
  if (next)
    cf_weights_add_note(w, "ignored policy/next (%d tensor%s): the Chessformer trainer's next-move "
                           "head, which cformer does not use",
                        next, next == 1 ? "" : "s");
  if (opponent)
    cf_weights_add_note(w, "ignored policy/opponent (%d tensor%s): it holds only wq, the "
                           "Chessformer trainer's placeholder, not an attention policy head",
                        opponent, opponent == 1 ? "" : "s");
}

static cf_status detect_naming(const nc_st_file *f, const nc_config *c, nc_naming *out) {
  if (c->naming >= 0) {
    *out = (nc_naming)c->naming;
    return CF_OK;
  }
  *out = NC_NAMING_OURS;
  for (int i = 0; i < f->count; i++)
    if (strchr(f->tensors[i].name, '/')) *out = NC_NAMING_CHESSFORMER;
  return CF_OK;
}

static cf_status check_config(const nc_config *c, cf_error *err) {
  if (!c->input_format)
    return cf_error_set(err, CF_ERR_ARG,
                        "the input format is unknown: the config must give input_format");
  if (!c->heads)
    return cf_error_set(err, CF_ERR_ARG, "the head count is unknown: the config must give heads");
  return CF_OK;
}

static void shape_text(const nc_st_tensor *t, char *buf, size_t n) {
  int k = snprintf(buf, n, "[");
  for (int d = 0; d < t->ndim && k < (int)n; d++)
    k += snprintf(buf + k, n - (size_t)k, "%s%llu", d ? "][" : "", (unsigned long long)t->shape[d]);
  if (k < (int)n) snprintf(buf + k, n - (size_t)k, "]");
}

/* Copies (and for the Chessformer naming transposes) one tensor into its slot. */
static cf_status place(const nc_st_tensor *st, nc_slot *s, nc_naming naming, cf_error *err) {
  char shape[96];
  shape_text(st, shape, sizeof shape);
  const bool two_d = st->ndim == 2 || (st->ndim == 1 && !s->matrix);
  if (!two_d || (s->matrix && st->ndim != 2) || st->numel == 0)
    return cf_error_set(err, CF_ERR_FORMAT, "tensor '%s': wrong shape %s (expected %s)", st->name,
                        shape, s->matrix ? "2 dimensions" : "1 dimension");
  float *data = malloc(st->numel * sizeof *data);
  if (!data) return cf_error_set(err, CF_ERR_NOMEM, "tensor '%s': out of memory", st->name);
  nc_st_decode(st, data);
  if (s->matrix && naming == NC_NAMING_CHESSFORMER) {
    const size_t in = st->shape[0], out = st->shape[1];
    float *tr = malloc(st->numel * sizeof *tr);
    if (!tr) {
      free(data);
      return cf_error_set(err, CF_ERR_NOMEM, "tensor '%s': out of memory", st->name);
    }
    for (size_t i = 0; i < in; i++)
      for (size_t o = 0; o < out; o++) tr[o * in + i] = data[i * out + o];
    free(data);
    data = tr;
  }
  s->t->data = data;
  s->t->n = st->numel;
  s->t->encoding = CF_ENC_FLOAT32;
  return CF_OK;
}

/* Rows of the tensor as given, in cf_weights layout. */
static uint64_t given_rows(const nc_st_tensor *st, nc_naming naming) {
  return naming == NC_NAMING_CHESSFORMER ? st->shape[1] : st->shape[0];
}

cf_status nc_import_weights(const nc_st_file *f, const nc_config *cfg, cf_weights **out,
                            cf_error *err) {
  *out = NULL;
  nc_naming naming;
  CF_TRY(detect_naming(f, cfg, &naming));
  CF_TRY(check_config(cfg, err));
  char(*names)[NC_NAME_MAX] = malloc((size_t)(f->count ? f->count : 1) * sizeof *names);
  if (!names) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  for (int i = 0; i < f->count; i++)
    nc_name_canonical(naming, f->tensors[i].name, names[i], NC_NAME_MAX);
  int layers = 0;
  for (int i = 0; i < f->count; i++) {
    int l = nc_name_layer(naming, names[i]);
    if (l + 1 > layers) layers = l + 1;
  }
  if (layers == 0) {
    free(names);
    return cf_error_set(err, CF_ERR_FORMAT,
                        "no encoder layers: no tensor is named like '%s' (%s naming)",
                        naming == NC_NAMING_OURS ? "encoder.0.mha.wq.weight" : "encoder_1/mha/wq/kernel",
                        nc_naming_name(naming));
  }
  if (cfg->layers && cfg->layers != layers) {
    free(names);
    return cf_error_set(err, CF_ERR_ARG, "config says layers %d but the tensors have %d layers",
                        cfg->layers, layers);
  }
  const bool opponent_placeholder =
      naming == NC_NAMING_CHESSFORMER && opponent_is_placeholder(names, f->count);
  int ignored_scales = 0, ignored_next = 0, ignored_opponent = 0;
  cf_weights *w = calloc(1, sizeof *w);
  if (!w) {
    free(names);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  }
  w->layers = calloc((size_t)layers, sizeof *w->layers);
  placed *pl = calloc((size_t)(f->count ? f->count : 1), sizeof *pl);
  nc_slot *slots = NULL;
  int n = 0;
  cf_status st = CF_OK;
  if (!w->layers || !pl) {
    st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    goto fail;
  }
  w->arch.layers = layers;
  for (int i = 0; i < f->count; i++) {
    int l = nc_name_layer(naming, names[i]);
    if (l >= 0 && nc_name_is_smolgen(naming, names[i])) w->layers[l].mha.has_smolgen = true;
  }
  slots = nc_slots(w, &n);
  if (!slots) {
    st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < f->count; i++) {
    const nc_st_tensor *t = &f->tensors[i];
    const nc_ignored ig = nc_name_ignored(naming, names[i]);
    if (ig == NC_IGNORED_SCALE || ig == NC_IGNORED_NEXT) {
      ++*(ig == NC_IGNORED_SCALE ? &ignored_scales : &ignored_next);
      continue;
    }
    if (opponent_placeholder && strncmp(names[i], "policy/opponent/", 16) == 0) {
      ignored_opponent++;
      continue;
    }
    nc_slot *s = nc_slot_find(slots, n, naming, names[i]);
    if (!s) {
      st = cf_error_set(err, CF_ERR_FORMAT,
                        "unknown tensor name '%s' (not in the %s trainer's naming, see "
                        "docs/TRAINER_NAMES.md)",
                        t->name, naming == NC_NAMING_OURS ? "our" : "Chessformer");
      goto fail;
    }
    if (cf_tensor_present(s->t)) {
      st = cf_error_set(err, CF_ERR_FORMAT, "tensor '%s' given twice", t->name);
      goto fail;
    }
    st = place(t, s, naming, err);
    if (st != CF_OK) goto fail;
    pl[i] = (placed){t, names[i]};
  }
  note_ignored(w, ignored_scales, ignored_next, ignored_opponent);
  for (int i = 0; i < n; i++)
    if (slots[i].required && !cf_tensor_present(slots[i].t)) {
      st = cf_error_set(err, CF_ERR_FORMAT, "missing tensor '%s'", slots[i].name[naming]);
      goto fail;
    }
  const bool dense = cf_tensor_present(&w->ip_emb_preproc_w);
  if (cfg->embedding && cfg->embedding != (dense ? 2 : 1)) {
    st = cf_error_set(err, CF_ERR_ARG,
                      "config says embedding %s but the tensors %s a dense preprocessing (%s)",
                      cfg->embedding == 2 ? "dense" : "old", dense ? "have" : "lack",
                      naming == NC_NAMING_OURS ? "embedding_preproc.weight" : "embedding/preprocess/kernel");
    goto fail;
  }
  cf_net_arch *a = &w->arch;
  a->input_format = cfg->input_format;
  a->output_format = 2;
  a->network_format = 7;
  a->policy_format = 3;
  a->value_format = w->value[CF_VALUE_WINNER].ip2_val_w.n == 128 ? 1 : 2;
  a->moves_left_format = cf_tensor_present(&w->ip_mov_w) ? 1 : 0;
  a->input_embedding = dense ? 2 : 1;
  a->default_act = cfg->default_act ? cfg->default_act : CF_ACT_MISH;
  a->ffn_act = cfg->ffn_act;
  a->smolgen_act = cfg->smolgen_act ? cfg->smolgen_act : CF_ACT_SWISH;
  a->heads = cfg->heads;
  w->raw_network_format = 7;
  w->encodings_used = 1u << CF_ENC_FLOAT32;
  if (cfg->license[0] && !(w->license = strdup(cfg->license))) {
    st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    goto fail;
  }
  st = cf_weights_infer_arch(w, err);
  if (st != CF_OK) {
    cf_error_prefix(err, "the tensors do not form a network (%s naming)", nc_naming_name(naming));
    goto fail;
  }
  if (cfg->d && cfg->d != a->d) {
    st = cf_error_set(err, CF_ERR_ARG, "config says embedding_size %d but the tensors give d %d",
                      cfg->d, a->d);
    goto fail;
  }
  /* Sizes are right; now the shapes: a transposed matrix has the right size. */
  free(slots);
  slots = nc_slots(w, &n);
  if (!slots) {
    st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < f->count; i++) {
    if (!pl[i].st) continue;
    nc_slot *s = nc_slot_find(slots, n, naming, pl[i].name);
    if (!s || !s->matrix || s->rows <= 0) continue;
    uint64_t rows = given_rows(pl[i].st, naming), want = (uint64_t)s->rows;
    if (rows != want) {
      char shape[96];
      shape_text(pl[i].st, shape, sizeof shape);
      unsigned long long cols = (unsigned long long)(s->t->n / want);
      st = cf_error_set(err, CF_ERR_FORMAT, "tensor '%s': wrong shape %s, expected [%llu][%llu]",
                        pl[i].st->name, shape,
                        naming == NC_NAMING_CHESSFORMER ? cols : (unsigned long long)want,
                        naming == NC_NAMING_CHESSFORMER ? (unsigned long long)want : cols);
      goto fail;
    }
  }
  if (naming == NC_NAMING_CHESSFORMER && nc_needs_rule50_fold(a->input_format))
    for (int o = 0; o < a->d; o++)
      w->ip_emb_w.data[(size_t)o * (size_t)a->emb_inputs + NC_RULE50_COLUMN] /= NC_RULE50_SCALE;
  free(slots);
  free(pl);
  free(names);
  *out = w;
  return CF_OK;
fail:
  free(slots);
  free(pl);
  free(names);
  cf_weights_free(w);
  return st;
}

int nc_cmd_import(int argc, char **argv) {
  const char *out = NULL, *config = NULL;
  cf_encoding enc = CF_ENC_FLOAT32;
  bool no_gzip = false;
  cf_cli_flag flags[] = {
      {.name = "output", .letter = 'o', .kind = CF_CLI_STRING, .dest = &out, .arg = "NET",
       .attrs = CF_CLI_REQUIRED, .help = "the network file to write"},
      {.name = "config", .kind = CF_CLI_STRING, .dest = &config, .arg = "FILE",
       .help = "import configuration (overrides the file's own)"},
      {.name = "encoding", .kind = CF_CLI_CHOICE, .choices = nc_encoding_names, .arg = "E",
       .set = nc_set_encoding, .ctx = &enc,
       .help = "float32 (default), float16, bfloat16, linear16"},
      {.name = "no-gzip", .kind = CF_CLI_BOOL, .dest = &no_gzip, .help = "write the bare protobuf"},
  };
  cf_cli_spec spec = {.prog = "netconv import", .version = "netconv " CF_VERSION, .usage = usage,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
                      .positional_name = "CKPT", .max_positional = 1};
  int st = cf_cli_parse(&spec, argc, argv);
  if (st != CF_CLI_CONTINUE) return st;
  const char *in = spec.positional.count ? spec.positional.items[0] : NULL;
  cf_cli_free(&spec);
  if (!in) return cf_cli_usage_error(&spec, "no checkpoint given: netconv import CKPT -o NET");
  const bool gzip = !no_gzip;
  nc_st_file f;
  nc_config cfg;
  nc_config_init(&cfg);
  cf_error err = {0};
  cf_weights *w = NULL;
  int rc = 1;
  if (nc_st_read(in, &f, &err) != CF_OK) {
    nc_fail("import", "%s", err.msg);
    goto done;
  }
  if (f.metadata_config &&
      nc_config_parse(f.metadata_config, strlen(f.metadata_config), in, &cfg, &err) != CF_OK) {
    nc_fail("import", "%s (its __metadata__ cformer_config)", err.msg);
    goto done;
  }
  if (config && nc_config_load(config, &cfg, &err) != CF_OK) {
    nc_fail("import", "%s", err.msg);
    goto done;
  }
  if (nc_import_weights(&f, &cfg, &w, &err) != CF_OK) {
    nc_fail("import", "%s: %s", in, err.msg);
    goto done;
  }
  for (int i = 0; i < w->n_notes; i++) fprintf(stderr, "netconv import: warning: %s\n", w->notes[i]);
  if (nc_save_net(w, out, enc, gzip, &err) != CF_OK) {
    nc_fail("import", "%s", err.msg);
    goto done;
  }
  printf("%s: %d layers, d %d, %d heads, dff %d, %zu parameters, %s%s\n", out, w->arch.layers,
         w->arch.d, w->arch.heads, w->arch.dff, w->param_count, cf_encoding_name(enc),
         gzip ? ", gzip" : "");
  rc = 0;
done:
  nc_st_free(&f);
  cf_weights_free(w);
  return rc;
}
