/* cf_uci_load.h: the network the options name: whether the loaded one is
 * it, starting a load, what the options that name it do when set. */
#ifndef CF_UCI_LOAD_H
#define CF_UCI_LOAD_H

#include "engine/uci/cf_uci_state.h"

typedef enum { CF_UCI_NET_READY, CF_UCI_NET_FAILED, CF_UCI_NET_LOADING } cf_uci_net_state;
cf_uci_net_state cf_uci_start_load(cf_uci *u);
bool cf_uci_net_ready(const cf_uci *u);
/* No failed load remembered (reset: the next isready tries again). */
void cf_uci_load_forget_failure(cf_uci *u);
/* WeightsFile or WeightsMaxMb was set (even to the same value: the file may
 * have appeared or been fixed): a failed load is tried again. */
cf_status cf_uci_weights_changed(cf_uci *u, cf_error *err);
/* BackendOptions was set: its text is parsed here, once, into the list
 * the net key and every load copy (a text that does not parse is kept as
 * the error the next load reports). Also run by create and reset, after
 * the options' defaults. Returns CF_OK. */
cf_status cf_uci_backend_options_changed(cf_uci *u, cf_error *err);
/* Threads was set: the search's batches in flight follow it on a device;
 * more than the cores online is allowed, with a word. */
cf_status cf_uci_threads_changed(cf_uci *u, cf_error *err);

#endif /* CF_UCI_LOAD_H */
