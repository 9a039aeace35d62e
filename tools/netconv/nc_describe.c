/* nc_describe.c: `netconv describe NET [--json] [--weights-max-mb MB]`: what
 * a network file holds. */
#include <cJSON.h>
#include <string.h>

#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/netconv/nc_common.h"
#include "tools/netcost/cf_cost.h"

static const char usage[] =
    "usage: netconv describe NET [--json] [--weights-max-mb MB]\n\n"
    "Prints the architecture (layers, d, heads, dff, RPE q/k/v, norm, embedding style,\n"
    "smolgen, heads present), the parameter count, the tensor encodings, the input\n"
    "format, version and license, and the cost of one evaluation: the Chessformer\n"
    "paper's MAC count and the full FLOP count (docs/NETCONV.md), and a warning for\n"
    "each kind of field the file holds that cformer reads but does not run. NET may\n"
    "be <built in>, the network embedded in cformer.\n\n";

typedef struct enc_count {
  size_t tensors[CF_ENC_FLOAT32 + 1];
} enc_count;

static bool count_one(void *user, const char *path, cf_tensor *t) {
  (void)path;
  enc_count *c = user;
  if (cf_tensor_present(t) && (unsigned)t->encoding <= CF_ENC_FLOAT32) c->tensors[t->encoding]++;
  return true;
}

static const char *embedding_style(const cf_net_arch *a) {
  if (a->input_embedding == 2) return "dense (PE_DENSE)";
  if (a->emb_inputs == 176) return "map with positional table (PE_MAP, 176 inputs)";
  return "old (112 inputs)";
}

static cJSON *heads_json(const cf_net_arch *a, bool policy) {
  cJSON *arr = cJSON_CreateArray();
  int n = policy ? CF_POLICY_HEAD_COUNT : CF_VALUE_HEAD_COUNT;
  for (int h = 0; h < n; h++) {
    bool has = policy ? a->has_policy[h] : a->has_value[h];
    if (has)
      cJSON_AddItemToArray(arr, cJSON_CreateString(policy ? cf_policy_head_name((cf_policy_head_id)h)
                                                          : cf_value_head_name((cf_value_head_id)h)));
  }
  return arr;
}

static void print_json(const char *path, const cf_weights *w, const enc_count *ec, const cf_cost *c) {
  const cf_net_arch *a = &w->arch;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "file", path);
  cJSON_AddNumberToObject(o, "layers", a->layers);
  cJSON_AddNumberToObject(o, "embedding_size", a->d);
  cJSON_AddNumberToObject(o, "qkv_size", a->dm);
  cJSON_AddNumberToObject(o, "heads", a->heads);
  cJSON_AddNumberToObject(o, "dff", a->dff);
  cJSON_AddBoolToObject(o, "rpe_q", a->rpe_q);
  cJSON_AddBoolToObject(o, "rpe_k", a->rpe_k);
  cJSON_AddBoolToObject(o, "rpe_v", a->rpe_v);
  cJSON_AddStringToObject(o, "norm", a->rms_norm ? "rmsnorm" : "layernorm");
  cJSON_AddNumberToObject(o, "norm_eps", a->norm_eps);
  cJSON_AddBoolToObject(o, "qkv_bias", a->qkv_bias);
  cJSON_AddStringToObject(o, "embedding", a->input_embedding == 2 ? "dense" : "old");
  cJSON_AddNumberToObject(o, "embedding_inputs", a->emb_inputs);
  cJSON_AddNumberToObject(o, "dense_width", a->emb_dense_s);
  cJSON_AddBoolToObject(o, "gating", a->gating);
  cJSON_AddBoolToObject(o, "smolgen", a->smolgen);
  cJSON_AddItemToObject(o, "policy_heads", heads_json(a, true));
  cJSON_AddItemToObject(o, "value_heads", heads_json(a, false));
  cJSON_AddBoolToObject(o, "moves_left", a->has_moves_left);
  cJSON_AddStringToObject(o, "default_activation", cf_activation_name(a->default_act));
  cJSON_AddStringToObject(o, "ffn_activation", cf_activation_name(a->ffn_act));
  cJSON_AddStringToObject(o, "smolgen_activation", cf_activation_name(a->smolgen_act));
  cJSON_AddNumberToObject(o, "input_format", a->input_format);
  cJSON_AddStringToObject(o, "input_format_name", nc_input_format_name(a->input_format));
  cJSON_AddNumberToObject(o, "network_format", w->raw_network_format);
  cJSON_AddNumberToObject(o, "parameters", (double)w->param_count);
  cJSON *encs = cJSON_AddObjectToObject(o, "encodings");
  for (int e = CF_ENC_LINEAR16; e <= CF_ENC_FLOAT32; e++)
    if (ec->tensors[e]) cJSON_AddNumberToObject(encs, cf_encoding_name((cf_encoding)e), (double)ec->tensors[e]);
  char ver[48];
  snprintf(ver, sizeof ver, "%u.%u.%u", w->min_version.major, w->min_version.minor,
           w->min_version.patch);
  cJSON_AddStringToObject(o, "min_version", ver);
  if (w->license) cJSON_AddStringToObject(o, "license", w->license);
  else cJSON_AddNullToObject(o, "license");
  cJSON_AddNumberToObject(o, "paper_macs", (double)c->paper_macs);
  cJSON_AddNumberToObject(o, "full_flops", (double)c->full_flops);
  cJSON_AddNumberToObject(o, "all_heads_flops", (double)c->all_heads_flops);
  cJSON *warn = cJSON_AddArrayToObject(o, "warnings");
  for (int i = 0; i < w->n_notes; i++) cJSON_AddItemToArray(warn, cJSON_CreateString(w->notes[i]));
  char *s = cJSON_Print(o);
  if (s) puts(s);
  cJSON_free(s);
  cJSON_Delete(o);
}

static void print_text(const char *path, const cf_weights *w, const enc_count *ec, const cf_cost *c) {
  const cf_net_arch *a = &w->arch;
  printf("%s\n", path);
  printf("  body        %d layers, d %d, %d heads (depth %d), q/k/v width %d, dff %d\n", a->layers,
         a->d, a->heads, a->dh, a->dm, a->dff);
  printf("  attention   RPE q %s, k %s, v %s; q/k/v biases %s; smolgen %s\n", a->rpe_q ? "yes" : "no",
         a->rpe_k ? "yes" : "no", a->rpe_v ? "yes" : "no", a->qkv_bias ? "yes" : "no",
         a->smolgen ? "yes" : "no");
  if (a->smolgen)
    printf("  smolgen     compress %d, hidden %d, %d per head, %s\n", a->smolgen_hc, a->smolgen_hs,
           a->smolgen_gs, cf_activation_name(a->smolgen_act));
  printf("  norm        %s (eps %g)\n", a->rms_norm ? "RMSNorm" : "LayerNorm", a->norm_eps);
  printf("  embedding   %s", embedding_style(a));
  if (a->input_embedding == 2)
    printf(", %d dense channels per square, embedding FFN %d", a->emb_dense_s, a->emb_ffn_dff);
  printf("%s\n", a->gating ? ", input gating" : "");
  printf("  activations default %s, ffn %s\n", cf_activation_name(a->default_act),
         cf_activation_name(a->ffn_act));
  printf("  policy      ");
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (a->has_policy[h]) printf("%s (dp %d) ", cf_policy_head_name((cf_policy_head_id)h), a->policy_dp[h]);
  printf("\n  value       ");
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    if (a->has_value[h])
      printf("%s (%s%s) ", cf_value_head_name((cf_value_head_id)h), a->value_outputs[h] == 3 ? "WDL" : "tanh",
             a->value_err[h] ? ", err" : "");
  printf("\n  moves-left  %s\n", a->has_moves_left ? "yes" : "no");
  printf("  input       %d (%s)\n", a->input_format, nc_input_format_name(a->input_format));
  printf("  file        network format %d, min version %u.%u.%u\n", w->raw_network_format,
         w->min_version.major, w->min_version.minor, w->min_version.patch);
  printf("  parameters  %zu\n", w->param_count);
  printf("  encodings  ");
  for (int e = CF_ENC_LINEAR16; e <= CF_ENC_FLOAT32; e++)
    if (ec->tensors[e]) printf(" %s (%zu tensors)", cf_encoding_name((cf_encoding)e), ec->tensors[e]);
  printf("\n  license     %s\n", w->license ? w->license : "(none)");
  char p[32], f[32], h[32];
  printf("  cost        %s paper MACs (%llu), %sFLOPs full (%sFLOPs with every head)\n",
         nc_si(p, sizeof p, (double)c->paper_macs), (unsigned long long)c->paper_macs,
         nc_si(f, sizeof f, (double)c->full_flops), nc_si(h, sizeof h, (double)c->all_heads_flops));
  for (int i = 0; i < w->n_notes; i++) printf("  warning     %s\n", w->notes[i]);
}

int nc_cmd_describe(int argc, char **argv) {
  bool json = false;
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  cf_cli_flag flags[] = {
      {.name = "json", .kind = CF_CLI_BOOL, .dest = &json, .help = "one JSON object instead of text"},
      CF_CLI_WEIGHTS_MAX_MB_FLAG(&load),
  };
  cf_cli_spec spec = {.prog = "netconv describe", .version = "netconv " CF_VERSION, .usage = usage,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
                      .positional_name = "NET", .max_positional = 1};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  const char *path = spec.positional.count ? spec.positional.items[0] : NULL;
  cf_cli_free(&spec);
  if (!path) return cf_cli_usage_error(&spec, "no network given: netconv describe NET");
  cf_weights *w = NULL;
  cf_error err = {0};
  if (nc_load_net(path, &load, &w, &err) != CF_OK) return nc_fail("describe", "%s", err.msg);
  enc_count ec = {0};
  cf_weights_visit(w, count_one, &ec);
  cf_cost cost;
  if (cf_cost_from_weights(w, &cost, &err) != CF_OK) {
    cf_weights_free(w);
    return nc_fail("describe", "%s", err.msg);
  }
  if (json) print_json(path, w, &ec, &cost);
  else print_text(path, w, &ec, &cost);
  cf_weights_free(w);
  return 0;
}
