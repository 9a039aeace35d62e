/* cf_parity.c: reading the parity case files with cJSON. */
#include "tests/net/cf_parity.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cf_test.h"

const char *const cf_parity_nets[] = {
    "cf-rpe-rms",      "lc0-smolgen-relu2",   "lc0-smolgen-relu2-bf16", "lc0-smolgen-relu2-f32",
    "lc0-map-classic", "cf-rpe-ln-canonical",
};
const int cf_parity_net_count = (int)(sizeof cf_parity_nets / sizeof cf_parity_nets[0]);

const char *cf_parity_dir(void) {
  static char dir[1024];
  snprintf(dir, sizeof dir, "%s/parity", cf_test_data_dir());
  return dir;
}

int cf_parity_find_move(const cf_parity_case *c, const char *uci) {
  for (int i = 0; i < c->n_legal; i++)
    if (strcmp(c->legal[i].uci, uci) == 0) return i;
  return -1;
}

#define FAIL(...)                                 \
  do {                                            \
    snprintf(msg, (size_t)msg_size, __VA_ARGS__); \
    return false;                                 \
  } while (0)

static bool copy_string(const cJSON *obj, const char *key, char *dst, size_t size) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(s) || strlen(s->valuestring) >= size) return false;
  strcpy(dst, s->valuestring);
  return true;
}

static bool read_value_head(const cJSON *v, cf_parity_value *out) {
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(v, "q");
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(v, "err");
  const cJSON *cat = cJSON_GetObjectItemCaseSensitive(v, "cat_logits");
  if (!cJSON_IsNumber(q)) return false;
  out->present = true;
  out->q = (float)q->valuedouble;
  out->has_err = cJSON_IsNumber(err);
  out->err = out->has_err ? (float)err->valuedouble : 0.0f;
  out->n_cat = 0;
  if (cJSON_IsArray(cat)) {
    const cJSON *x;
    cJSON_ArrayForEach(x, cat) {
      if (!cJSON_IsNumber(x) || out->n_cat >= CF_PARITY_MAX_CAT) return false;
      out->cat[out->n_cat++] = (float)x->valuedouble;
    }
  }
  return true;
}

bool cf_parity_parse_line(const char *line, cf_parity_case *c, char *msg, int msg_size) {
  memset(c, 0, sizeof *c);
  cJSON *root = cJSON_Parse(line);
  if (!root) FAIL("not JSON: %.60s", line);
  bool ok = false;
  do {
    if (!copy_string(root, "id", c->id, sizeof c->id)) break;
    if (!copy_string(root, "fen", c->fen, sizeof c->fen)) break;
    const cJSON *x;
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(root, "moves");
    bool moves_ok = cJSON_IsArray(moves);
    cJSON_ArrayForEach(x, moves) {
      if (!cJSON_IsString(x) || c->n_played >= CF_PARITY_MAX_PLIES || strlen(x->valuestring) > 5) {
        moves_ok = false;
        break;
      }
      strcpy(c->played[c->n_played++], x->valuestring);
    }
    if (!moves_ok) break;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "input_format");
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(root, "transform");
    if (!cJSON_IsNumber(fmt) || !cJSON_IsNumber(tr)) break;
    c->input_format = fmt->valueint;
    c->transform = tr->valueint;
    const cJSON *planes = cJSON_GetObjectItemCaseSensitive(root, "planes");
    if (cJSON_GetArraySize(planes) != CF_PLANE_COUNT) break;
    int j = 0;
    bool planes_ok = true;
    cJSON_ArrayForEach(x, planes) {
      const cJSON *m = cJSON_GetObjectItemCaseSensitive(x, "mask");
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "value");
      if (!cJSON_IsString(m) || !cJSON_IsNumber(v)) {
        planes_ok = false;
        break;
      }
      c->planes.mask[j] = strtoull(m->valuestring, NULL, 16);
      c->planes.value[j] = (float)v->valuedouble;
      j++;
    }
    if (!planes_ok) break;
    const cJSON *wdl = cJSON_GetObjectItemCaseSensitive(root, "wdl");
    if (cJSON_GetArraySize(wdl) != 3) break;
    for (int i = 0; i < 3; i++) c->wdl[i] = (float)cJSON_GetArrayItem(wdl, i)->valuedouble;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "q");
    const cJSON *ml = cJSON_GetObjectItemCaseSensitive(root, "moves_left");
    if (!cJSON_IsNumber(q)) break;
    c->q = (float)q->valuedouble;
    c->has_moves_left = cJSON_IsNumber(ml);
    c->moves_left = c->has_moves_left ? (float)ml->valuedouble : 0.0f;
    if (!c->has_moves_left && !cJSON_IsNull(ml)) break;
    const cJSON *vh = cJSON_GetObjectItemCaseSensitive(root, "value_heads");
    bool values_ok = cJSON_IsObject(vh);
    cJSON_ArrayForEach(x, vh) {
      int id = strcmp(x->string, "q") == 0    ? CF_VALUE_Q
               : strcmp(x->string, "st") == 0 ? CF_VALUE_ST
                                              : -1;
      if (id < 0 || !read_value_head(x, &c->value[id])) values_ok = false;
    }
    if (!values_ok) break;
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(root, "policy");
    const cJSON *idx = cJSON_GetObjectItemCaseSensitive(root, "policy_index");
    bool pol_ok = cJSON_IsObject(pol) && cJSON_IsObject(idx);
    cJSON_ArrayForEach(x, pol) {
      int head = -1;
      for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
        if (strcmp(x->string, cf_policy_head_name((cf_policy_head_id)h)) == 0) head = h;
      if (head < 0 || !cJSON_IsObject(x)) {
        pol_ok = false;
        break;
      }
      c->policy_heads |= 1u << head;
      const cJSON *mv;
      cJSON_ArrayForEach(mv, x) {
        int k = cf_parity_find_move(c, mv->string);
        if (k < 0) {
          if (c->n_legal >= CF_PARITY_MAX_MOVES || strlen(mv->string) > 5) {
            pol_ok = false;
            break;
          }
          k = c->n_legal++;
          strcpy(c->legal[k].uci, mv->string);
          c->legal[k].index = -1;
        }
        c->legal[k].logit[head] = (float)mv->valuedouble;
      }
    }
    cJSON_ArrayForEach(x, idx) {
      int k = cf_parity_find_move(c, x->string);
      if (k < 0 || !cJSON_IsNumber(x))
        pol_ok = false;
      else
        c->legal[k].index = x->valueint;
    }
    if (!pol_ok) break;
    ok = true;
  } while (0);
  cJSON_Delete(root);
  if (!ok) FAIL("case %s: unexpected layout", c->id[0] ? c->id : "?");
  return true;
}

bool cf_parity_load(const char *dir, const char *net, cf_parity_case **out, int *count, char *msg,
                    int msg_size) {
  *out = NULL;
  *count = 0;
  char path[1200];
  snprintf(path, sizeof path, "%s/%s.jsonl", dir, net);
  FILE *f = fopen(path, "r");
  if (!f) FAIL("cannot open %s", path);
  size_t cap = 0;
  char *line = NULL;
  cf_parity_case *cases = NULL;
  int n = 0, cap_cases = 0;
  bool ok = true;
  while (getline(&line, &cap, f) > 0) {
    if (line[0] == '\n') continue;
    if (n == cap_cases) {
      cap_cases = cap_cases ? 2 * cap_cases : 32;
      cf_parity_case *grown = realloc(cases, (size_t)cap_cases * sizeof *cases);
      if (!grown) {
        ok = false;
        snprintf(msg, (size_t)msg_size, "out of memory");
        break;
      }
      cases = grown;
    }
    if (!cf_parity_parse_line(line, &cases[n], msg, msg_size)) {
      ok = false;
      break;
    }
    n++;
  }
  free(line);
  fclose(f);
  if (!ok) {
    free(cases);
    return false;
  }
  *out = cases;
  *count = n;
  return true;
}

bool cf_parity_load_net(const char *net, cf_parity_case **cases, int *count, cf_weights **w,
                        char *msg, int msg_size) {
  return cf_parity_load_net_in(cf_parity_dir(), net, cases, count, w, msg, msg_size);
}

bool cf_parity_load_net_in(const char *dir, const char *net, cf_parity_case **cases, int *count,
                           cf_weights **w, char *msg, int msg_size) {
  *w = NULL;
  if (!cf_parity_load(dir, net, cases, count, msg, msg_size)) return false;
  char path[1200];
  snprintf(path, sizeof path, "%s/%s.pb.gz", dir, net);
  cf_error err = {0};
  if (cf_weights_load_file(path, NULL, w, &err) != CF_OK) {
    snprintf(msg, (size_t)msg_size, "%s", err.msg);
    free(*cases);
    *cases = NULL;
    *count = 0;
    return false;
  }
  return true;
}
