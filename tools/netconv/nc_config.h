/* nc_config.h: the import configuration: what tensors cannot tell (input
 * format, activations, head count) and optional checks of what they can
 * (layers, embedding width, embedding style). JSON (libcjson) or YAML
 * (libyaml), a flat mapping:
 *
 *   input_format: 1            # NetworkFormat input (1-5, 132, 133)
 *   heads: 4                   # attention heads (required)
 *   default_activation: mish   # mish | relu (default mish)
 *   ffn_activation: mish       # any activation name (default: default_activation)
 *   smolgen_activation: swish  # (default swish)
 *   layers: 3                  # optional check
 *   embedding_size: 64         # optional check (d)
 *   embedding: old             # optional check: old | dense
 *   naming: ours               # ours | chessformer (default: from the names)
 *   license: "text"            # written into the net
 *
 * Unknown keys are errors (a typo must not be silently ignored). */
#ifndef NC_CONFIG_H
#define NC_CONFIG_H

#include <stdbool.h>

#include "tools/netconv/nc_names.h"
#include "weights/cf_weights.h"

typedef struct nc_config {
  int input_format;         /* 0: not given */
  int heads;                /* 0: not given */
  cf_activation default_act, ffn_act, smolgen_act; /* DEFAULT: not given */
  int layers, d;            /* 0: not given */
  int embedding;            /* 0: not given, 1 old (PE_MAP), 2 dense (PE_DENSE) */
  int naming;               /* -1: not given, else nc_naming */
  char license[512];        /* "" : not given */
} nc_config;

void nc_config_init(nc_config *c);

/* Parses text (JSON if it starts with '{' after blanks, else YAML) into c,
 * overriding only the keys it has. name is used in messages. */
cf_status nc_config_parse(const char *text, size_t size, const char *name, nc_config *c,
                          cf_error *err);

/* Reads and parses a file. */
cf_status nc_config_load(const char *path, nc_config *c, cf_error *err);

/* c as a JSON object (malloc'd string), as written into exported files. */
char *nc_config_to_json(const nc_config *c);

/* "mish" -> CF_ACT_MISH; false if unknown. */
bool nc_parse_activation(const char *text, cf_activation *out);

#endif /* NC_CONFIG_H */
