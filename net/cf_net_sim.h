/* cf_net_sim.h: how a net on the simulated accelerator (backends/sim/)
 * answers a position: from the input planes alone, in microseconds, the
 * same every time. Policy logits are a hash of the position and the move
 * (in [-2, 2]); the value follows the material balance of the position
 * (pawn 1, knight and bishop 3, rook 5, queen 9: q = tanh(balance / 8),
 * draws 0.3 of what is left); moves left is 60 plies. A search on it builds
 * a real tree whose shape depends on the position, while the time it takes
 * is the simulated device's (cf_backend_iface.pass_seconds), not the CPU's
 * arithmetic. */
#ifndef CF_NET_SIM_H
#define CF_NET_SIM_H

#include <stdbool.h>

#include "encoder/cf_planes.h"
#include "net/cf_net.h"

/* Fills o (the heads info says are computed; the policy heads o asks for)
 * for request r, whose planes are planes and canonical transform transform. */
void cf_net_sim_answer(const cf_net_info *info, const cf_planes *planes, int transform,
                       const cf_net_request *r, cf_net_output *o);

/* Sleeps until cf_clock_now() reaches t (returns at once when past). */
void cf_net_sim_wait_until(double t);

#endif /* CF_NET_SIM_H */
