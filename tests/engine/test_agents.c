/* test_agents.c: the policy and value agents against direct network
 * evaluations, terminal children scored without the network, stopping,
 * evaluation limits and searchmoves. */
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_agent.h"
#include "engine/cf_net_input.h"
#include "tests/cf_test.h"
#include "tests/engine/agent_test_net.h"

static bool start(cf_test *t, cf_game *g, const char *fen, const char *moves) {
  cf_error err = {0};
  if (!CHECK(cf_game_init_fen(g, fen, &err) == CF_OK)) return false;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *save = NULL, *m = strtok_r(buf, " ", &save); m; m = strtok_r(NULL, " ", &save))
    if (!CHECK(cf_game_push_uci(g, m, &err) == CF_OK)) return false;
  return true;
}

static cf_move parse(const cf_game *g, const char *uci) {
  cf_move m = CF_MOVE_NONE;
  cf_move_parse_uci(cf_game_position(g), uci, &m, NULL);
  return m;
}

/* The network's Q of the current position, one evaluation on its own. */
static float q_of(cf_net *net, const cf_game *g) {
  cf_net_position p;
  cf_engine_net_position(g, cf_net_get_info(net)->input_format, &p);
  cf_net_request r = {.position = &p};
  cf_net_output o = {0};
  cf_error err;
  if (cf_net_eval(net, 1, &r, &o, &err) != CF_OK) return 99;
  return o.q;
}

static const char *fens[] = {
    CF_FEN_STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
};

static void test_registry(cf_test *t) {
  CHECK_INT_EQ(cf_agent_count(), 3);
  CHECK(cf_agent_find("policy") == &cf_agent_policy_desc);
  CHECK(cf_agent_find("value") == &cf_agent_value_desc);
  CHECK(cf_agent_find("search") == &cf_agent_search_desc);
  CHECK(cf_agent_find(CF_AGENT_DEFAULT) == &cf_agent_search_desc);
  CHECK(cf_agent_find("mcts") == NULL);
  CHECK(cf_agent_find(NULL) == NULL);
  CHECK(cf_agent_at(3) == NULL);
  /* What each agent says it is: only the search builds a tree, keeps it
   * across moves and spends its whole clock budget. */
  CHECK(cf_agent_has(&cf_agent_search_desc, CF_AGENT_BUILDS_TREE | CF_AGENT_KEEPS_STATE |
                                                CF_AGENT_USES_CLOCK_BUDGET));
  CHECK(!cf_agent_has(&cf_agent_policy_desc, CF_AGENT_BUILDS_TREE));
  CHECK(!cf_agent_has(&cf_agent_value_desc, CF_AGENT_BUILDS_TREE));
  CHECK(!cf_agent_has(&cf_agent_value_desc, CF_AGENT_KEEPS_STATE));
  CHECK(!cf_agent_has(&cf_agent_policy_desc, CF_AGENT_USES_CLOCK_BUDGET));
  CHECK(!cf_agent_has(NULL, 0));
}

static void test_policy_agent(cf_test *t) {
  cf_error err = {0};
  cf_net *net = agent_test_net(4, 11, &err);
  if (!CHECK(net)) return;
  for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
    cf_game g;
    if (!start(t, &g, fens[f], "")) break;
    /* The expected move: argmax of the logits from a direct evaluation. */
    cf_move legal[CF_MAX_MOVES];
    cf_policy_move pm[CF_MAX_MOVES];
    float logits[CF_MAX_MOVES];
    int n = cf_engine_legal_policy_moves(cf_game_position(&g), legal, pm);
    cf_net_position p;
    cf_engine_net_position(&g, 4, &p);
    cf_net_request r = {.position = &p, .moves = pm, .n_moves = n};
    cf_net_output o = {0};
    o.policy[CF_POLICY_VANILLA] = logits;
    CHECK(cf_net_eval(net, 1, &r, &o, &err) == CF_OK);
    int best = 0;
    for (int i = 1; i < n; i++)
      if (logits[i] > logits[best]) best = i;
    cf_agent_request req = {.net = net, .game = &g};
    cf_agent_result res;
    CHECK(cf_agent_policy_desc.choose(&req, &res, &err) == CF_OK);
    CHECK_INT_EQ(res.best, legal[best]);
    CHECK_INT_EQ(res.evals, 1);
    CHECK_INT_EQ(res.n_legal, n);
    CHECK_INT_EQ(res.ponder, CF_MOVE_NONE);
    CHECK_NEAR(res.q, o.q, 1e-6);
    CHECK_NEAR(res.wdl[0] + res.wdl[1] + res.wdl[2], 1.0, 1e-5);
    CHECK(res.policy > 0 && res.policy <= 1);
    cf_game_free(&g);
  }
  cf_net_free(net);
}

/* The value agent picks the child with the lowest Q for the opponent,
 * whatever the batch size, and spends 1 + children evaluations. */
static void test_value_agent_matches_children(cf_test *t) {
  cf_error err = {0};
  cf_net *one = agent_test_net(1, 5, &err);
  cf_net *seven = agent_test_net(7, 5, &err);
  if (!CHECK(one && seven)) goto done;
  for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
    cf_game g;
    if (!start(t, &g, fens[f], "")) break;
    int count = g.count;
    cf_move legal[CF_MAX_MOVES];
    int n = cf_engine_legal_policy_moves(cf_game_position(&g), legal, (cf_policy_move[CF_MAX_MOVES]){0});
    int best = -1;
    float best_score = -2;
    for (int i = 0; i < n; i++) {
      CHECK(cf_game_push(&g, legal[i], &err) == CF_OK);
      float s = -q_of(one, &g);
      cf_game_pop(&g);
      if (s > best_score) best_score = s, best = i;
    }
    cf_agent_request req = {.net = seven, .game = &g};
    cf_agent_result res;
    CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_OK);
    CHECK_INT_EQ(res.best, legal[best]);
    CHECK_NEAR(res.q, best_score, 1e-4);
    /* The ponder move: the top policy reply in best's child. */
    CHECK(cf_game_push(&g, res.best, &err) == CF_OK);
    cf_agent_request child_req = {.net = one, .game = &g};
    cf_agent_result child;
    CHECK(cf_agent_policy_desc.choose(&child_req, &child, &err) == CF_OK);
    CHECK_INT_EQ(res.ponder, child.best);
    cf_game_pop(&g);
    CHECK_INT_EQ(res.evals, 1 + n);
    CHECK_INT_EQ(res.n_scored, n);
    CHECK(!res.stopped);
    CHECK_INT_EQ(g.count, count);
    CHECK_INT_EQ(cf_game_position(&g)->side, f == 0 ? CF_WHITE : cf_game_position(&g)->side);
    cf_game_free(&g);
  }
done:
  cf_net_free(one);
  cf_net_free(seven);
}

/* One candidate move (searchmoves), whose child ends the game: scored
 * exactly, with the root's evaluation only. */
static void check_terminal(cf_test *t, cf_net *net, const char *fen, const char *moves,
                           const char *move, float q, int mate) {
  cf_game g;
  if (!start(t, &g, fen, moves)) return;
  cf_move m = parse(&g, move);
  CHECK(m != CF_MOVE_NONE);
  cf_agent_request req = {.net = net, .game = &g, .allowed = &m, .n_allowed = 1};
  cf_agent_result res;
  cf_error err = {0};
  CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_OK);
  CHECK_INT_EQ(res.best, m);
  CHECK_INT_EQ(res.n_legal, 1);
  CHECK_INT_EQ(res.evals, 1);
  CHECK(res.q == q);
  CHECK(res.wdl[1] == (q == 0 ? 1.0f : 0.0f));
  CHECK_INT_EQ(res.mate, mate);
  cf_game_free(&g);
}

static void test_value_agent_terminal_children(cf_test *t) {
  cf_error err = {0};
  cf_net *net = agent_test_net(16, 3, &err);
  if (!CHECK(net)) return;
  /* Mate: back-rank. */
  check_terminal(t, net, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "", "a1a8", 1, 1);
  /* Stalemate. */
  check_terminal(t, net, "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1", "", "g1g6", 0, 0);
  /* Insufficient material: the last pawn is taken. */
  check_terminal(t, net, "8/8/4k3/8/8/3p4/4K3/8 w - - 0 1", "", "e2d3", 0, 0);
  /* Fifty-move rule: the hundredth quiet half-move. */
  check_terminal(t, net, "8/8/4k3/8/8/8/4K3/7R w - - 99 80", "", "h1h2", 0, 0);
  /* Threefold repetition: the knights return for the third time. */
  check_terminal(t, net, CF_FEN_STARTPOS, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1", "f6g8", 0, 0);
  /* With every move on offer, the mate is found among the others. */
  cf_game g;
  if (start(t, &g, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "")) {
    cf_agent_request req = {.net = net, .game = &g};
    cf_agent_result res;
    CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_OK);
    CHECK_INT_EQ(res.best, parse(&g, "a1a8"));
    CHECK_INT_EQ(res.mate, 1);
    CHECK_INT_EQ(res.ponder, CF_MOVE_NONE); /* the game is over */
    cf_game_free(&g);
  }
  cf_net_free(net);
}

static void test_stop_and_limits(cf_test *t) {
  cf_error err = {0};
  cf_net *net = agent_test_net(4, 9, &err);
  if (!CHECK(net)) return;
  cf_game g;
  if (!start(t, &g, CF_FEN_STARTPOS, "")) goto done;
  cf_agent_request req = {.net = net, .game = &g};
  cf_agent_result policy, res;
  CHECK(cf_agent_policy_desc.choose(&req, &policy, &err) == CF_OK);
  /* Stopped before any child: the policy's move. */
  atomic_bool stop = true;
  req.stop = &stop;
  CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_OK);
  CHECK(res.stopped);
  CHECK_INT_EQ(res.evals, 1);
  CHECK_INT_EQ(res.n_scored, 0);
  CHECK_INT_EQ(res.best, policy.best);
  /* An evaluation budget (go nodes). */
  atomic_store(&stop, false);
  req.max_evals = 6;
  CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_OK);
  CHECK(res.stopped);
  CHECK_INT_EQ(res.evals, 6);
  CHECK_INT_EQ(res.n_scored, 5);
  CHECK_INT_EQ(g.count, 1);
  /* searchmoves: only the allowed (legal) ones; illegal ones are ignored. */
  cf_move allowed[3] = {parse(&g, "a2a3"), parse(&g, "h2h4"), cf_move_make(0, 63)};
  req = (cf_agent_request){.net = net, .game = &g, .allowed = allowed, .n_allowed = 3};
  CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_OK);
  CHECK_INT_EQ(res.n_legal, 2);
  CHECK_INT_EQ(res.evals, 3);
  CHECK(res.best == allowed[0] || res.best == allowed[1]);
  CHECK(cf_agent_policy_desc.choose(&req, &res, &err) == CF_OK);
  CHECK(res.best == allowed[0] || res.best == allowed[1]);
  /* Only illegal moves: all legal moves are candidates. */
  req.allowed = allowed + 2;
  req.n_allowed = 1;
  CHECK(cf_agent_policy_desc.choose(&req, &res, &err) == CF_OK);
  CHECK_INT_EQ(res.n_legal, 20);
  cf_game_free(&g);
  /* No legal move: nothing to evaluate. */
  if (start(t, &g, "7k/8/6QK/8/8/8/8/8 b - - 0 1", "")) {
    req = (cf_agent_request){.net = net, .game = &g};
    for (int a = 0; a < cf_agent_count(); a++) {
      CHECK(cf_agent_at(a)->choose(&req, &res, &err) == CF_OK);
      CHECK_INT_EQ(res.best, CF_MOVE_NONE);
      CHECK_INT_EQ(res.evals, 0);
    }
    cf_game_free(&g);
  }
  /* Bad requests fail cleanly. */
  req = (cf_agent_request){0};
  CHECK(cf_agent_value_desc.choose(&req, &res, &err) == CF_ERR_ARG);
done:
  cf_net_free(net);
}

/* The ranking behind MultiPV and VerboseMoveStats: every candidate once,
 * the chosen move first; the value agent's scored moves by value (each equal
 * to its child's negated Q), then the unscored ones by prior; the policy
 * agent's by prior, at the root's value. */
static void test_move_rankings(cf_test *t) {
  cf_error err = {0};
  cf_net *net = agent_test_net(4, 5, &err);
  if (!CHECK(net)) return;
  for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
    cf_game g;
    if (!start(t, &g, fens[f], "")) break;
    cf_agent_request req = {.net = net, .game = &g};
    for (int a = 0; a < 2; a++) {
      const cf_agent_desc *agent = a == 0 ? &cf_agent_policy_desc : &cf_agent_value_desc;
      for (long budget = 0; budget <= 6; budget += 6) { /* all children, then only 5 */
        req.max_evals = budget;
        cf_agent_result r;
        if (!CHECK(agent->choose(&req, &r, &err) == CF_OK)) continue;
        CHECK_INT_EQ(r.n_moves, r.n_legal);
        CHECK_INT_EQ(r.moves[0].move, r.best);
        double p_sum = 0;
        int scored = 0;
        for (int k = 0; k < r.n_moves; k++) {
          const cf_agent_move_stats *m = &r.moves[k];
          p_sum += m->p;
          for (int j = 0; j < k; j++) CHECK(r.moves[j].move != m->move);
          if (m->scored) {
            scored++;
            CHECK(k == 0 || r.moves[k - 1].scored); /* scored ones first */
            CHECK(k == 0 || r.moves[k - 1].q >= m->q);
            if (m->by_net) {
              CHECK(cf_game_push(&g, m->move, &err) == CF_OK);
              CHECK_NEAR(m->q, -q_of(net, &g), 1e-4);
              cf_agent_result reply;
              cf_agent_request child = {.net = net, .game = &g};
              CHECK(cf_agent_policy_desc.choose(&child, &reply, &err) == CF_OK);
              CHECK_INT_EQ(m->reply, reply.best);
              cf_game_pop(&g);
            }
          } else {
            CHECK(k == 0 || r.moves[k - 1].scored || r.moves[k - 1].p >= m->p);
            CHECK_INT_EQ(m->reply, CF_MOVE_NONE);
          }
        }
        CHECK_NEAR(p_sum, 1.0, 1e-4);
        CHECK_INT_EQ(scored, r.n_scored);
        if (agent == &cf_agent_value_desc) CHECK_NEAR(r.moves[0].q, r.q, 1e-6);
      }
    }
    cf_game_free(&g);
  }
  /* A mate in one among the candidates: proven, ranked first. */
  cf_game g;
  if (start(t, &g, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "")) {
    cf_agent_request req = {.net = net, .game = &g};
    cf_agent_result r;
    CHECK(cf_agent_value_desc.choose(&req, &r, &err) == CF_OK);
    CHECK_INT_EQ(r.moves[0].move, parse(&g, "a1a8"));
    CHECK(r.moves[0].scored && !r.moves[0].by_net && r.moves[0].proven == 1);
    CHECK_INT_EQ(r.moves[1].proven, -2);
    cf_game_free(&g);
  }
  cf_net_free(net);
}

CF_TEST_MAIN(test_registry, test_policy_agent, test_value_agent_matches_children,
             test_value_agent_terminal_children, test_stop_and_limits, test_move_rankings)
