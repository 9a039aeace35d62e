/* cf_kv.c: the parsed option list, see the header. */
#include "common/cf_kv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kv_item {
  char *key, *value;
  bool read;
} kv_item;

struct cf_kv {
  kv_item *items;
  int n, cap;
  char **asked; /* keys asked for, in the order first asked */
  int n_asked, cap_asked;
};

/* p (an array of *cap elements of size bytes each) grown to hold n: the
 * array to use from now on, or NULL when out of memory (p unchanged). */
static void *reserve(void *p, int *cap, int n, size_t size) {
  if (n <= *cap) return p;
  int want = *cap ? *cap * 2 : 8;
  while (want < n) want *= 2;
  void *q = realloc(p, (size_t)want * size);
  if (q) *cap = want;
  return q;
}

static char *copy(const char *s, size_t len) {
  char *c = malloc(len + 1);
  if (!c) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

static kv_item *find(const cf_kv *kv, const char *key, size_t klen) {
  for (int i = 0; kv && i < kv->n; i++)
    if (strlen(kv->items[i].key) == klen && strncmp(kv->items[i].key, key, klen) == 0)
      return &kv->items[i];
  return NULL;
}

static cf_status oom(cf_error *err) { return cf_error_set(err, CF_ERR_NOMEM, "out of memory"); }

/* A growing string for the messages and the rendering. */
typedef struct strbuf {
  char *s;
  size_t len, cap;
  bool failed;
} strbuf;

static void add(strbuf *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void add(strbuf *t, const char *fmt, ...) {
  if (t->failed) return;
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || t->len + (size_t)n + 1 > t->cap) {
    size_t want = t->cap ? t->cap * 2 : 64;
    while (n >= 0 && want < t->len + (size_t)n + 1) want *= 2;
    char *s = n < 0 ? NULL : realloc(t->s, want);
    if (!s) {
      t->failed = true;
      return;
    }
    t->s = s;
    t->cap = want;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}


/* Sets key (klen bytes) to value (vlen bytes): in its place when present,
 * else at the end (front: at the start). */
static cf_status put(cf_kv *kv, const char *key, size_t klen, const char *value, size_t vlen,
                     bool front, cf_error *err) {
  char *v = copy(value, vlen);
  if (!v) return oom(err);
  kv_item *it = find(kv, key, klen);
  if (it) {
    free(it->value);
    it->value = v;
    return CF_OK;
  }
  char *k = copy(key, klen);
  kv_item *items = k ? reserve(kv->items, &kv->cap, kv->n + 1, sizeof *kv->items) : NULL;
  if (!items) {
    free(k);
    free(v);
    return oom(err);
  }
  kv->items = items;
  const int at = front ? 0 : kv->n;
  memmove(kv->items + at + 1, kv->items + at, (size_t)(kv->n - at) * sizeof *kv->items);
  kv->items[at] = (kv_item){.key = k, .value = v};
  kv->n++;
  return CF_OK;
}

cf_status cf_kv_parse(const char *text, cf_kv **out, cf_error *err) {
  *out = NULL;
  cf_kv *kv = calloc(1, sizeof *kv);
  if (!kv) return oom(err);
  for (const char *p = text; p && *p;) {
    const char *comma = strchr(p, ',');
    const size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    cf_status st = CF_OK;
    if (len == 0)
      st = CF_OK; /* ",a=1,,b=2," */
    else if (!eq)
      st = cf_error_set(err, CF_ERR_ARG, "option '%.*s' is not key=value", (int)len, p);
    else if (eq == p)
      st = cf_error_set(err, CF_ERR_ARG, "option '%.*s' has no key", (int)len, p);
    else
      st = put(kv, p, (size_t)(eq - p), eq + 1, len - (size_t)(eq - p) - 1, false, err);
    if (st != CF_OK) {
      cf_kv_free(kv);
      return st;
    }
    p = comma ? comma + 1 : NULL;
  }
  *out = kv;
  return CF_OK;
}

cf_status cf_kv_clone(const cf_kv *kv, cf_kv **out, cf_error *err) {
  *out = NULL;
  cf_kv *c = calloc(1, sizeof *c);
  if (!c) return oom(err);
  for (int i = 0; kv && i < kv->n; i++) {
    const kv_item *it = &kv->items[i];
    cf_status st = put(c, it->key, strlen(it->key), it->value, strlen(it->value), false, err);
    if (st != CF_OK) {
      cf_kv_free(c);
      return st;
    }
  }
  *out = c;
  return CF_OK;
}

void cf_kv_free(cf_kv *kv) {
  if (!kv) return;
  for (int i = 0; i < kv->n; i++) {
    free(kv->items[i].key);
    free(kv->items[i].value);
  }
  for (int i = 0; i < kv->n_asked; i++) free(kv->asked[i]);
  free(kv->items);
  free(kv->asked);
  free(kv);
}

bool cf_kv_has(const cf_kv *kv, const char *key) { return find(kv, key, strlen(key)) != NULL; }

cf_status cf_kv_set_default(cf_kv *kv, const char *key, const char *value, cf_error *err) {
  if (cf_kv_has(kv, key)) return CF_OK;
  return put(kv, key, strlen(key), value, strlen(value), true, err);
}

cf_status cf_kv_set_default_int(cf_kv *kv, const char *key, int value, cf_error *err) {
  char text[16];
  snprintf(text, sizeof text, "%d", value);
  return cf_kv_set_default(kv, key, text, err);
}

/* Records key as asked for; its item (marked read), or NULL when absent. */
static cf_status ask(cf_kv *kv, const char *key, kv_item **item, cf_error *err) {
  *item = NULL;
  if (!kv) return CF_OK; /* no list: nothing given, nobody to tell */
  bool known = false;
  for (int i = 0; i < kv->n_asked && !known; i++) known = strcmp(kv->asked[i], key) == 0;
  if (!known) {
    char *k = copy(key, strlen(key));
    char **asked = k ? reserve(kv->asked, &kv->cap_asked, kv->n_asked + 1, sizeof *kv->asked) : NULL;
    if (!asked) {
      free(k);
      return oom(err);
    }
    kv->asked = asked;
    kv->asked[kv->n_asked++] = k;
  }
  *item = find(kv, key, strlen(key));
  if (*item) (*item)->read = true;
  return CF_OK;
}

cf_status cf_kv_get_int(cf_kv *kv, const char *key, int min, int max, int *value, cf_error *err) {
  kv_item *it;
  CF_TRY(ask(kv, key, &it, err));
  if (!it) return CF_OK;
  if (!it->value[0])
    return cf_error_set(err, CF_ERR_ARG, "option '%s' needs an integer value", key);
  char *end;
  errno = 0;
  const long v = strtol(it->value, &end, 10);
  if (*end || errno || v < min || v > max)
    return cf_error_set(err, CF_ERR_ARG, "option '%s=%s' is not an integer in [%d, %d]", key,
                        it->value, min, max);
  *value = (int)v;
  return CF_OK;
}

/* Index of the name of names[0..n) that is s (len bytes), or -1. */
static int name_index(const char *const *names, int n, const char *s, size_t len) {
  for (int i = 0; i < n; i++)
    if (names[i] && strlen(names[i]) == len && strncmp(names[i], s, len) == 0) return i;
  return -1;
}

/* "a, b, c" of names[0..n) (NULL entries skipped) onto t. */
static void list_names(strbuf *t, const char *const *names, int n) {
  for (int i = 0, k = 0; i < n; i++)
    if (names[i]) add(t, "%s%s", k++ ? ", " : "", names[i]);
}

/* Fails naming the item of key and its valid values: "option 'k=v':
 * <what> (<before>a, b, c<after>)". */
static cf_status refuse(const char *key, const char *value, const char *what, const char *before,
                        const char *const *names, int n, const char *after, cf_error *err) {
  strbuf t = {0};
  add(&t, "option '%s=%s': %s (%s", key, value, what, before);
  list_names(&t, names, n);
  add(&t, "%s)", after);
  cf_status st = t.failed ? oom(err) : cf_error_set(err, CF_ERR_ARG, "%s", t.s);
  free(t.s);
  return st;
}

cf_status cf_kv_get_choice(cf_kv *kv, const char *key, const char *const *names, int n,
                           int *value, cf_error *err) {
  kv_item *it;
  CF_TRY(ask(kv, key, &it, err));
  if (!it) return CF_OK;
  const int i = name_index(names, n, it->value, strlen(it->value));
  if (i < 0) return refuse(key, it->value, "unknown value", "known: ", names, n, "", err);
  *value = i;
  return CF_OK;
}

cf_status cf_kv_get_set(cf_kv *kv, const char *key, const char *const *names, int n,
                        const char *none, unsigned *mask, cf_error *err) {
  kv_item *it;
  CF_TRY(ask(kv, key, &it, err));
  if (!it) return CF_OK;
  if (none && strcmp(it->value, none) == 0) {
    *mask = 0;
    return CF_OK;
  }
  unsigned m = 0;
  for (const char *p = it->value;;) {
    const char *plus = strchr(p, '+');
    const size_t len = plus ? (size_t)(plus - p) : strlen(p);
    const int i = name_index(names, n, p, len);
    if (i < 0) {
      strbuf what = {0};
      add(&what, "unknown name '%.*s'", (int)len, p);
      strbuf after = {0};
      add(&after, ", joined with '+'%s%s", none ? ", or " : "", none ? none : "");
      cf_status st = what.failed || after.failed
                         ? oom(err)
                         : refuse(key, it->value, what.s, "valid: ", names, n, after.s, err);
      free(what.s);
      free(after.s);
      return st;
    }
    m |= 1u << i;
    if (!plus) break;
    p = plus + 1;
  }
  *mask = m;
  return CF_OK;
}

cf_status cf_kv_get_text(cf_kv *kv, const char *key, const char **value, cf_error *err) {
  kv_item *it;
  CF_TRY(ask(kv, key, &it, err));
  if (it) *value = it->value;
  return CF_OK;
}

cf_status cf_kv_check_all_read(const cf_kv *kv, cf_error *err) {
  int unread = 0;
  for (int i = 0; kv && i < kv->n; i++) unread += !kv->items[i].read;
  if (!unread) return CF_OK;
  strbuf t = {0};
  add(&t, "unknown option%s ", unread > 1 ? "s" : "");
  for (int i = 0, k = 0; i < kv->n; i++)
    if (!kv->items[i].read)
      add(&t, "%s'%s=%s'", k++ ? ", " : "", kv->items[i].key, kv->items[i].value);
  add(&t, " (it reads: ");
  for (int i = 0; i < kv->n_asked; i++) add(&t, "%s%s", i ? ", " : "", kv->asked[i]);
  add(&t, "%s)", kv->n_asked ? "" : "none");
  cf_status st = t.failed ? oom(err) : cf_error_set(err, CF_ERR_ARG, "%s", t.s);
  free(t.s);
  return st;
}

char *cf_kv_render(const cf_kv *kv) {
  strbuf t = {0};
  add(&t, "%s", "");
  for (int i = 0; kv && i < kv->n; i++)
    add(&t, "%s%s=%s", i ? "," : "", kv->items[i].key, kv->items[i].value);
  if (t.failed) {
    free(t.s);
    return NULL;
  }
  return t.s;
}
