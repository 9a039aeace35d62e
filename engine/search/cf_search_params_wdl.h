/* cf_search_params_wdl.h: the search options of Lc0's WDL family (draw-rate
 * rescaling and contempt), rows in the layout of cf_search_params.h, which
 * joins them to CF_SEARCH_OPTIONS. */
#ifndef CF_SEARCH_PARAMS_WDL_H
#define CF_SEARCH_PARAMS_WDL_H

/* X(field, ctype, kind, name, flag, alias, def, min, max, choices, help) */
#define CF_SEARCH_WDL_OPTIONS(X)

#endif /* CF_SEARCH_PARAMS_WDL_H */
