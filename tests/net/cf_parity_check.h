/* cf_parity_check.h: comparing a cf_net_output with a parity case, field
 * by field, at the README's tolerance. */
#ifndef CF_PARITY_CHECK_H
#define CF_PARITY_CHECK_H

#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"

#define CF_PARITY_TOL 1e-4

/* Caller-owned output buffers for one case: logits per head for up to
 * CF_PARITY_MAX_MOVES moves, categorical logits per value head. */
typedef struct cf_parity_out {
  float policy[CF_POLICY_HEAD_COUNT][CF_PARITY_MAX_MOVES];
  float cat[CF_VALUE_HEAD_COUNT][CF_PARITY_MAX_CAT];
} cf_parity_out;

/* Points o's policy and value_cat pointers into buf for the heads the net
 * computes. */
void cf_parity_bind_output(const cf_net *net, cf_net_output *o, cf_parity_out *buf);

/* Checks o against c. move_case[i] is the c->legal index of request move i
 * (the moves may come in any order); n moves. tag prefixes failure notes. */
void cf_parity_check_output(cf_test *t, const char *tag, const cf_parity_case *c, const cf_net *net,
                            const cf_net_output *o, const int *move_case, int n);

/* A UCI move of case c as a policy move: castling (king two files over, or
 * onto its own rook) becomes king takes own rook. king_sq is the real square
 * of the mover's king. Returns false for malformed text. */
bool cf_parity_move_from_uci(const char *uci, int king_sq, cf_policy_move *m);

/* Whether black is to move in case c (FEN side flipped once per played move). */
bool cf_parity_black_to_move(const cf_parity_case *c);

/* Options that compute every policy and value head w has. */
void cf_parity_all_heads(const cf_weights *w, cf_net_options *opts);

/* Case c fed as its expected input planes (bypassing the position encoder)
 * with its legal moves: what planes-input tests send. */
typedef struct cf_parity_planes_case {
  cf_policy_move moves[CF_PARITY_MAX_MOVES];
  int move_case[CF_PARITY_MAX_MOVES]; /* request move i is c->legal[move_case[i]] */
  cf_parity_out buf;
} cf_parity_planes_case;

/* Fills *req and binds *out (into p->buf) for case c; false when a legal
 * move of the case does not convert to a policy move. */
bool cf_parity_planes_request(const cf_parity_case *c, const cf_net *net,
                              cf_parity_planes_case *p, cf_net_request *req, cf_net_output *out);

/* A parity net run on its cases fed as planes: the cases, the network
 * that ran them (options as given, every head of the net, max_batch =
 * the step) and each case's output, evaluated `step` cases per call. */
typedef struct cf_parity_planes_run {
  cf_parity_case *cases;
  int n, step;
  cf_net *net;
  cf_parity_planes_case *prep;
  cf_net_request *req;
  cf_net_output *out;
} cf_parity_planes_run;

/* Loads net `name` and its cases, creates the network with opts (batch 0
 * = all cases in one call) and evaluates every case. False with a message
 * in msg on any failure; free the run either way. */
bool cf_parity_planes_run_net(const char *name, cf_net_options opts, int batch,
                              cf_parity_planes_run *run, char *msg, int msg_size);
void cf_parity_planes_run_free(cf_parity_planes_run *run);

/* Largest |difference| seen by the checks so far (for the report). */
extern double cf_parity_max_err;

#endif /* CF_PARITY_CHECK_H */
