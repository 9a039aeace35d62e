/* cf_uci_time_manager.h: the TimeManager and Slowmover options' settings. */
#ifndef CF_UCI_TIME_MANAGER_H
#define CF_UCI_TIME_MANAGER_H

#include "engine/uci/cf_uci_state.h"

cf_status cf_uci_time_manager_params(const cf_uci *u, cf_time_manager_params *out, cf_error *err);

#endif /* CF_UCI_TIME_MANAGER_H */
