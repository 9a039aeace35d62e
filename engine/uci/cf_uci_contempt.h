/* cf_uci_contempt.h: Lc0's Contempt option, its list matched against
 * UCI_Opponent, and UCI_Opponent's check.
 *
 * Contempt is a comma-separated list of entries, each `value` or
 * `name=value` (value a number, in Elo). The contempt is UCI_RatingAdv,
 * replaced by each bare value in turn, until an entry whose name occurs in
 * UCI_Opponent (ignoring case) gives its value and ends the list. So
 * "50,stockfish=-20" is 50 against anyone but an opponent whose
 * UCI_Opponent contains "stockfish". Empty entries are skipped (an empty
 * list, a trailing comma), as in Lc0.
 *
 * Unlike Lc0, which finds a bad entry only once a search reads it (and an
 * entry with an empty name, which matches every opponent), the whole list
 * is checked when it is set: a bad one is refused with the entry and the
 * form expected, and the old list stays. */
#ifndef CF_UCI_CONTEMPT_H
#define CF_UCI_CONTEMPT_H

#include <stdbool.h>

#include "common/cf_status.h"

/* CF_OK when list is a valid Contempt list; else CF_ERR_ARG naming the
 * option, the bad entry and the form expected. */
cf_status cf_uci_contempt_check(const char *list, cf_error *err);

/* The contempt of a valid list against opponent (UCI_Opponent's text),
 * starting from rating_adv (UCI_RatingAdv). */
double cf_uci_contempt_value(const char *list, const char *opponent, double rating_adv);

/* CF_OK when text may be UCI_Opponent's value: printable (valid UTF-8, no
 * control character); else CF_ERR_ARG naming the option. */
cf_status cf_uci_opponent_check(const char *text, cf_error *err);

#endif /* CF_UCI_CONTEMPT_H */
