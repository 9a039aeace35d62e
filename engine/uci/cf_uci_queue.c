/* cf_uci_queue.c: commands that came while a network loads. They wait in
 * a queue, in the order read, behind the first one that needs the network
 * (isready, go); when the load ends the queue runs until a command must
 * wait again. stop and ponderhit act on a go still waiting here through
 * its flags, never its text. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_load.h"
#include "engine/uci/cf_uci_queue.h"
#include "engine/uci/cf_uci_search.h"

/* The first go still waiting in the queue (for a network load). */
cf_uci_pending *cf_uci_queued_go(cf_uci *u) {
  for (cf_uci_pending *p = u->queue; p; p = p->next)
    if (p->cmd->is_go && !p->stopped) return p;
  return NULL;
}

/* Whether a go has nothing to search (mate or stalemate): it answers at
 * once, without loading a network. */
static bool go_without_moves(const cf_uci *u) { return cf_uci_root_over(u, NULL); }

/* Runs the queue's head if it can run now; false when it waits for a
 * network load. */
static bool run_head(cf_uci *u, cf_uci_pending *p) {
  const cf_uci_command *c = p->cmd;
  const bool go = c->is_go;
  if (!c->during_search) cf_uci_finish_search(u, false);
  /* isready during a search answers at once (unless a load is under way:
   * a go stopped during it was answered without the network); a go
   * stopped while it waited, or with no move to search, needs no network. */
  const bool wants_net = c->needs_net && !(c->ready_check && u->search_live && !u->loader) &&
                         !(go && (p->stopped || go_without_moves(u)));
  if (wants_net) {
    if (go && !p->tried) {
      u->failed_key[0] = 0; /* a failed file is tried again: it may be there now */
      p->tried = true;
    }
    if (cf_uci_start_load(u) == CF_UCI_NET_LOADING) return false;
  }
  u->cmd = (cf_uci_cmd_state){.at = p->at, .stopped = go && p->stopped,
                              .ponderhit = go && p->ponderhit};
  c->run(u, p->args);
  u->cmd = (cf_uci_cmd_state){0};
  return true;
}

/* Runs the queued commands, in order, until one must wait for a load.
 * Under cmd_mu. */
void cf_uci_pump(cf_uci *u) {
  while (u->queue && !u->closing) {
    cf_uci_pending *p = u->queue;
    if (!run_head(u, p)) break;
    u->queue = p->next;
    if (!u->queue) u->queue_tail = NULL;
    free(p);
  }
}

void cf_uci_drop_queue(cf_uci *u) {
  while (u->queue) {
    cf_uci_pending *p = u->queue;
    u->queue = p->next;
    free(p);
  }
  u->queue_tail = NULL;
}

/* Queues a command (its arguments copied) and runs what can run. */
void cf_uci_enqueue(cf_uci *u, const cf_uci_command *c, const char *args, double at) {
  size_t n = strlen(args) + 1;
  cf_uci_pending *p = malloc(sizeof *p + n);
  if (!p) {
    cf_uci_emit(u, "info string error: out of memory");
    return;
  }
  *p = (cf_uci_pending){.cmd = c, .at = at, .ponder = c->is_go && cf_uci_go_ponders(args)};
  memcpy(p->args, args, n);
  if (u->queue_tail) u->queue_tail->next = p;
  else u->queue = p;
  u->queue_tail = p;
  cf_uci_pump(u);
}


/* quit: a load under way (and any that the commands queued before quit
 * start when it ends) is waited for, so that every isready read before
 * quit gets its readyok, as Lc0, which loads on the input thread, answers
 * them; a go read before quit then starts, and quit stops it (bestmove
 * with what it found). A load still under way after
 * max_seconds is let go (cf_uci_free), so a hung one cannot keep the
 * process alive. Under cmd_mu. */
void cf_uci_wait_for_queue(cf_uci *u, double max_seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  const double end = (double)until.tv_sec + until.tv_nsec / 1e9 + max_seconds;
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
  while (u->loader && pthread_cond_timedwait(&u->idle_cv, &u->cmd_mu, &until) == 0) {
  }
}
