/* nc_config.c: import configuration (nc_config.h). Both syntaxes are first
 * flattened to key/value strings so one function interprets them. */
#include "tools/netconv/nc_config.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "tools/netconv/nc_common.h"

void nc_config_init(nc_config *c) {
  memset(c, 0, sizeof *c);
  c->naming = -1;
}

bool nc_parse_activation(const char *text, cf_activation *out) {
  for (int a = CF_ACT_MISH; a <= CF_ACT_SOFTMAX; a++)
    if (strcmp(text, cf_activation_name((cf_activation)a)) == 0) {
      *out = (cf_activation)a;
      return true;
    }
  return false;
}

static cf_status bad(cf_error *err, const char *name, const char *key, const char *value,
                     const char *want) {
  return cf_error_set(err, CF_ERR_ARG, "%s: %s: bad value '%s' (%s)", name, key, value, want);
}

static cf_status set_key(nc_config *c, const char *name, const char *key, const char *value,
                         cf_error *err) {
  long v;
  if (strcmp(key, "input_format") == 0) {
    if (!nc_parse_int(value, 1, 133, &v) || strcmp(nc_input_format_name((int)v), "unknown") == 0)
      return bad(err, name, key, value, "1, 2, 3, 4, 5, 132 or 133");
    c->input_format = (int)v;
  } else if (strcmp(key, "heads") == 0) {
    if (!nc_parse_int(value, 1, 1 << 16, &v)) return bad(err, name, key, value, "a positive count");
    c->heads = (int)v;
  } else if (strcmp(key, "layers") == 0) {
    if (!nc_parse_int(value, 1, CF_WEIGHTS_MAX_LAYERS, &v))
      return bad(err, name, key, value, "a positive count");
    c->layers = (int)v;
  } else if (strcmp(key, "embedding_size") == 0) {
    if (!nc_parse_int(value, 1, 1 << 20, &v)) return bad(err, name, key, value, "a positive width");
    c->d = (int)v;
  } else if (strcmp(key, "default_activation") == 0) {
    if (!nc_parse_activation(value, &c->default_act) ||
        (c->default_act != CF_ACT_MISH && c->default_act != CF_ACT_RELU))
      return bad(err, name, key, value, "mish or relu");
  } else if (strcmp(key, "ffn_activation") == 0) {
    if (!nc_parse_activation(value, &c->ffn_act)) return bad(err, name, key, value, "an activation");
  } else if (strcmp(key, "smolgen_activation") == 0) {
    if (!nc_parse_activation(value, &c->smolgen_act))
      return bad(err, name, key, value, "an activation");
  } else if (strcmp(key, "embedding") == 0) {
    if (strcmp(value, "old") == 0) c->embedding = 1;
    else if (strcmp(value, "dense") == 0) c->embedding = 2;
    else return bad(err, name, key, value, "old or dense");
  } else if (strcmp(key, "naming") == 0) {
    if (strcmp(value, "ours") == 0) c->naming = NC_NAMING_OURS;
    else if (strcmp(value, "chessformer") == 0) c->naming = NC_NAMING_CHESSFORMER;
    else return bad(err, name, key, value, "ours or chessformer");
  } else if (strcmp(key, "license") == 0) {
    snprintf(c->license, sizeof c->license, "%s", value);
  } else {
    return cf_error_set(err, CF_ERR_ARG,
                        "%s: unknown key '%s' (known: input_format, heads, default_activation, "
                        "ffn_activation, smolgen_activation, layers, embedding_size, embedding, "
                        "naming, license)",
                        name, key);
  }
  return CF_OK;
}

static cf_status parse_json(const char *text, size_t size, const char *name, nc_config *c,
                            cf_error *err) {
  cJSON *root = cJSON_ParseWithLength(text, size);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return cf_error_set(err, CF_ERR_FORMAT, "%s: not a JSON object", name);
  }
  cf_status st = CF_OK;
  const cJSON *item;
  cJSON_ArrayForEach(item, root) {
    char num[64];
    const char *value;
    if (cJSON_IsString(item)) {
      value = item->valuestring;
    } else if (cJSON_IsNumber(item)) {
      snprintf(num, sizeof num, "%.17g", item->valuedouble);
      value = num;
    } else {
      st = cf_error_set(err, CF_ERR_FORMAT, "%s: %s: expected a string or a number", name,
                        item->string);
      break;
    }
    st = set_key(c, name, item->string, value, err);
    if (st != CF_OK) break;
  }
  cJSON_Delete(root);
  return st;
}

/* A flat YAML mapping of scalars: events STREAM, DOCUMENT, MAPPING, then
 * (scalar key, scalar value) pairs. */
static cf_status parse_yaml(const char *text, size_t size, const char *name, nc_config *c,
                            cf_error *err) {
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p)) return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", name);
  yaml_parser_set_input_string(&p, (const unsigned char *)text, size);
  cf_status st = CF_OK;
  char key[128] = "";
  bool have_key = false, in_map = false, done = false;
  while (st == CF_OK && !done) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p, &ev)) {
      st = cf_error_set(err, CF_ERR_FORMAT, "%s: line %zu: %s", name, p.problem_mark.line + 1,
                        p.problem ? p.problem : "YAML syntax error");
      break;
    }
    switch (ev.type) {
      case YAML_MAPPING_START_EVENT:
        if (in_map)
          st = cf_error_set(err, CF_ERR_FORMAT, "%s: line %zu: nested mappings are not supported",
                            name, ev.start_mark.line + 1);
        in_map = true;
        break;
      case YAML_SCALAR_EVENT: {
        const char *v = (const char *)ev.data.scalar.value;
        if (!in_map) {
          st = cf_error_set(err, CF_ERR_FORMAT, "%s: expected a mapping of key: value", name);
        } else if (!have_key) {
          snprintf(key, sizeof key, "%s", v);
          have_key = true;
        } else {
          st = set_key(c, name, key, v, err);
          have_key = false;
        }
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_ALIAS_EVENT:
        st = cf_error_set(err, CF_ERR_FORMAT, "%s: line %zu: %s: expected a plain value", name,
                          ev.start_mark.line + 1, have_key ? key : "(top level)");
        break;
      case YAML_STREAM_END_EVENT:
        done = true;
        break;
      default:
        break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&p);
  if (st == CF_OK && !in_map) st = cf_error_set(err, CF_ERR_FORMAT, "%s: empty configuration", name);
  return st;
}

cf_status nc_config_parse(const char *text, size_t size, const char *name, nc_config *c,
                          cf_error *err) {
  size_t i = 0;
  while (i < size && isspace((unsigned char)text[i])) i++;
  if (i < size && text[i] == '{') return parse_json(text, size, name, c, err);
  return parse_yaml(text, size, name, c, err);
}

cf_status nc_config_load(const char *path, nc_config *c, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cf_error_set(err, CF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  char *buf = malloc(1 << 20);
  size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
  bool too_big = buf && n == (1 << 20) - 1 && fgetc(f) != EOF;
  fclose(f);
  if (!buf) return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", path);
  if (too_big) {
    free(buf);
    return cf_error_set(err, CF_ERR_ARG, "%s: larger than 1 MiB: not a configuration", path);
  }
  buf[n] = 0;
  cf_status st = nc_config_parse(buf, n, path, c, err);
  free(buf);
  return st;
}

char *nc_config_to_json(const nc_config *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  if (c->input_format) cJSON_AddNumberToObject(o, "input_format", c->input_format);
  if (c->heads) cJSON_AddNumberToObject(o, "heads", c->heads);
  if (c->layers) cJSON_AddNumberToObject(o, "layers", c->layers);
  if (c->d) cJSON_AddNumberToObject(o, "embedding_size", c->d);
  if (c->embedding) cJSON_AddStringToObject(o, "embedding", c->embedding == 2 ? "dense" : "old");
  if (c->default_act) cJSON_AddStringToObject(o, "default_activation", cf_activation_name(c->default_act));
  if (c->ffn_act) cJSON_AddStringToObject(o, "ffn_activation", cf_activation_name(c->ffn_act));
  if (c->smolgen_act)
    cJSON_AddStringToObject(o, "smolgen_activation", cf_activation_name(c->smolgen_act));
  if (c->naming >= 0) cJSON_AddStringToObject(o, "naming", nc_naming_name((nc_naming)c->naming));
  if (c->license[0]) cJSON_AddStringToObject(o, "license", c->license);
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}
