/* cf_net_options.c: network keys out of the backend option string (see the
 * header). */
#include "net/cf_net_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend_options.h"
#include "net/cf_net_lanes.h"

/* Mask of head names "a+b+c" (names[i] for bit i). */
static cf_status parse_heads(const char *key, const char *val, size_t len,
                             const char *(*name)(int), int count, unsigned *mask, cf_error *err) {
  *mask = 0;
  size_t i = 0;
  while (i <= len) {
    size_t j = i;
    while (j < len && val[j] != '+') j++;
    int found = -1;
    for (int h = 0; h < count; h++)
      if (strlen(name(h)) == j - i && strncmp(name(h), val + i, j - i) == 0) found = h;
    if (found < 0) {
      char known[128] = "";
      for (int h = 0; h < count; h++) {
        if (h) strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, name(h), sizeof known - strlen(known) - 1);
      }
      return cf_error_set(err, CF_ERR_ARG, "option %s: unknown head '%.*s' (known: %s)", key,
                          (int)(j - i), val + i, known);
    }
    *mask |= 1u << found;
    i = j + 1;
  }
  return CF_OK;
}

static const char *policy_name(int h) { return cf_policy_head_name((cf_policy_head_id)h); }
static const char *value_name(int h) { return cf_value_head_name((cf_value_head_id)h); }

/* An integer in [1, max]. */
static cf_status parse_int(const char *key, const char *val, size_t vlen, int max, int *out,
                           cf_error *err) {
  char text[32];
  if (vlen == 0 || vlen >= sizeof text)
    return cf_error_set(err, CF_ERR_ARG, "option %s needs an integer value", key);
  memcpy(text, val, vlen);
  text[vlen] = '\0';
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*end || errno || v < 1 || v > max)
    return cf_error_set(err, CF_ERR_ARG, "option %s=%s is not an integer in [1, %d]", key, text,
                        max);
  *out = (int)v;
  return CF_OK;
}

static bool key_is(const char *item, size_t klen, const char *key) {
  return strlen(key) == klen && strncmp(item, key, klen) == 0;
}

/* Applies item (len bytes, "key=value") to o if it is a network key;
 * *taken says whether it was. */
static cf_status apply(const char *item, size_t len, cf_net_options *o, bool *taken,
                       cf_error *err) {
  const char *eq = memchr(item, '=', len);
  *taken = false;
  if (!eq) return CF_OK; /* the backend reports malformed items */
  size_t klen = (size_t)(eq - item), vlen = len - klen - 1;
  const char *val = eq + 1;
  if (key_is(item, klen, "batch_size")) {
    CF_TRY(parse_int("batch_size", val, vlen, CF_NET_MAX_BATCH_OPTION, &o->max_batch, err));
  } else if (key_is(item, klen, "lanes")) {
    CF_TRY(parse_int("lanes", val, vlen, CF_NET_MAX_LANES, &o->lanes, err));
  } else if (key_is(item, klen, "policy_head")) {
    CF_TRY(parse_heads("policy_head", val, vlen, policy_name, CF_POLICY_HEAD_COUNT,
                       &o->policy_heads, err));
  } else if (key_is(item, klen, "value_head")) {
    unsigned mask;
    CF_TRY(parse_heads("value_head", val, vlen, value_name, CF_VALUE_HEAD_COUNT, &mask, err));
    o->value_heads = mask & ~(1u << CF_VALUE_WINNER); /* the winner head is always computed */
  } else {
    return CF_OK;
  }
  *taken = true;
  return CF_OK;
}

cf_status cf_net_options_resolve(const cf_net_options *in, cf_net_options *out, char *rest,
                                 size_t rest_size, cf_error *err) {
  *out = *in;
  out->backend_options = NULL;
  if (rest_size) rest[0] = '\0';
  const char *p = in->backend_options;
  size_t used = 0;
  while (p && *p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    bool taken = false;
    if (len) CF_TRY(apply(p, len, out, &taken, err));
    if (len && !taken) CF_TRY(cf_backend_options_append(rest, rest_size, &used, p, len, err));
    p = comma ? comma + 1 : NULL;
  }
  if (used) out->backend_options = rest;
  return CF_OK;
}

/* Whether the comma-separated opts has an item "key=...". */
static bool has_key(const char *opts, const char *key) {
  const size_t klen = strlen(key);
  for (const char *p = opts; p && *p;) {
    if (strncmp(p, key, klen) == 0 && p[klen] == '=') return true;
    p = strchr(p, ',');
    if (p) p++;
  }
  return false;
}

const char *cf_net_options_for_threads(const char *opts, int threads, char *out, size_t size) {
  if (!opts) opts = "";
  const bool explicit = has_key(opts, "lanes") || has_key(opts, "threads");
  const int n = threads > 1 && !explicit
                    ? snprintf(out, size, "lanes=%d%s%s", threads, opts[0] ? "," : "", opts)
                    : snprintf(out, size, "%s", opts);
  return n >= 0 && (size_t)n < size ? out : NULL;
}
