/* cf_sim_backend.h: `sim`, a simulated accelerator for testing the search
 * at a GPU's speed on any CPU (never chosen by `auto`). It runs no op: the
 * network answers each pass from the positions themselves, cheaply and
 * deterministically (net/cf_net_sim.h), and the pass takes as long as a
 * device would: latency_us plus per_position_ns for each position, counted
 * from the pass's start (the pass_seconds slot of cf_backend_iface).
 *
 *   BackendOptions latency_us=2000,per_position_ns=1000
 *
 * A pass occupies the caller's thread for that long; net/cf_net_stream.h
 * runs passes on a thread of their own, as a device's stream. One pass at a
 * time, so the device's ceiling is MinibatchSize / (latency + MinibatchSize
 * x per-position time) positions a second. */
#ifndef CF_SIM_BACKEND_H
#define CF_SIM_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_sim_desc;

/* The options' largest values: 10 s of latency, 1 ms a position. */
#define CF_SIM_MAX_LATENCY_US 10000000
#define CF_SIM_MAX_PER_POSITION_NS 1000000

#endif /* CF_SIM_BACKEND_H */
