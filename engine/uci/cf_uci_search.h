/* cf_uci_search.h: the search worker (one thread per engine) that runs an
 * agent's choice for go; the search's parameters from the options. */
#ifndef CF_UCI_SEARCH_H
#define CF_UCI_SEARCH_H

#include "engine/uci/cf_uci_state.h"

bool cf_uci_start_search(cf_uci *u);
/* Whether the game's position has no legal move (checkmate, stalemate; the
 * draws that leave moves are searched): *reason says which. */
bool cf_uci_root_over(const cf_uci *u, cf_game_reason *reason);
void cf_uci_finish_search(cf_uci *u, bool force_stop);
void cf_uci_end_worker(cf_uci *u);
/* A held search was released (stop, ponderhit): with inline_search its
 * bestmove is written now (the worker writes its own). */
void cf_uci_released(cf_uci *u);
/* No search held or stopped, no agent, no answer waiting (reset; the worker
 * is idle). */
void cf_uci_search_reset(cf_uci *u);

/* Whether the Backend option names a device backend (cf_backend_desc.device):
 * Threads are then the search's batches in flight, not lanes. */
bool cf_uci_device_backend(const cf_uci *u);

/* The search's parameters the options say, and their change handler. */
void cf_uci_search_params(const cf_uci *u, cf_search_params *p);
cf_status cf_uci_search_changed(cf_uci *u, cf_error *err);
/* The change handlers of Contempt and UCI_Opponent, which the search's
 * parameters read: the text checked (cf_uci_contempt.h), then
 * cf_uci_search_changed. */
cf_status cf_uci_contempt_changed(cf_uci *u, cf_error *err);
cf_status cf_uci_opponent_changed(cf_uci *u, cf_error *err);
/* At go: when a MovesLeft* option is off its default and the network has no
 * moves-left head, says once (a process) that they have no effect. */
void cf_uci_moves_left_note(cf_uci *u);

#endif /* CF_UCI_SEARCH_H */
