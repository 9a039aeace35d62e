/* bench_signature.h: the bench signature, one number that changes when the
 * engine's behaviour on the fixed suite changes (the idea of Ethereal's
 * "Bench: N" commit lines).
 *
 * It is a 64-bit FNV-1a hash over, for each agent and each suite position
 * in order, the agent's name, the position id, the chosen move (UCI text)
 * and that move's Q rounded to a multiple of 1/1024 (bench_agents.c), so
 * float noise far below what matters cannot flip it while any real change
 * does.
 * Rounding is what keeps it stable from run to run on one backend; two
 * backends agree unless an output lies within float rounding of a
 * quantisation step, which is rare but possible (so the signature is reported
 * per backend). See docs/BENCH.md. */
#ifndef BENCH_SIGNATURE_H
#define BENCH_SIGNATURE_H

#include <stdint.h>

typedef struct bench_signature {
  uint64_t h;
} bench_signature;

#define BENCH_SIGNATURE_Q_STEPS 1024.0

void bench_signature_init(bench_signature *s);
void bench_signature_bytes(bench_signature *s, const void *data, unsigned long n);
void bench_signature_text(bench_signature *s, const char *text);
void bench_signature_int(bench_signature *s, int64_t v);
/* Adds round(x * BENCH_SIGNATURE_Q_STEPS) (NaN and infinities as fixed
 * markers), so q = 0.1234 and q = 0.12341 hash alike. */
void bench_signature_quantised(bench_signature *s, double x);

/* 16 lowercase hex digits and a NUL. */
void bench_signature_hex(const bench_signature *s, char out[17]);

#endif /* BENCH_SIGNATURE_H */
