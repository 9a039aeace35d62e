/* gen_default_net: writes the untrained placeholder network embedded in
 * `cformer` until a trained one replaces weights/default/cformer-default.pb.gz.
 *
 *     build/tests/engine/gen_default_net weights/default/cformer-default.pb.gz
 *
 * 4 layers, d 64, 4 heads, dff 128, RPE (q, k, v), RMSNorm, input format 4,
 * random weights (fixed seed, so the file is reproducible). Its license
 * field carries the word "untrained", which makes the engine warn. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/weights/weights_test_util.h"

#define LICENSE "cformer untrained placeholder: random weights (tests/engine/gen_default_net.c)"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_default_net OUT.pb.gz\n");
    return 2;
  }
  cf_test_shape s = {.layers = 4, .d = 64, .heads = 4, .dff = 128, .rpe = true, .rms = true,
                     .gating = true, .input_format = 4, .cv = 8, .cm = 4, .seed = 20261123};
  cf_error err = {0};
  cf_weights *w = cf_test_random_net(&s, &err);
  if (!w) {
    fprintf(stderr, "gen_default_net: %s\n", err.msg);
    return 1;
  }
  w->license = malloc(sizeof LICENSE);
  if (w->license) snprintf(w->license, sizeof LICENSE, "%s", LICENSE);
  cf_status st = cf_weights_save_file(w, argv[1], CF_ENC_FLOAT16, true, &err);
  if (st != CF_OK) fprintf(stderr, "gen_default_net: %s\n", err.msg);
  else printf("%s: %zu parameters\n", argv[1], w->param_count);
  cf_weights_free(w);
  return st == CF_OK ? 0 : 1;
}
