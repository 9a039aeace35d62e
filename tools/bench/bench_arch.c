/* bench_arch.c: see bench_arch.h. The presets come from weights/ (one
 * definition of CF-6M and CF-240M in the project); a custom shape starts
 * from CF-6M and changes only the four sizes. */
#include "tools/bench/bench_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_MAX_VALUE 65536

/* Reads a positive integer at *p, advancing it. */
static bool read_size(const char **p, int *out) {
  char *end;
  if (**p < '0' || **p > '9') return false;
  long v = strtol(*p, &end, 10);
  if (v < 1 || v > SIZE_MAX_VALUE) return false;
  *out = (int)v;
  *p = end;
  return true;
}

cf_status bench_arch_parse(const char *text, unsigned long long seed, cf_random_spec *out,
                           cf_error *err) {
  const char *preset = strcmp(text, "cf-6m") == 0 || strcmp(text, "cf6m") == 0 ? "cf6m"
                       : strcmp(text, "cf-240m") == 0 || strcmp(text, "cf240m") == 0
                           ? "cf240m"
                           : NULL;
  if (preset) {
    cf_random_spec_preset(preset, out);
    out->seed = seed;
    return CF_OK;
  }
  int size[4] = {0}, n = 0;
  const char *p = text;
  while (n < 4 && read_size(&p, &size[n])) {
    n++;
    if (*p != 'x') break;
    p++;
  }
  if (*p || n < 2)
    return cf_error_set(err, CF_ERR_ARG,
                        "bad --arch '%s': expected cf-6m, cf-240m or LxD[xH[xF]] (layers x "
                        "width [x heads [x FFN width]], e.g. 4x128x4x512)",
                        text);
  *out = cf_random_spec_cf6m();
  out->layers = size[0];
  out->d = size[1];
  out->heads = n > 2 ? size[2] : (size[1] / 32 > 0 ? size[1] / 32 : 1);
  out->dff = n > 3 ? size[3] : size[1];
  out->seed = seed;
  if (out->d % out->heads)
    return cf_error_set(err, CF_ERR_ARG, "bad --arch '%s': width %d is not a multiple of %d heads",
                        text, out->d, out->heads);
  if (out->layers > CF_WEIGHTS_MAX_LAYERS)
    return cf_error_set(err, CF_ERR_ARG, "bad --arch '%s': at most %d layers", text,
                        CF_WEIGHTS_MAX_LAYERS);
  return CF_OK;
}

void bench_arch_summary(const cf_net_arch *a, char *out, size_t n) {
  char emb[48];
  if (a->input_embedding == 2)
    snprintf(emb, sizeof emb, "dense embedding %d", a->emb_dense_s);
  else
    snprintf(emb, sizeof emb, "%s embedding %d%s", a->input_embedding == 1 ? "old" : "plain",
             a->emb_inputs, a->gating ? " (gated)" : "");
  char rpe[16] = "";
  if (a->rpe_q || a->rpe_k || a->rpe_v)
    snprintf(rpe, sizeof rpe, ", RPE %s%s%s", a->rpe_q ? "q" : "", a->rpe_k ? "k" : "",
             a->rpe_v ? "v" : "");
  snprintf(out, n, "%d layers, d %d, %d heads, dff %d, %s, %s%s%s", a->layers, a->d, a->heads,
           a->dff, emb, a->rms_norm ? "RMSNorm" : "LayerNorm", rpe, a->smolgen ? ", smolgen" : "");
}
