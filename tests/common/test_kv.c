/* test_kv.c: the parsed option list (common/cf_kv.h): parsing and its
 * refusals, the typed getters and what they mark, defaults, the rendering
 * and the check that every key was read. */
#include <stdlib.h>
#include <string.h>

#include "common/cf_kv.h"
#include "tests/cf_test.h"

/* The list's rendering, compared and freed. */
static bool renders(cf_test *t, const cf_kv *kv, const char *want) {
  char *text = cf_kv_render(kv);
  const bool ok = CHECK(text != NULL) && CHECK_STR_EQ(text, want);
  free(text);
  return ok;
}

static void test_parse(cf_test *t) {
  cf_kv *kv = NULL;
  cf_error err = {0};
  CHECK_INT_EQ(cf_kv_parse(NULL, &kv, &err), CF_OK);
  renders(t, kv, "");
  CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_OK); /* nothing to read */
  cf_kv_free(kv);
  /* Empty items are skipped; a repeated key keeps its place, the last value wins. */
  CHECK_INT_EQ(cf_kv_parse(",threads=3,,batch=9,threads=4,x=", &kv, &err), CF_OK);
  renders(t, kv, "threads=4,batch=9,x=");
  CHECK(cf_kv_has(kv, "batch") && cf_kv_has(kv, "x") && !cf_kv_has(kv, "thread"));
  /* A list parsed from its rendering is the same list. */
  char *text = cf_kv_render(kv);
  cf_kv *again = NULL;
  CHECK_INT_EQ(cf_kv_parse(text, &again, &err), CF_OK);
  renders(t, again, text);
  free(text);
  cf_kv_free(again);
  cf_kv_free(kv);
  /* Malformed items are refused naming the item. */
  const char *bad[] = {"threads", "a=1,threads", "=3", "a=1,=2"};
  const char *why[] = {"option 'threads' is not key=value", "option 'threads' is not key=value",
                       "option '=3' has no key", "option '=2' has no key"};
  for (int i = 0; i < 4; i++) {
    kv = (cf_kv *)&err; /* set to NULL on failure */
    CHECK_INT_EQ(cf_kv_parse(bad[i], &kv, &err), CF_ERR_ARG);
    CHECK(kv == NULL);
    CHECK_STR_EQ(err.msg, why[i]);
  }
}

static void test_int(cf_test *t) {
  cf_kv *kv = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_kv_parse("threads=3,batch=9", &kv, &err), CF_OK)) return;
  int threads = 1, batch = 7, absent = 42;
  CHECK_INT_EQ(cf_kv_get_int(kv, "threads", 1, 64, &threads, &err), CF_OK);
  CHECK_INT_EQ(threads, 3);
  CHECK_INT_EQ(cf_kv_get_int(kv, "absent", 0, 100, &absent, &err), CF_OK);
  CHECK_INT_EQ(absent, 42); /* the default stays */
  /* batch is not read yet: the check names it and the keys asked for. */
  CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_ERR_ARG);
  CHECK_STR_EQ(err.msg, "unknown option 'batch=9' (it reads: threads, absent)");
  CHECK_INT_EQ(cf_kv_get_int(kv, "batch", 1, 1024, &batch, &err), CF_OK);
  CHECK_INT_EQ(batch, 9);
  CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_OK);
  cf_kv_free(kv);
  /* Out of range or not an integer: refused naming the item and the range,
   * the value untouched. */
  const char *bad[] = {"threads=0", "threads=65", "threads=x", "threads=2x",
                       "threads=99999999999999999999"};
  for (int i = 0; i < 5; i++) {
    if (!CHECK_INT_EQ(cf_kv_parse(bad[i], &kv, &err), CF_OK)) continue;
    threads = 5;
    CHECK_INT_EQ(cf_kv_get_int(kv, "threads", 1, 64, &threads, &err), CF_ERR_ARG);
    char want[96];
    snprintf(want, sizeof want, "option '%s' is not an integer in [1, 64]", bad[i]);
    CHECK_STR_EQ(err.msg, want);
    CHECK_INT_EQ(threads, 5);
    cf_kv_free(kv);
  }
  if (CHECK_INT_EQ(cf_kv_parse("threads=", &kv, &err), CF_OK)) {
    CHECK_INT_EQ(cf_kv_get_int(kv, "threads", 1, 64, &threads, &err), CF_ERR_ARG);
    CHECK_STR_EQ(err.msg, "option 'threads' needs an integer value");
    cf_kv_free(kv);
  }
}

static void test_choice_set_text(cf_test *t) {
  static const char *const names[] = {"f32", "bf16", NULL, "int8"};
  static const char *const heads[] = {"vanilla", "soft", "opponent"};
  cf_kv *kv = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_kv_parse("p=int8,h=vanilla+opponent,r=none,s=hello", &kv, &err), CF_OK))
    return;
  int p = 0;
  CHECK_INT_EQ(cf_kv_get_choice(kv, "p", names, 4, &p, &err), CF_OK);
  CHECK_INT_EQ(p, 3);
  unsigned mask = 0;
  CHECK_INT_EQ(cf_kv_get_set(kv, "h", heads, 3, NULL, &mask, &err), CF_OK);
  CHECK_INT_EQ(mask, 1u | 4u);
  mask = 7;
  CHECK_INT_EQ(cf_kv_get_set(kv, "r", heads, 3, "none", &mask, &err), CF_OK);
  CHECK_INT_EQ(mask, 0);
  const char *s = NULL;
  CHECK_INT_EQ(cf_kv_get_text(kv, "s", &s, &err), CF_OK);
  CHECK(s && strcmp(s, "hello") == 0);
  CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_OK);
  cf_kv_free(kv);
  /* Unknown values: refused naming the item and the valid values. */
  if (CHECK_INT_EQ(cf_kv_parse("p=half,h=vanilla+,r=none+soft", &kv, &err), CF_OK)) {
    p = 1;
    CHECK_INT_EQ(cf_kv_get_choice(kv, "p", names, 4, &p, &err), CF_ERR_ARG);
    CHECK_STR_EQ(err.msg, "option 'p=half': unknown value (known: f32, bf16, int8)");
    CHECK_INT_EQ(p, 1);
    CHECK_INT_EQ(cf_kv_get_set(kv, "h", heads, 3, NULL, &mask, &err), CF_ERR_ARG);
    CHECK_STR_EQ(err.msg, "option 'h=vanilla+': unknown name '' (valid: vanilla, soft, opponent, "
                          "joined with '+')");
    CHECK_INT_EQ(cf_kv_get_set(kv, "r", heads, 3, "none", &mask, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "unknown name 'none' (valid: vanilla, soft, opponent, joined "
                                "with '+', or none)");
    cf_kv_free(kv);
  }
}

static void test_defaults_clone_check(cf_test *t) {
  cf_kv *kv = NULL, *copy = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_kv_parse("a=1,precision=f32", &kv, &err), CF_OK)) return;
  /* A default goes in front when absent, and never replaces a given value. */
  CHECK_INT_EQ(cf_kv_set_default(kv, "precision", "auto", &err), CF_OK);
  CHECK_INT_EQ(cf_kv_set_default_int(kv, "lanes", 4, &err), CF_OK);
  CHECK_INT_EQ(cf_kv_set_default_int(kv, "lanes", 8, &err), CF_OK);
  renders(t, kv, "lanes=4,a=1,precision=f32");
  int a = 0, lanes = 0;
  CHECK_INT_EQ(cf_kv_get_int(kv, "a", 0, 9, &a, &err), CF_OK);
  /* A copy has the keys and values, nothing read or asked. */
  if (CHECK_INT_EQ(cf_kv_clone(kv, &copy, &err), CF_OK)) {
    renders(t, copy, "lanes=4,a=1,precision=f32");
    CHECK_INT_EQ(cf_kv_get_int(copy, "lanes", 1, 64, &lanes, &err), CF_OK);
    CHECK_INT_EQ(lanes, 4);
    CHECK_INT_EQ(cf_kv_check_all_read(copy, &err), CF_ERR_ARG);
    CHECK_STR_EQ(err.msg, "unknown options 'a=1', 'precision=f32' (it reads: lanes)");
    cf_kv_free(copy);
  }
  /* Asking again lists a key once; nothing asked says so. */
  CHECK_INT_EQ(cf_kv_get_int(kv, "a", 0, 9, &a, &err), CF_OK);
  CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_ERR_ARG);
  CHECK_STR_EQ(err.msg, "unknown options 'lanes=4', 'precision=f32' (it reads: a)");
  cf_kv_free(kv);
  if (CHECK_INT_EQ(cf_kv_parse("x=1", &kv, &err), CF_OK)) {
    CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_ERR_ARG);
    CHECK_STR_EQ(err.msg, "unknown option 'x=1' (it reads: none)");
    cf_kv_free(kv);
  }
  /* No list is an empty one. */
  int v = 3;
  CHECK_INT_EQ(cf_kv_get_int(NULL, "x", 0, 9, &v, &err), CF_OK);
  CHECK_INT_EQ(v, 3);
  CHECK(!cf_kv_has(NULL, "x"));
  CHECK_INT_EQ(cf_kv_check_all_read(NULL, &err), CF_OK);
  cf_kv_free(NULL);
}

CF_TEST_MAIN(test_parse, test_int, test_choice_set_text, test_defaults_clone_check)
