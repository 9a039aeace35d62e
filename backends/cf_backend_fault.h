/* cf_backend_fault.h: a testing hook that makes the N-th allocation or op
 * of a backend instance fail, on every backend.
 *
 * cf_backend_create reads the options fault_alloc=N and fault_op=N from
 * any backend's option list (common/cf_kv.h). An instance given either runs through a
 * wrapper table that counts its allocations (alloc, weight_create, and
 * those the backend makes itself, which it asks cf_backend_fault_alloc
 * about: CPU weight tables, oneDNN primitives) and its ops (upload,
 * download, linear, norm, attention, gate, matmul_nt, copy_2d) and fails
 * the N-th of each once, as the backend's own failure would: the
 * allocation fails with a message (inside an op, reported by the next
 * sync); the op does nothing and the next sync reports it. The counts run over the instance's life
 * (creation and every pass), so a test looping N from 1 up reaches every
 * allocation and op a network makes, then one past the last (nothing
 * fails). An instance without the options runs its backend's own table:
 * the hook costs nothing there. */
#ifndef CF_BACKEND_FAULT_H
#define CF_BACKEND_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/cf_backend.h"
#include "common/cf_kv.h"

typedef struct cf_fault_plan {
  int alloc_at; /* the allocation that fails (1 = the first); 0 = none */
  int op_at;    /* the op that fails (1 = the first); 0 = none */
} cf_fault_plan;

/* The counters of one instance, shared by the wrapper and, through
 * cf_backend_config.fault, the backend's own allocations. */
typedef struct cf_backend_fault cf_backend_fault;

/* For a backend, before an allocation of its own: true (with err, which
 * may be NULL, saying so) when it is the one to fail. f NULL: false. */
bool cf_backend_fault_alloc(cf_backend_fault *f, cf_error *err);

/* Reads fault_alloc=N and fault_op=N from kv into *plan (zeros when
 * absent). */
cf_status cf_backend_fault_read(cf_kv *kv, cf_fault_plan *plan, cf_error *err);

/* The counters for plan, to hand to the backend's create
 * (cf_backend_config.fault) and then to cf_backend_fault_wrap; *out NULL
 * when plan asks for no fault. */
cf_status cf_backend_fault_new(const cf_fault_plan *plan, cf_backend_fault **out, cf_error *err);

/* Puts be's table behind the counting wrapper f (from cf_backend_fault_new,
 * which it then owns); does nothing for f NULL. */
void cf_backend_fault_wrap(cf_backend *be, cf_backend_fault *f);

/* Frees counters that were never wrapped around an instance. */
void cf_backend_fault_free(cf_backend_fault *f);

#endif /* CF_BACKEND_FAULT_H */
