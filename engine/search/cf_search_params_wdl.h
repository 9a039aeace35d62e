/* cf_search_params_wdl.h: the search options of Lc0's WDL family (draw-rate
 * rescaling and contempt), rows in the layout of cf_search_params.h, which
 * joins them to CF_SEARCH_OPTIONS (and the knob to CF_SEARCH_KNOBS).
 *
 * Names, ranges and defaults are Lc0's (its classic search parameters); what
 * they do is in cf_search_wdl.h. Contempt and UCI_Opponent are text options
 * of the UCI engine (engine/uci/cf_uci_contempt.c), which resolves them,
 * with UCI_RatingAdv, into the knob `contempt`. */
#ifndef CF_SEARCH_PARAMS_WDL_H
#define CF_SEARCH_PARAMS_WDL_H

/* ContemptMode's choices, in Lc0's order (the row's value is the index). */
enum {
  CF_CONTEMPT_PLAY = 0,
  CF_CONTEMPT_WHITE = 1,
  CF_CONTEMPT_BLACK = 2,
  CF_CONTEMPT_DISABLE = 3,
};

/* X(field, ctype, kind, name, flag, alias, def, min, max, choices, help) */
#define CF_SEARCH_WDL_OPTIONS(X)                                                                   \
  X(contempt_mode, int, CHOICE, "ContemptMode", "contempt-mode", NULL, 0, 0, 3,                    \
    CF_SEARCH_CHOICES("play", "white_side_analysis", "black_side_analysis", "disable"),            \
    "contempt: whose side it favours: play = the side the engine moves for (off under go "        \
    "infinite), white_side_analysis / black_side_analysis = that colour, disable = nobody")        \
  X(contempt_max, float, FLOAT, "ContemptMaxValue", "contempt-max-value", NULL, 420, 0, 10000,     \
    NULL, "contempt: the largest Elo advantage used; larger contempt is cut to it")                \
  X(wdl_calibration_elo, float, FLOAT, "WDLCalibrationElo", "wdl-calibration-elo", NULL, 0, 0,     \
    10000, NULL,                                                                                   \
    "WDL rescaling: the engine's Elo (rapid); the draw rate and contempt follow from the two "    \
    "Elos; 0 = use WDLDrawRateTarget instead")                                                     \
  X(wdl_contempt_attenuation, float, FLOAT, "WDLContemptAttenuation", "wdl-contempt-attenuation", \
    NULL, 1, -10, 10, NULL,                                                                        \
    "contempt: scales the Elo advantage applied (1 for analysis, 0.5-0.6 plays best in matches)") \
  X(wdl_max_s, float, FLOAT, "WDLMaxS", "wdl-max-s", NULL, 1.4, 0, 10, NULL,                       \
    "WDL rescaling: the largest spread s of the network's W/D/L taken as it is (raise it for "    \
    "piece odds)")                                                                                 \
  X(wdl_eval_objectivity, float, FLOAT, "WDLEvalObjectivity", "wdl-eval-objectivity", NULL, 1, 0,  \
    1, NULL,                                                                                       \
    "contempt: how much of it the reported score removes: 0 = the values searched with, 1 = an "  \
    "objective score")                                                                             \
  X(wdl_draw_rate_target, float, FLOAT, "WDLDrawRateTarget", "wdl-draw-rate-target", NULL, 0, 0,   \
    0.999, NULL,                                                                                   \
    "WDL rescaling: the draw rate of equal positions to sharpen or soften to (ignored when "      \
    "WDLCalibrationElo is set); 0 = the network's own")                                            \
  X(wdl_draw_rate_reference, float, FLOAT, "WDLDrawRateReference", "wdl-draw-rate-reference",      \
    NULL, 0.5, 0.001, 0.999, NULL,                                                                 \
    "WDL rescaling: the draw rate the network predicts at default settings; rescaling is "        \
    "relative to it")                                                                              \
  X(wdl_book_exit_bias, float, FLOAT, "WDLBookExitBias", "wdl-book-exit-bias", NULL, 0.65, -2, 2,  \
    NULL,                                                                                          \
    "contempt: the book exit bias of the Elo it models (start position about 0.2); matters "      \
    "only above an 80% target draw rate; ignored when WDLCalibrationElo is set")                   \
  X(rating_adv, float, FLOAT, "UCI_RatingAdv", "uci-rating-adv", NULL, 0, -10000, 10000, NULL,     \
    "contempt: the Elo advantage over the opponent a GUI passes; the contempt unless Contempt "   \
    "gives one")

/* Parameters without a UCI option of their own. */
#define CF_SEARCH_WDL_KNOBS(X)                                                                     \
  X(contempt, float, FLOAT, NULL, NULL, NULL, 0, -10000, 10000, NULL,                              \
    "the contempt in Elo: Contempt matched against UCI_Opponent, else UCI_RatingAdv "             \
    "(engine/uci/cf_uci_contempt.c)")

#endif /* CF_SEARCH_PARAMS_WDL_H */
