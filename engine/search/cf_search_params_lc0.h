/* cf_search_params_lc0.h: Lc0's further search options (moves-left utility,
 * root variants, collisions, sticky endgames, ...), rows in the layout of
 * cf_search_params.h, which joins them to CF_SEARCH_OPTIONS. */
#ifndef CF_SEARCH_PARAMS_LC0_H
#define CF_SEARCH_PARAMS_LC0_H

/* X(field, ctype, kind, name, flag, alias, def, min, max, choices, help) */
#define CF_SEARCH_LC0_OPTIONS(X)

#endif /* CF_SEARCH_PARAMS_LC0_H */
