/* cf_uci_temperature.h: the move played under Lc0's Temperature options,
 * and the Seed of its draws. */
#ifndef CF_UCI_TEMPERATURE_H
#define CF_UCI_TEMPERATURE_H

#include "engine/cf_strength.h"
#include "engine/uci/cf_uci_state.h"

void cf_uci_apply_temperature(cf_uci *u, cf_agent_result *r);
/* The level of UCI_Elo under UCI_LimitStrength ({0, 0}: off, or full
 * strength): its nodes cap go's, its temperature is the least one played. */
cf_strength_level cf_uci_strength(const cf_uci *u);
/* Seed: a fixed seed repeats the temperature's draws; 0 draws a new one. */
void cf_uci_seed_rng(cf_uci *u);
cf_status cf_uci_seed_changed(cf_uci *u, cf_error *err);

#endif /* CF_UCI_TEMPERATURE_H */
