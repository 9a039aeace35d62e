/* nc_random.c: `netconv random`, a deterministic random net of a given
 * shape (tools/random_net/cf_weights_random.h), written as a .pb.gz. */
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cf_cli.h"
#include "tools/netconv/nc_common.h"
#include "tools/netcost/cf_cost.h"
#include "tools/random_net/cf_weights_random.h"

static const char usage[] =
    "usage: netconv random [--preset cf6m|cf240m] --layers L --embedding D --heads H --dff F\n"
    "                      [--rpe] [--rms] [--no-qkv-bias] [--smolgen] [--gating] [--pos-table]\n"
    "                      [--embedding-style old|dense] [--dense-width S] [--input FORMAT]\n"
    "                      [--policy-heads LIST] [--value-heads LIST] [--moves-left]\n"
    "                      [--encoding E] [--no-gzip] --seed S -o NET\n\n"
    "Writes a network of the given shape with deterministic random weights (same\n"
    "arguments, same file, on every machine): for benchmarks and tests. The flags\n"
    "act in any order: --preset first, then the others change it.\n\n";

static bool parse_heads(const char *list, bool *flags, int count,
                        const char *(*name)(int), const char **bad) {
  memset(flags, 0, (size_t)count * sizeof *flags);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int found = -1;
    for (int h = 0; h < count; h++)
      if (strcmp(tok, name(h)) == 0) found = h;
    if (found < 0) {
      *bad = strstr(list, tok);
      return false;
    }
    flags[found] = true;
  }
  return true;
}
static const char *pol_name(int h) { return cf_policy_head_name((cf_policy_head_id)h); }
static const char *val_name(int h) { return cf_value_head_name((cf_value_head_id)h); }

/* --policy-heads / --value-heads: ctx is a heads_arg. */
typedef struct heads_arg {
  bool flags[(int)CF_POLICY_HEAD_COUNT + (int)CF_VALUE_HEAD_COUNT]; /* room for either */
  int count;
  const char *(*name)(int);
} heads_arg;

static bool set_heads(void *ctx, const char *value, char *why, size_t why_size) {
  heads_arg *h = ctx;
  const char *bad = NULL;
  if (parse_heads(value, h->flags, h->count, h->name, &bad)) return true;
  size_t at = (size_t)snprintf(why, why_size, "unknown head in '%s' (expected", bad ? bad : value);
  for (int i = 0; i < h->count && at < why_size; i++)
    at += (size_t)snprintf(why + at, why_size - at, "%s%s", i ? ", " : " ", h->name(i));
  if (at < why_size) snprintf(why + at, why_size - at, ")");
  return false;
}

int nc_cmd_random(int argc, char **argv) {
  static const char *const presets[] = {"cf6m", "cf240m", NULL};
  static const char *const styles[] = {"old", "dense", NULL};
  int preset = -1, layers = 0, d = 0, heads = 0, dff = 0, dense_width = 0, input = 0, style = 0;
  bool rpe = false, rms = false, layernorm = false, no_qkv_bias = false, smolgen = false,
       gating = false, pos_table = false, moves_left = false, no_gzip = false;
  uint64_t seed = 0;
  const char *out = NULL;
  cf_encoding enc = CF_ENC_LINEAR16;
  heads_arg pol = {.count = CF_POLICY_HEAD_COUNT, .name = pol_name};
  heads_arg val = {.count = CF_VALUE_HEAD_COUNT, .name = val_name};
  cf_cli_flag flags[] = {
      {.name = "preset", .kind = CF_CLI_CHOICE, .dest = &preset, .choices = presets, .arg = "P",
       .help = "start from CF-6M (8x256, 8 heads, dff 256, old embedding,\n"
               "RPE, RMSNorm, vanilla+soft, winner+q+st, moves-left) or\n"
               "CF-240M (15x1024, 32 heads, dff 4096, dense embedding 512);\n"
               "the other options then change it"},
      {.name = "layers", .kind = CF_CLI_INT, .dest = &layers, .imin = 1, .imax = 1 << 20,
       .arg = "L", .help = "encoder layers"},
      {.name = "embedding", .kind = CF_CLI_INT, .dest = &d, .imin = 1, .imax = 1 << 20, .arg = "D",
       .help = "embedding width d"},
      {.name = "heads", .kind = CF_CLI_INT, .dest = &heads, .imin = 1, .imax = 1 << 20, .arg = "H",
       .help = "attention heads (must divide D)"},
      {.name = "dff", .kind = CF_CLI_INT, .dest = &dff, .imin = 1, .imax = 1 << 20, .arg = "F",
       .help = "encoder FFN width"},
      {.name = "rpe", .kind = CF_CLI_BOOL, .dest = &rpe,
       .help = "RPE q, k and v in every layer (--no-rpe: none)"},
      {.name = "rms", .kind = CF_CLI_BOOL, .dest = &rms,
       .help = "RMSNorm (no betas) instead of LayerNorm"},
      {.name = "layernorm", .kind = CF_CLI_BOOL, .dest = &layernorm,
       .help = "LayerNorm (the default without --preset)"},
      {.name = "no-qkv-bias", .kind = CF_CLI_BOOL, .dest = &no_qkv_bias,
       .help = "q/k/v without biases (--qkv-bias: with)"},
      {.name = "smolgen", .kind = CF_CLI_BOOL, .dest = &smolgen, .help = "smolgen in every layer"},
      {.name = "gating", .kind = CF_CLI_BOOL, .dest = &gating, .help = "input gating (old embedding)"},
      {.name = "pos-table", .kind = CF_CLI_BOOL, .dest = &pos_table,
       .help = "old embedding with Lc0's fixed 64-wide positional table\n"
               "(176 inputs a square: the layout Lc0 runs)"},
      {.name = "embedding-style", .kind = CF_CLI_CHOICE, .dest = &style, .choices = styles,
       .arg = "S", .help = "old (112 inputs, PE_MAP) or dense (PE_DENSE)"},
      {.name = "dense-width", .kind = CF_CLI_INT, .dest = &dense_width, .imin = 1,
       .imax = 1 << 20, .arg = "S", .help = "dense embedding channels per square (default 64)"},
      {.name = "input", .kind = CF_CLI_INT, .dest = &input, .imin = 1, .imax = 1 << 20,
       .arg = "FORMAT", .help = "input format number: 1 2 3 4 5 132 133 (default 1)"},
      {.name = "policy-heads", .kind = CF_CLI_STRING, .arg = "LIST", .set = set_heads, .ctx = &pol,
       .help = "comma list of vanilla,optimistic_st,soft,opponent"},
      {.name = "value-heads", .kind = CF_CLI_STRING, .arg = "LIST", .set = set_heads, .ctx = &val,
       .help = "comma list of winner,q,st (winner is always built)"},
      {.name = "moves-left", .kind = CF_CLI_BOOL, .dest = &moves_left,
       .help = "add a moves-left head (--no-moves-left: none)"},
      {.name = "encoding", .kind = CF_CLI_CHOICE, .choices = nc_encoding_names, .arg = "E",
       .set = nc_set_encoding, .ctx = &enc,
       .help = "linear16 (default), float16, bfloat16, float32"},
      {.name = "no-gzip", .kind = CF_CLI_BOOL, .dest = &no_gzip, .help = "write the bare protobuf"},
      {.name = "seed", .kind = CF_CLI_U64, .dest = &seed, .arg = "S", .attrs = CF_CLI_REQUIRED,
       .help = "random seed (required)"},
      {.name = "output", .letter = 'o', .kind = CF_CLI_STRING, .dest = &out, .arg = "NET",
       .attrs = CF_CLI_REQUIRED, .help = "output file"},
  };
  cf_cli_spec spec = {.prog = "netconv random", .version = "netconv " CF_VERSION, .usage = usage,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
#define GIVEN(name) (cf_cli_given(&spec, name) > 0)
  if (GIVEN("rms") && GIVEN("layernorm"))
    return cf_cli_usage_error(&spec, "--rms and --layernorm: one norm at a time");
  cf_random_spec s = {.rms_norm = false, .qkv_bias = true};
  if (preset >= 0) cf_random_spec_preset(presets[preset], &s);
  static const char *const shape[] = {"layers", "embedding", "heads", "dff"};
  for (int k = 0; k < 4 && preset < 0; k++)
    if (!GIVEN(shape[k]))
      return cf_cli_usage_error(&spec, "--%s is required (or --preset)", shape[k]);
  if (GIVEN("layers")) s.layers = layers;
  if (GIVEN("embedding")) s.d = d;
  if (GIVEN("heads")) s.heads = heads;
  if (GIVEN("dff")) s.dff = dff;
  if (GIVEN("dense-width")) s.dense_width = dense_width;
  if (GIVEN("input")) s.input_format = input;
  if (GIVEN("rpe")) s.rpe_q = s.rpe_k = s.rpe_v = rpe;
  if (GIVEN("rms")) s.rms_norm = rms;
  if (GIVEN("layernorm")) s.rms_norm = !layernorm;
  if (GIVEN("no-qkv-bias")) s.qkv_bias = !no_qkv_bias;
  if (GIVEN("smolgen")) s.smolgen = smolgen;
  if (GIVEN("gating")) s.gating = gating;
  if (GIVEN("pos-table")) s.pos_table = pos_table;
  if (GIVEN("moves-left")) s.moves_left = moves_left;
  if (GIVEN("embedding-style")) s.embedding_style = style ? CF_EMBEDDING_DENSE : CF_EMBEDDING_OLD;
  if (GIVEN("policy-heads")) memcpy(s.policy_heads, pol.flags, sizeof s.policy_heads);
  if (GIVEN("value-heads")) memcpy(s.value_heads, val.flags, sizeof s.value_heads);
#undef GIVEN
  if (s.pos_table && s.embedding_style == CF_EMBEDDING_DENSE)
    return cf_cli_usage_error(&spec, "--pos-table: only with the old embedding (not dense)");
  s.seed = seed;
  s.encoding = enc;
  const bool gzip = !no_gzip;
  cf_error err = {0};
  cf_net_arch arch;
  if (cf_random_spec_arch(&s, &arch, NULL, &err) != CF_OK) /* a shape the flags cannot make */
    return cf_cli_usage_error(&spec, "%s", err.msg);
  cf_weights *w = NULL;
  if (cf_weights_random(&s, &w, &err) != CF_OK) return nc_fail("random", "%s", err.msg);
  cf_status st = nc_save_net(w, out, enc, gzip, &err);
  if (st != CF_OK) {
    cf_weights_free(w);
    return nc_fail("random", "%s", err.msg);
  }
  cf_cost cost;
  cf_cost_from_weights(w, &cost, NULL);
  char macs[32];
  printf("%s: %d layers, d %d, %d heads, dff %d, %zu parameters, %s%s, %s paper MACs\n", out,
         w->arch.layers, w->arch.d, w->arch.heads, w->arch.dff, w->param_count,
         cf_encoding_name(enc), gzip ? ", gzip" : "", nc_si(macs, sizeof macs, (double)cost.paper_macs));
  cf_weights_free(w);
  return 0;
}
