/* nc_random.c: `netconv random`, a deterministic random net of a given
 * shape (weights/cf_weights_random.h), written as a .pb.gz. */
#include <stdlib.h>
#include <string.h>

#include "tools/netconv/nc_common.h"
#include "weights/cf_cost.h"
#include "weights/cf_weights_random.h"

static const char usage[] =
    "usage: netconv random [--preset cf6m|cf240m] --layers L --embedding D --heads H --dff F\n"
    "                      [--rpe] [--rms] [--no-qkv-bias] [--smolgen] [--gating]\n"
    "                      [--embedding-style old|dense] [--dense-width S] [--input FORMAT]\n"
    "                      [--policy-heads LIST] [--value-heads LIST] [--moves-left]\n"
    "                      [--encoding E] [--no-gzip] --seed S -o NET\n\n"
    "Writes a network of the given shape with deterministic random weights (same\n"
    "arguments, same file, on every machine): for benchmarks and tests.\n\n"
    "  --preset P            start from CF-6M (8x256, 8 heads, dff 256, old embedding,\n"
    "                        RPE, RMSNorm, vanilla+soft, winner+q+st, moves-left) or\n"
    "                        CF-240M (15x1024, 32 heads, dff 4096, dense embedding 512);\n"
    "                        the other options then change it\n"
    "  --layers L            encoder layers\n"
    "  --embedding D         embedding width d\n"
    "  --heads H             attention heads (must divide D)\n"
    "  --dff F               encoder FFN width\n"
    "  --rpe                 RPE q, k and v in every layer (--no-rpe: none)\n"
    "  --rms                 RMSNorm (no betas) instead of LayerNorm (--layernorm: back)\n"
    "  --no-qkv-bias         q/k/v without biases (--qkv-bias: with)\n"
    "  --smolgen             smolgen in every layer\n"
    "  --gating              input gating (old embedding)\n"
    "  --embedding-style S   old (112 inputs, PE_MAP) or dense (PE_DENSE)\n"
    "  --dense-width S       dense embedding channels per square (default 64)\n"
    "  --input FORMAT        input format number: 1 2 3 4 5 132 133 (default 1)\n"
    "  --policy-heads LIST   comma list of vanilla,optimistic_st,soft,opponent\n"
    "  --value-heads LIST    comma list of winner,q,st (winner is always built)\n"
    "  --moves-left          add a moves-left head (--no-moves-left: none)\n"
    "  --encoding E          linear16 (default), float16, bfloat16, float32\n"
    "  --no-gzip             write the bare protobuf\n"
    "  --seed S              random seed (required)\n"
    "  -o NET                output file\n";

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

int nc_cmd_random(int argc, char **argv) {
  cf_random_spec s = {.rms_norm = false, .qkv_bias = true};
  bool have[5] = {0}; /* layers, embedding, heads, dff, seed */
  const char *out = NULL;
  cf_encoding enc = CF_ENC_LINEAR16;
  bool gzip = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n;
#define NEED_VALUE() \
  if (!v) return nc_fail("random", "%s needs a value", a); \
  i++
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--preset") == 0) {
      NEED_VALUE();
      if (!cf_random_spec_preset(v, &s)) return nc_fail("random", "unknown preset '%s' (cf6m, cf240m)", v);
      have[0] = have[1] = have[2] = have[3] = true;
    } else if (strcmp(a, "--layers") == 0 || strcmp(a, "--embedding") == 0 ||
               strcmp(a, "--heads") == 0 || strcmp(a, "--dff") == 0 ||
               strcmp(a, "--dense-width") == 0 || strcmp(a, "--input") == 0) {
      NEED_VALUE();
      if (!nc_parse_int(v, 1, 1 << 20, &n)) return nc_fail("random", "%s: bad number '%s'", a, v);
      if (strcmp(a, "--layers") == 0) s.layers = (int)n, have[0] = true;
      else if (strcmp(a, "--embedding") == 0) s.d = (int)n, have[1] = true;
      else if (strcmp(a, "--heads") == 0) s.heads = (int)n, have[2] = true;
      else if (strcmp(a, "--dff") == 0) s.dff = (int)n, have[3] = true;
      else if (strcmp(a, "--dense-width") == 0) s.dense_width = (int)n;
      else s.input_format = (int)n;
    } else if (strcmp(a, "--seed") == 0) {
      NEED_VALUE();
      char *end;
      s.seed = strtoull(v, &end, 10);
      if (!*v || *end) return nc_fail("random", "--seed: bad number '%s'", v);
      have[4] = true;
    } else if (strcmp(a, "--rpe") == 0) {
      s.rpe_q = s.rpe_k = s.rpe_v = true;
    } else if (strcmp(a, "--no-rpe") == 0) {
      s.rpe_q = s.rpe_k = s.rpe_v = false;
    } else if (strcmp(a, "--rms") == 0) {
      s.rms_norm = true;
    } else if (strcmp(a, "--layernorm") == 0) {
      s.rms_norm = false;
    } else if (strcmp(a, "--no-qkv-bias") == 0) {
      s.qkv_bias = false;
    } else if (strcmp(a, "--qkv-bias") == 0) {
      s.qkv_bias = true;
    } else if (strcmp(a, "--smolgen") == 0) {
      s.smolgen = true;
    } else if (strcmp(a, "--gating") == 0) {
      s.gating = true;
    } else if (strcmp(a, "--moves-left") == 0) {
      s.moves_left = true;
    } else if (strcmp(a, "--no-moves-left") == 0) {
      s.moves_left = false;
    } else if (strcmp(a, "--no-gzip") == 0) {
      gzip = false;
    } else if (strcmp(a, "--embedding-style") == 0) {
      NEED_VALUE();
      if (strcmp(v, "old") == 0) s.embedding_style = CF_EMBEDDING_OLD;
      else if (strcmp(v, "dense") == 0) s.embedding_style = CF_EMBEDDING_DENSE;
      else return nc_fail("random", "--embedding-style: '%s' is not old or dense", v);
    } else if (strcmp(a, "--policy-heads") == 0 || strcmp(a, "--value-heads") == 0) {
      NEED_VALUE();
      const char *bad = NULL;
      bool ok = a[2] == 'p' ? parse_heads(v, s.policy_heads, CF_POLICY_HEAD_COUNT, pol_name, &bad)
                            : parse_heads(v, s.value_heads, CF_VALUE_HEAD_COUNT, val_name, &bad);
      if (!ok) return nc_fail("random", "%s: unknown head in '%s'", a, bad ? bad : v);
    } else if (strcmp(a, "--encoding") == 0) {
      NEED_VALUE();
      if (!nc_parse_encoding(v, &enc))
        return nc_fail("random", "--encoding: '%s' is not linear16, float16, bfloat16 or float32", v);
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      NEED_VALUE();
      out = v;
    } else {
      return nc_fail("random", "unknown option '%s' (netconv random --help)", a);
    }
#undef NEED_VALUE
  }
  static const char *names[5] = {"--layers", "--embedding", "--heads", "--dff", "--seed"};
  for (int k = 0; k < 5; k++)
    if (!have[k]) return nc_fail("random", "%s is required (netconv random --help)", names[k]);
  if (!out) return nc_fail("random", "-o NET is required");
  s.encoding = enc;
  cf_weights *w = NULL;
  cf_error err = {0};
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
