/* cf_uci_queue.h: commands waiting for a network load, run in order. */
#ifndef CF_UCI_QUEUE_H
#define CF_UCI_QUEUE_H

#include "engine/uci/cf_uci_state.h"

void cf_uci_enqueue(cf_uci *u, const cf_uci_command *c, const char *args, double at);
void cf_uci_pump(cf_uci *u);
void cf_uci_drop_queue(cf_uci *u);
cf_uci_pending *cf_uci_queued_go(cf_uci *u);
void cf_uci_wait_for_queue(cf_uci *u, double max_seconds);

#endif /* CF_UCI_QUEUE_H */
