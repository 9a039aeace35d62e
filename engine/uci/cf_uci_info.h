/* cf_uci_info.h: what the engine writes: every line (cf_uci_emit, logged),
 * info and bestmove lines, a move without the network, the notes held
 * until the first command (cf_uci_notes), the LogFile switch. */
#ifndef CF_UCI_INFO_H
#define CF_UCI_INFO_H

#include "engine/uci/cf_uci_state.h"

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void cf_uci_emit(cf_uci *u, const char *fmt, ...);
/* What the engine says outside a search (a load, the tables): an `info
 * string` line now, or with cf_uci_config.say_at_search held until the
 * next go writes it (cf_uci_release_said). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void cf_uci_say(cf_uci *u, const char *fmt, ...);
void cf_uci_release_said(cf_uci *u);
int cf_uci_king_takes_rook(const cf_uci *u);
void cf_uci_on_search_info(void *user, const cf_search *s, const cf_search_info *info);
void cf_uci_emit_final_info(cf_uci *u, const cf_agent_result *r, double elapsed);
void cf_uci_emit_bestmove(cf_uci *u, const cf_agent_result *r);
void cf_uci_play_instant(cf_uci *u, const char *why);
/* The info lines of go at a checkmate or stalemate root (reason): its
 * score, then why; bestmove (0000) is the caller's. */
void cf_uci_emit_game_over(cf_uci *u, cf_game_reason reason);

/* A line of what the setup (options set before the first command) had to
 * say: written now once the engine was greeted, else held until then. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void cf_uci_note(cf_uci *u, const char *fmt, ...);
/* Writes the held notes (after the first command, or after uciok). */
void cf_uci_release_held(cf_uci *u);
/* Not greeted, nothing held (create, reset). */
void cf_uci_notes_reset(cf_uci *u);

/* LogFile was set: the log switches to it (a file that cannot be opened
 * turns logging off, with an error line; the setting itself stands). */
cf_status cf_uci_log_changed(cf_uci *u, cf_error *err);

#endif /* CF_UCI_INFO_H */
