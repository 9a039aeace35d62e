/* cf_kv.h: a parsed "key=value,key=value" option list, read by key.
 *
 * The backend option strings (--backend-opts, the UCI option
 * BackendOptions, cformer_options.backend_options) are parsed once, where
 * they enter (the UCI loop, the library's API, a tool's command line), into
 * a list; every layer that owns keys (the network, cf_backend_create, the
 * fault hook, each backend) then reads its keys from that same list through
 * the typed getters below, which record the key as asked for and mark it as
 * read. The one who created the network checks at the end that every key
 * was read (cf_kv_check_all_read, lc0's OptionsDict::CheckAllOptionsRead),
 * so an unknown key is refused once, with the keys that were asked for.
 *
 *     cf_kv *kv;
 *     CF_TRY(cf_kv_parse("threads=2,precision=bf16", &kv, err));
 *     int threads = 1;                               // the default stays when absent
 *     st = cf_kv_get_int(kv, "threads", 1, 256, &threads, err);
 *     ...
 *     st = cf_kv_check_all_read(kv, err);            // "unknown option 'x=1' (it reads: ...)"
 *     cf_kv_free(kv);
 *
 * Values are kept as text and converted by the getter, so a key's type is
 * stated once, where it is read. Nothing here has a size limit beyond
 * memory. Messages name the item ('key=value'); callers prefix whose list
 * it is ("backend 'onednn'"). */
#ifndef CF_KV_H
#define CF_KV_H

#include <stdbool.h>

#include "common/cf_status.h"

typedef struct cf_kv cf_kv;

/* Parses text (NULL or "" = an empty list). Items are separated by ',';
 * empty items are skipped; a repeated key keeps its first place and takes
 * the last value. Fails with CF_ERR_ARG naming an item without '=' or with
 * an empty key, CF_ERR_NOMEM when out of memory. */
cf_status cf_kv_parse(const char *text, cf_kv **out, cf_error *err);

/* A copy of kv's keys and values (nothing read or asked yet). */
cf_status cf_kv_clone(const cf_kv *kv, cf_kv **out, cf_error *err);

/* Accepts NULL. */
void cf_kv_free(cf_kv *kv);

/* Whether key is in the list (neither asks nor reads it); false for kv
 * NULL. */
bool cf_kv_has(const cf_kv *kv, const char *key);

/* A typed default: key=value is added, in front of the list, when key is
 * absent; a key already given is left as it is. */
cf_status cf_kv_set_default(cf_kv *kv, const char *key, const char *value, cf_error *err);
cf_status cf_kv_set_default_int(cf_kv *kv, const char *key, int value, cf_error *err);

/* The getters. Each records key as asked for (listed by
 * cf_kv_check_all_read) and, when key is present, marks it read and
 * converts its value into *value; an absent key leaves *value as it was
 * and returns CF_OK. A value that does not convert is CF_ERR_ARG naming
 * the item and its valid values; *value is then left as it was. kv NULL
 * is an empty list. */

/* An integer in [min, max]. */
cf_status cf_kv_get_int(cf_kv *kv, const char *key, int min, int max, int *value, cf_error *err);

/* One of names[0..n) (NULL entries are skipped): *value is its index. */
cf_status cf_kv_get_choice(cf_kv *kv, const char *key, const char *const *names, int n,
                           int *value, cf_error *err);

/* Names of names[0..n) joined with '+' ("vanilla+soft"): *mask gets bit
 * (1u << index) for each. none (NULL for no such word) is the whole value
 * meaning the empty set. n is at most 32. */
cf_status cf_kv_get_set(cf_kv *kv, const char *key, const char *const *names, int n,
                        const char *none, unsigned *mask, cf_error *err);

/* The value as text (owned by kv, valid until it is freed). */
cf_status cf_kv_get_text(cf_kv *kv, const char *key, const char **value, cf_error *err);

/* CF_OK when every key of kv was read; else CF_ERR_ARG: "unknown option
 * 'foo=1' (it reads: threads, precision, ...)" naming every key nobody
 * read and the keys that were asked for, in the order first asked. */
cf_status cf_kv_check_all_read(const cf_kv *kv, cf_error *err);

/* "key=value,key=value" in list order (a list parsed from its own
 * rendering is the same list), "" for an empty list: malloc'd, for the
 * caller to free; NULL when out of memory. */
char *cf_kv_render(const cf_kv *kv);

#endif /* CF_KV_H */
