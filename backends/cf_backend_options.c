/* cf_backend_options.c: the keys every backend takes, see the header. */
#include "backends/cf_backend_options.h"

const char *cf_precision_name(cf_precision p) {
  switch (p) {
    case CF_PRECISION_F32: return "f32";
    case CF_PRECISION_BF16: return "bf16";
    case CF_PRECISION_INT8: return "int8";
    case CF_PRECISION_COUNT: break;
  }
  return "?";
}

cf_status cf_backend_read_precision(cf_kv *kv, cf_precision *precision, bool *automatic,
                                    cf_error *err) {
  /* By cf_precision, then auto. */
  static const char *const names[] = {"f32", "bf16", "int8", "auto"};
  _Static_assert(sizeof names / sizeof names[0] == CF_PRECISION_COUNT + 1, "a name each");
  int i = CF_PRECISION_F32;
  CF_TRY(cf_kv_get_choice(kv, "precision", names, CF_PRECISION_COUNT + (automatic ? 1 : 0), &i,
                          err));
  *precision = i == CF_PRECISION_COUNT ? CF_PRECISION_F32 : (cf_precision)i;
  if (automatic) *automatic = i == CF_PRECISION_COUNT;
  return CF_OK;
}

cf_status cf_backend_read_f32_roles(cf_kv *kv, unsigned *uses, cf_error *err) {
  /* By cf_weight_use (BODY has none: keeping it float32 is precision=f32). */
  static const char *const roles[CF_WEIGHT_USE_COUNT] = {
      [CF_WEIGHT_USE_INPUT_EMBEDDING] = "embedding",
      [CF_WEIGHT_USE_HEAD] = "heads",
  };
  *uses = 0;
  return cf_kv_get_set(kv, "f32_roles", roles, CF_WEIGHT_USE_COUNT, "none", uses, err);
}
