/* cf_engine_loader.h: one network load (cf_engine_load_net) on a thread of
 * its own, so the caller's thread stays free to read input while a large
 * file is inflated or a backend is built.
 *
 *     cf_engine_loader *l;
 *     cf_engine_loader_start(&spec, done, user, &l, &err);  // spec copied
 *     ...   // done(user, l) runs on the loader's thread when the load ends:
 *           // cf_engine_loader_take(l, &net, &info, &err); return true;
 *
 * Ownership is shared by the caller and the thread: whichever lets go last
 * frees the loader (and a network nobody took). The caller lets go either
 * by returning true from done or by cf_engine_loader_release. So a caller
 * that must go now (quit during a slow load) releases the loader at any
 * time and never waits for the load: the thread finishes on its own, frees
 * what it built and does not call done. Release waits only for a done
 * already running (which must not itself wait for the releasing thread:
 * release it without holding a lock that done takes); once release returns,
 * done will not run. */
#ifndef CF_ENGINE_LOADER_H
#define CF_ENGINE_LOADER_H

#include <stdbool.h>

#include "common/cf_status.h"
#include "engine/cf_engine_weights.h"

typedef struct cf_engine_loader cf_engine_loader;

/* Called once on the loader's thread when the load has ended (either way),
 * unless the loader was released before that. Returns true when the caller
 * is finished with the loader (as cf_engine_loader_release would say; do
 * not call that from done), false to release it later. */
typedef bool (*cf_engine_loader_done_fn)(void *user, cf_engine_loader *l);

/* Starts loading spec (deep-copied: the caller's strings may change at
 * once). Fails only when no thread can be started. */
cf_status cf_engine_loader_start(const cf_engine_weights_spec *spec, cf_engine_loader_done_fn done,
                                 void *user, cf_engine_loader **out, cf_error *err);

/* After the load ended: its status; on success the network moves to *net
 * (the caller frees it) and *info is filled; on failure err says why. A
 * second call gives the status again but no network. */
cf_status cf_engine_loader_take(cf_engine_loader *l, cf_net **net, cf_engine_weights_info *info,
                                cf_error *err);

/* The caller lets go (see above). At most once, and never after done
 * returned true (the loader may be gone then). Accepts NULL. */
void cf_engine_loader_release(cf_engine_loader *l);

#endif /* CF_ENGINE_LOADER_H */
