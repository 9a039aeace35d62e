/* cf_backend_options.c: "key=value,..." option strings, see the header. */
#include "backends/cf_backend_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static cf_status set_one(const char *item, size_t len,
                         const cf_backend_int_option *known, int n_known, cf_error *err) {
  const char *eq = memchr(item, '=', len);
  if (!eq)
    return cf_error_set(err, CF_ERR_ARG, "option '%.*s' is not key=value", (int)len, item);
  size_t klen = (size_t)(eq - item);
  for (int i = 0; i < n_known; i++) {
    if (strlen(known[i].key) != klen || strncmp(known[i].key, item, klen) != 0) continue;
    char text[32];
    size_t vlen = len - klen - 1;
    if (vlen == 0 || vlen >= sizeof text)
      return cf_error_set(err, CF_ERR_ARG, "option '%s' needs an integer value", known[i].key);
    memcpy(text, eq + 1, vlen);
    text[vlen] = '\0';
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end || errno || v < known[i].min || v > known[i].max)
      return cf_error_set(err, CF_ERR_ARG,
                          "option '%s=%s' is not an integer in [%d, %d]", known[i].key, text, known[i].min, known[i].max);
    *known[i].value = (int)v;
    return CF_OK;
  }
  char names[256] = "";
  for (int i = 0; i < n_known; i++) {
    if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, known[i].key, sizeof names - strlen(names) - 1);
  }
  return cf_error_set(err, CF_ERR_ARG, "unknown option '%.*s' (known: %s)", (int)len, item, n_known ? names : "none");
}

cf_status cf_backend_options_parse(const char *options,
                                   const cf_backend_int_option *known, int n_known,
                                   cf_error *err) {
  if (!options) return CF_OK;
  const char *p = options;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len > 0) CF_TRY(set_one(p, len, known, n_known, err));
    if (!comma) break;
    p = comma + 1;
  }
  return CF_OK;
}

cf_status cf_backend_options_append(char *rest, size_t rest_size, size_t *used, const char *item,
                                    size_t len, cf_error *err) {
  if (*used + (*used ? 1 : 0) + len + 1 > rest_size) /* comma, item, NUL */
    return cf_error_set(err, CF_ERR_ARG, "backend option string is too long");
  if (*used) rest[(*used)++] = ',';
  memcpy(rest + *used, item, len);
  *used += len;
  rest[*used] = '\0';
  return CF_OK;
}

cf_status cf_backend_options_take(const char *options, const cf_backend_int_option *known,
                                  int n_known, char *rest, size_t rest_size, cf_error *err) {
  if (rest_size) rest[0] = '\0';
  size_t used = 0;
  for (const char *p = options; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    bool mine = false;
    for (int i = 0; eq && i < n_known; i++)
      mine |= strlen(known[i].key) == (size_t)(eq - p) && strncmp(known[i].key, p, eq - p) == 0;
    if (mine)
      CF_TRY(set_one(p, len, known, n_known, err));
    else if (len > 0)
      CF_TRY(cf_backend_options_append(rest, rest_size, &used, p, len, err));
    p = comma ? comma + 1 : NULL;
  }
  return CF_OK;
}

const char *cf_precision_name(cf_precision p) {
  switch (p) {
    case CF_PRECISION_F32: return "f32";
    case CF_PRECISION_BF16: return "bf16";
    case CF_PRECISION_INT8: return "int8";
    case CF_PRECISION_COUNT: break;
  }
  return "?";
}

cf_status cf_backend_options_take_precision(const char *options, cf_precision *precision,
                                            bool *automatic, char *rest, size_t rest_size,
                                            cf_error *err) {
  static const char key[] = "precision=";
  const size_t klen = sizeof key - 1;
  *precision = CF_PRECISION_F32;
  if (automatic) *automatic = false;
  if (rest_size) rest[0] = '\0';
  size_t used = 0;
  for (const char *p = options; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len >= klen && strncmp(p, key, klen) == 0) {
      const char *val = p + klen;
      size_t vlen = len - klen;
      int found = -1;
      const bool is_auto = automatic && vlen == 4 && strncmp(val, "auto", 4) == 0;
      for (int i = 0; i < CF_PRECISION_COUNT; i++) {
        const char *name = cf_precision_name((cf_precision)i);
        if (strlen(name) == vlen && strncmp(name, val, vlen) == 0) found = i;
      }
      if (found < 0 && !is_auto)
        return cf_error_set(err, CF_ERR_ARG,
                            "option 'precision=%.*s': unknown precision (known: f32, bf16, int8%s)",
                            (int)vlen, val, automatic ? ", auto" : "");
      *precision = is_auto ? CF_PRECISION_F32 : (cf_precision)found;
      if (automatic) *automatic = is_auto;
    } else if (len > 0) {
      CF_TRY(cf_backend_options_append(rest, rest_size, &used, p, len, err));
    }
    p = comma ? comma + 1 : NULL;
  }
  return CF_OK;
}

/* The f32_roles=... names, by cf_weight_use (BODY has none: keeping it
 * float32 is precision=f32). */
static const char *const role_names[CF_WEIGHT_USE_COUNT] = {
    [CF_WEIGHT_USE_INPUT_EMBEDDING] = "embedding",
    [CF_WEIGHT_USE_HEAD] = "heads",
};

static cf_status parse_roles(const char *val, size_t vlen, unsigned *uses, cf_error *err) {
  *uses = 0;
  if (vlen == 4 && strncmp(val, "none", 4) == 0) return CF_OK;
  for (const char *p = val, *end = val + vlen; p <= end;) {
    const char *plus = memchr(p, '+', (size_t)(end - p));
    const size_t len = plus ? (size_t)(plus - p) : (size_t)(end - p);
    int found = -1;
    for (int u = 0; u < CF_WEIGHT_USE_COUNT; u++)
      if (role_names[u] && strlen(role_names[u]) == len && strncmp(role_names[u], p, len) == 0)
        found = u;
    if (found < 0)
      return cf_error_set(err, CF_ERR_ARG,
                          "option 'f32_roles=%.*s': unknown role '%.*s' (valid: embedding, "
                          "heads, joined with '+', or none)",
                          (int)vlen, val, (int)len, p);
    *uses |= 1u << found;
    if (!plus) break;
    p = plus + 1;
  }
  return CF_OK;
}

cf_status cf_backend_options_take_f32_roles(const char *options, unsigned *uses, char *rest,
                                            size_t rest_size, cf_error *err) {
  static const char key[] = "f32_roles=";
  const size_t klen = sizeof key - 1;
  *uses = 0;
  if (rest_size) rest[0] = '\0';
  size_t used = 0;
  for (const char *p = options; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len >= klen && strncmp(p, key, klen) == 0)
      CF_TRY(parse_roles(p + klen, len - klen, uses, err));
    else if (len > 0)
      CF_TRY(cf_backend_options_append(rest, rest_size, &used, p, len, err));
    p = comma ? comma + 1 : NULL;
  }
  return CF_OK;
}

void cf_backend_f32_roles_text(unsigned uses, char *buf, size_t size) {
  if (!size) return;
  buf[0] = '\0';
  for (int u = 0; u < CF_WEIGHT_USE_COUNT; u++) {
    if (!(uses >> u & 1) || !role_names[u]) continue;
    if (buf[0]) strncat(buf, "+", size - strlen(buf) - 1);
    strncat(buf, role_names[u], size - strlen(buf) - 1);
  }
  if (!buf[0]) snprintf(buf, size, "none");
}
