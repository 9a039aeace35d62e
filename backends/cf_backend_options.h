/* cf_backend_options.h: the "key=value,key=value" option strings backends
 * take (--backend-opts, UCI BackendOptions), parsed against a table of the
 * keys a backend knows. An unknown key, a missing '=' or a value out of
 * range is an error naming the key (and, through cf_backend_create, the
 * backend). */
#ifndef CF_BACKEND_OPTIONS_H
#define CF_BACKEND_OPTIONS_H

#include <stddef.h>

#include "backends/cf_backend.h"
#include "common/cf_status.h"

/* One integer option: `key` must parse as an integer in [min, max]; it is
 * stored in *value (left alone when the key is absent). */
typedef struct cf_backend_int_option {
  const char *key;
  int min, max;
  int *value;
} cf_backend_int_option;

/* Parses options (NULL or "" = none). Messages name the option;
 * cf_backend_create prefixes the backend's name. */
cf_status cf_backend_options_parse(const char *options,
                                   const cf_backend_int_option *known, int n_known,
                                   cf_error *err);

/* The precision=f32|bf16|int8|auto item of options: *precision gets it
 * (F32 when absent; the last one wins; F32 for auto, with *automatic set,
 * which may be NULL when the caller takes no auto), every other item is
 * copied, comma-separated, into rest (rest_size bytes; "" when none is
 * left). Fails on an unknown value, naming the known ones, or when rest is
 * too small. */
cf_status cf_backend_options_take_precision(const char *options, cf_precision *precision,
                                            bool *automatic, char *rest, size_t rest_size,
                                            cf_error *err);

/* The f32_roles=ROLE[+ROLE...] item of options (ROLE: embedding, heads;
 * or none): *uses gets bit (1u << cf_weight_use) for each named use (0
 * when absent or none; the last item wins), every other item is copied
 * into rest as cf_backend_options_take_precision does. '+' joins roles
 * because ',' separates options. Fails on an unknown role, naming the
 * valid ones. */
cf_status cf_backend_options_take_f32_roles(const char *options, unsigned *uses, char *rest,
                                            size_t rest_size, cf_error *err);

/* "f32_roles=embedding+heads" style text for uses (bits of cf_weight_use),
 * "none" when 0, into buf. */
void cf_backend_f32_roles_text(unsigned uses, char *buf, size_t size);

/* Takes the items of options whose key is one of known's out: each is
 * parsed as cf_backend_options_parse would; every other item is copied,
 * comma-separated, into rest (rest_size bytes; "" when none is left). */
cf_status cf_backend_options_take(const char *options, const cf_backend_int_option *known,
                                  int n_known, char *rest, size_t rest_size, cf_error *err);

/* Appends item (len bytes) to the option string rest (rest_size bytes,
 * *used of them taken), after a comma when rest is not empty. Fails when
 * rest is too small. For the functions that take some items out of an
 * option string and pass the others on. */
cf_status cf_backend_options_append(char *rest, size_t rest_size, size_t *used, const char *item,
                                    size_t len, cf_error *err);

#endif /* CF_BACKEND_OPTIONS_H */
