/* test_selfplay_game.c: selfplay games and their training records on the
 * built-in network: complete legal games whose records match their PGN
 * move by move; Dirichlet noise and temperature repeating exactly from a
 * seed; records through a chunk file and back unchanged; games played in
 * steps, their searches in one group sharing network calls, move for move
 * and record for record the games sp_play plays alone; orig_q/d/m the
 * network's answer for the root and policy_kld the visits' KL divergence
 * from the network's priors, as Lc0 fills them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chess/cf_fen.h"
#include "chess/cf_movegen.h"
#include "chess/cf_pgn.h"
#include "engine/cf_engine_weights.h"
#include "engine/cf_net_input.h"
#include "engine/search/cf_search_group.h"
#include "engine/uci/cf_uci_options.h"
#include "tests/cf_test.h"
#include "tools/chunks/cf_chunk_file.h"
#include "tools/selfplay/selfplay_out.h"

static cf_net *builtin_net(cf_test *t) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN, .net = {.max_batch = 16}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (!CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return net;
}

static cf_search *noisy_search(cf_test *t, double eps) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.noise_epsilon = (float)eps;
  p.smart_pruning_factor = 0;
  cf_search *s = NULL;
  CHECK(cf_search_create(&p, &s, NULL) == CF_OK);
  return s;
}

/* The root priors after a search of `visits` from the start position. */
static int root_priors(cf_test *t, cf_net *net, double eps, uint64_t seed, float *p) {
  cf_search *s = noisy_search(t, eps);
  cf_search_seed(s, seed);
  cf_game g;
  cf_game_init_fen(&g, CF_FEN_STARTPOS, NULL);
  const cf_search_limits lim = {.visits = 8};
  cf_search_result r;
  CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK);
  cf_search_move_stats st[CF_MAX_MOVES];
  const int n = cf_search_root_stats(s, st, CF_MAX_MOVES);
  /* in move order, not best-first, so runs compare entry by entry */
  cf_movelist legal;
  cf_generate_legal(cf_game_position(&g), &legal);
  for (int i = 0; i < legal.count; i++)
    for (int k = 0; k < n; k++)
      if (st[k].move == legal.moves[i]) p[i] = st[k].p;
  cf_game_free(&g);
  cf_search_free(s);
  return legal.count;
}

static void test_noise(cf_test *t) {
  cf_net *net = builtin_net(t);
  if (!net) return;
  float plain[CF_MAX_MOVES], a[CF_MAX_MOVES], b[CF_MAX_MOVES], c[CF_MAX_MOVES];
  const int n = root_priors(t, net, 0, 1, plain);
  root_priors(t, net, 0.25, 1, a);
  root_priors(t, net, 0.25, 1, b);
  root_priors(t, net, 0.25, 2, c);
  int same_ab = 0, same_plain = 0, same_ac = 0;
  double sum = 0;
  for (int i = 0; i < n; i++) {
    same_ab += a[i] == b[i];
    same_plain += a[i] == plain[i];
    same_ac += a[i] == c[i];
    sum += a[i];
  }
  CHECK_INT_EQ(same_ab, n);      /* a seed repeats its noise exactly */
  CHECK(same_plain < n / 2);     /* the noise moved the priors */
  CHECK(same_ac < n / 2);        /* another seed, other noise */
  CHECK_NEAR(sum, 1.0, 1e-4);    /* still a distribution */
  cf_net_free(net);
}

static sp_settings noisy_settings(void) {
  sp_settings s = {.visits = 4, .training = true};
  s.temp.temperature = 1;
  s.temp.decay_moves = 20;
  s.temp.value_cutoff = 100;
  return s;
}

static bool play(cf_test *t, cf_net *net, uint64_t seed, sp_game *g) {
  cf_search *s = noisy_search(t, 0.25);
  const sp_settings set = noisy_settings();
  cf_position start;
  cf_position_startpos(&start);
  cf_error err = {0};
  const cf_status st = sp_play(net, s, &set, &start, NULL, 0, seed, NULL, g, &err);
  if (!CHECK(st == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  cf_search_free(s);
  return st == CF_OK;
}

/* Record i against ply i of the game: the played move's index, visit
 * shares over exactly the legal moves, the game's result. */
static void check_record(cf_test *t, const cf_v6 *r, const cf_game *game, int ply,
                         cf_game_result result) {
  const cf_position *pos = &game->plies[ply].pos;
  const bool black = pos->side == CF_BLACK;
  CHECK(r->version == 6);
  CHECK(cf_v6_black_to_move(r) == black);
  const int transform = cf_input_is_canonical((int)r->input_format) ? r->invariance_info & 7 : 0;
  const cf_move played = game->plies[ply + 1].move;
  CHECK_INT_EQ(r->played_idx,
               cf_policy_move_index(cf_engine_policy_move(played), black, transform));
  cf_movelist legal;
  cf_generate_legal(pos, &legal);
  double sum = 0;
  int legal_entries = 0;
  for (int i = 0; i < CF_V6_POLICY; i++)
    if (r->probabilities[i] >= 0) sum += r->probabilities[i], legal_entries++;
    else CHECK(r->probabilities[i] == -1.0f);
  CHECK_INT_EQ(legal_entries, legal.count);
  for (int i = 0; i < legal.count; i++) {
    const int k = cf_policy_move_index(cf_engine_policy_move(legal.moves[i]), black, transform);
    CHECK(k >= 0 && r->probabilities[k] >= 0);
  }
  CHECK_NEAR(sum, 1.0, 1e-4);
  const int white = result == CF_RESULT_WHITE_WINS ? 1 : result == CF_RESULT_BLACK_WINS ? -1 : 0;
  CHECK_INT_EQ(cf_v6_white_result(r), white);
}

static void test_game_matches_pgn(cf_test *t) {
  cf_net *net = builtin_net(t);
  sp_game g;
  if (!net || !play(t, net, 11, &g)) return;
  CHECK(g.result != CF_RESULT_ONGOING);
  CHECK_INT_EQ(g.n_records, g.game.count - 1); /* every ply searched (no opening, no resign) */
  /* the PGN read back by chess/'s reader: the same moves, all legal */
  FILE *f = tmpfile();
  CHECK(sp_pgn_write(f, &g, 1, NULL) == CF_OK);
  const long len = ftell(f);
  char *text = malloc((size_t)len);
  rewind(f);
  CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
  fclose(f);
  cf_pgn_game pg = {0};
  cf_error err = {0};
  if (CHECK(cf_pgn_parse_game(text, (size_t)len, 1, &pg, &err) == CF_OK)) {
    CHECK_INT_EQ(pg.n_moves, g.game.count - 1);
    for (int i = 0; i < pg.n_moves && i + 1 < g.game.count; i++)
      CHECK(pg.moves[i] == g.game.plies[i + 1].move);
    CHECK_STR_EQ(pg.result, cf_game_result_name(g.result));
  } else {
    fprintf(stderr, "%s\n", err.msg);
  }
  for (int i = 0; i < g.n_records; i++) check_record(t, &g.records[i], &g.game, i, g.result);
  /* plies_left counts down to the last record, which (the game ending by
   * the rules with its move) is 1 after a mate found by the search, as in
   * Lc0's records */
  for (int i = 1; i < g.n_records; i++)
    CHECK_NEAR(g.records[i - 1].plies_left - g.records[i].plies_left, 1.0, 1e-5);
  if (strcmp(g.reason, "checkmate") == 0 && g.n_records > 0)
    CHECK_NEAR(g.records[g.n_records - 1].plies_left, 1.0, 1e-5);
  else
    CHECK(g.n_records > 0 && g.records[g.n_records - 1].plies_left >= 1.0f);
  cf_pgn_game_free(&pg);
  free(text);
  sp_game_free(&g);
  cf_net_free(net);
}

static void test_repeats_from_seed(cf_test *t) {
  cf_net *net = builtin_net(t);
  sp_game a, b, c;
  if (!net || !play(t, net, 5, &a) || !play(t, net, 5, &b) || !play(t, net, 6, &c)) return;
  CHECK_INT_EQ(a.game.count, b.game.count);
  bool same = a.game.count == b.game.count && a.n_records == b.n_records;
  for (int i = 1; same && i < a.game.count; i++) same = a.game.plies[i].move == b.game.plies[i].move;
  uint8_t x[CF_V6_BYTES], y[CF_V6_BYTES];
  for (int i = 0; same && i < a.n_records; i++) {
    cf_v6_pack(&a.records[i], x);
    cf_v6_pack(&b.records[i], y);
    same = memcmp(x, y, CF_V6_BYTES) == 0;
  }
  CHECK(same); /* noise, temperature and records: the same from the same seed */
  bool differs = a.game.count != c.game.count;
  for (int i = 1; !differs && i < a.game.count; i++) differs = a.game.plies[i].move != c.game.plies[i].move;
  CHECK(differs); /* another seed, another game */
  sp_game_free(&a);
  sp_game_free(&b);
  sp_game_free(&c);
  cf_net_free(net);
}

static cf_status collect(void *ctx, long index, const cf_v6 *r, cf_error *err) {
  (void)err;
  cf_v6 *out = ctx;
  out[index] = *r;
  return CF_OK;
}

static void test_chunk_round_trip(cf_test *t) {
  cf_net *net = builtin_net(t);
  sp_game g;
  if (!net || !play(t, net, 3, &g)) return;
  char dir[] = "/tmp/cf_selfplay_test_XXXXXX";
  if (!CHECK(mkdtemp(dir) != NULL)) return;
  cf_chunk_writer *w;
  CHECK(cf_chunk_writer_open(dir, 7, &w, NULL) == CF_OK);
  for (int i = 0; i < g.n_records; i++) CHECK(cf_chunk_writer_add(w, &g.records[i], NULL) == CF_OK);
  char tmp[4200], path[4200];
  snprintf(tmp, sizeof tmp, "%s/.training.000007.gz.tmp", dir);
  snprintf(path, sizeof path, "%s/training.000007.gz", dir);
  CHECK(access(tmp, F_OK) == 0 && access(path, F_OK) != 0); /* not under its name until closed */
  CHECK(cf_chunk_writer_close(w, NULL) == CF_OK);
  CHECK(access(tmp, F_OK) != 0 && access(path, F_OK) == 0);
  cf_v6 *back = calloc((size_t)g.n_records + 1, sizeof *back);
  long n = 0;
  CHECK(cf_chunk_read(path, collect, back, &n, NULL) == CF_OK);
  CHECK_INT_EQ(n, g.n_records);
  uint8_t x[CF_V6_BYTES], y[CF_V6_BYTES];
  int same = 0;
  for (int i = 0; i < n && i < g.n_records; i++) {
    cf_v6_pack(&g.records[i], x);
    cf_v6_pack(&back[i], y);
    same += memcmp(x, y, CF_V6_BYTES) == 0;
  }
  CHECK_INT_EQ(same, g.n_records);
  remove(path);
  rmdir(dir);
  free(back);
  sp_game_free(&g);
  cf_net_free(net);
}

/* ResignPercentage 100 resigns at the first move allowed, before its
 * record (as Lc0); ResignPlaythrough 100 never resigns. */
static void test_resign(cf_test *t) {
  cf_net *net = builtin_net(t);
  if (!net) return;
  cf_search *s = noisy_search(t, 0);
  sp_settings set = {.visits = 2, .training = true, .resign_percentage = 100,
                     .resign_earliest_move = 3};
  set.temp.value_cutoff = 100;
  cf_position start;
  cf_position_startpos(&start);
  sp_game g;
  CHECK(sp_play(net, s, &set, &start, NULL, 0, 1, NULL, &g, NULL) == CF_OK);
  CHECK_STR_EQ(g.reason, "resignation");
  CHECK(g.adjudicated);
  CHECK_INT_EQ(g.game.count - 1, 4); /* moves 1 and 2 played, white resigns at move 3 */
  CHECK(g.result == CF_RESULT_BLACK_WINS);
  CHECK_INT_EQ(g.n_records, 4);
  for (int i = 0; i < g.n_records; i++) CHECK(g.records[i].invariance_info & CF_V6_ADJUDICATED);
  sp_game_free(&g);
  set.resign_playthrough = 100;
  CHECK(sp_play(net, s, &set, &start, NULL, 0, 1, NULL, &g, NULL) == CF_OK);
  CHECK(strcmp(g.reason, "resignation") != 0);
  sp_game_free(&g);
  cf_search_free(s);
  cf_net_free(net);
}

/* The temperature schedule counts moves as the start FEN numbers them: a
 * game from move 40 is past TempCutoffMove 10 and plays its best moves,
 * the same whatever the seed. */
static void test_temperature_from_fen_move(cf_test *t) {
  cf_net *net = builtin_net(t);
  if (!net) return;
  cf_search *s = noisy_search(t, 0);
  sp_settings set = {.visits = 4};
  set.temp.temperature = 1;
  set.temp.cutoff_move = 10;
  set.temp.value_cutoff = 100;
  cf_position start;
  CHECK(cf_position_from_fen(&start, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 40",
                             NULL) == CF_OK);
  sp_game a, b;
  CHECK(sp_play(net, s, &set, &start, NULL, 0, 1, NULL, &a, NULL) == CF_OK);
  CHECK(sp_play(net, s, &set, &start, NULL, 0, 2, NULL, &b, NULL) == CF_OK);
  bool same = a.game.count == b.game.count;
  for (int i = 1; same && i < a.game.count; i++) same = a.game.plies[i].move == b.game.plies[i].move;
  CHECK(same);
  sp_game_free(&a);
  sp_game_free(&b);
  cf_search_free(s);
  cf_net_free(net);
}

static bool same_games(const sp_game *a, const sp_game *b) {
  bool same = a->game.count == b->game.count && a->n_records == b->n_records &&
              a->result == b->result && strcmp(a->reason, b->reason) == 0;
  for (int i = 1; same && i < a->game.count; i++) same = a->game.plies[i].move == b->game.plies[i].move;
  uint8_t x[CF_V6_BYTES], y[CF_V6_BYTES];
  for (int i = 0; same && i < a->n_records; i++) {
    cf_v6_pack(&a->records[i], x);
    cf_v6_pack(&b->records[i], y);
    same = memcmp(x, y, CF_V6_BYTES) == 0;
  }
  return same;
}

/* Three games at once, as `--batch-games 3` plays them: each round every
 * game in play searches, all in one cf_search_run_group. */
#define N_GROUP 3
static void test_group_steps_match_alone(cf_test *t) {
  cf_net *net = builtin_net(t);
  if (!net) return;
  sp_settings set = noisy_settings();
  set.resign_percentage = 10; /* and a resignation or two among them */
  cf_position start;
  cf_position_startpos(&start);
  sp_game alone[N_GROUP], grouped[N_GROUP];
  cf_search *s[N_GROUP];
  for (int i = 0; i < N_GROUP; i++) {
    s[i] = noisy_search(t, 0.25);
    CHECK(sp_play(net, s[i], &set, &start, NULL, 0, 40 + (uint64_t)i, NULL, &alone[i], NULL) ==
          CF_OK);
    CHECK(sp_begin(s[i], &set, &start, NULL, 0, 40 + (uint64_t)i, &grouped[i], NULL) == CF_OK);
  }
  cf_search_group_stats gs = {0};
  long calls = 0, rounds_of_many = 0;
  for (;;) {
    cf_search_job jobs[N_GROUP];
    int which[N_GROUP], n = 0;
    for (int i = 0; i < N_GROUP; i++) {
      cf_search_limits lim;
      if (!sp_next(s[i], &set, &grouped[i], &lim)) continue;
      jobs[n] = (cf_search_job){.search = s[i], .game = &grouped[i].game, .limits = lim};
      which[n++] = i;
    }
    if (n == 0) break;
    if (!CHECK(cf_search_run_group(net, jobs, n, &gs, NULL) == CF_OK)) break;
    calls += gs.calls;
    rounds_of_many += n > 1;
    for (int k = 0; k < n; k++)
      CHECK(sp_after_search(net, s[which[k]], &set, &jobs[k].result, &grouped[which[k]], NULL) ==
            CF_OK);
  }
  CHECK(rounds_of_many > 0);
  CHECK(calls > 0); /* the games' leaves went to the network in group calls */
  int resigned = 0;
  for (int i = 0; i < N_GROUP; i++) {
    CHECK(grouped[i].over);
    CHECK(same_games(&alone[i], &grouped[i]));
    resigned += strcmp(alone[i].reason, "resignation") == 0;
    sp_game_free(&alone[i]);
    sp_game_free(&grouped[i]);
    cf_search_free(s[i]);
  }
  CHECK(resigned > 0);
  cf_net_free(net);
}

/* The network's answer for a position, evaluated here on its own. */
static void net_answer(cf_test *t, cf_net *net, const cf_game *g, float wdl[3], float *m,
                       cf_move *moves, float *prior, int *n) {
  cf_net_position np;
  cf_engine_net_position(g, cf_net_get_info(net)->input_format, &np);
  cf_policy_move pm[CF_MAX_MOVES];
  *n = cf_engine_legal_policy_moves(cf_game_position(g), moves, pm);
  float logits[CF_MAX_MOVES];
  cf_net_request req = {.position = &np, .moves = pm, .n_moves = *n};
  cf_net_output out = {0};
  out.policy[CF_POLICY_VANILLA] = logits;
  CHECK(cf_net_eval(net, 1, &req, &out, NULL) == CF_OK);
  memcpy(wdl, out.wdl, sizeof out.wdl);
  *m = out.moves_left;
  double mx = -INFINITY, sum = 0;
  for (int i = 0; i < *n; i++) mx = logits[i] > mx ? logits[i] : mx;
  for (int i = 0; i < *n; i++) sum += exp(logits[i] - mx);
  for (int i = 0; i < *n; i++) prior[i] = (float)(exp(logits[i] - mx) / sum);
}

static void test_orig_and_policy_kld(cf_test *t) {
  cf_net *net = builtin_net(t);
  if (!net) return;
  /* orig_m: the moves-left head's answer; 0 without one, as Lc0's cache
   * holds for such a net */
  const bool has_m = cf_net_get_info(net)->has_moves_left;
  cf_search *s = noisy_search(t, 0.25);
  sp_settings set = noisy_settings();
  set.visits = 16;
  cf_position start;
  cf_position_startpos(&start);
  sp_game g;
  CHECK(sp_begin(s, &set, &start, NULL, 0, 77, &g, NULL) == CF_OK);
  cf_search_limits lim;
  int checked = 0, positive = 0;
  while (sp_next(s, &set, &g, &lim) && g.n_records < 30) {
    cf_search_result res;
    if (!CHECK(cf_search_run(s, net, &g.game, &lim, NULL, NULL, &res, NULL) == CF_OK)) break;
    cf_search_move_stats root;
    int n_root;
    CHECK(cf_search_root_node_stats(s, &root, &n_root));
    float wdl[3], m, prior[CF_MAX_MOVES];
    cf_move moves[CF_MAX_MOVES];
    int n;
    net_answer(t, net, &g.game, wdl, &m, moves, prior, &n);
    const bool black = cf_game_position(&g.game)->side == CF_BLACK;
    CHECK(sp_after_search(net, s, &set, &res, &g, NULL) == CF_OK);
    const cf_v6 *r = &g.records[g.n_records - 1];
    CHECK(r->orig_q == root.v); /* the root's network value, as VerboseMoveStats' V shows it */
    CHECK_NEAR(r->orig_q, wdl[0] - wdl[2], 1e-4);
    CHECK_NEAR(r->orig_d, wdl[1], 1e-4);
    CHECK_NEAR(r->orig_m, has_m ? m : 0.0f, 1e-3);
    /* KL(visits || priors) from the record's shares and the priors here */
    const int transform = cf_input_is_canonical((int)r->input_format) ? r->invariance_info & 7 : 0;
    double kl = 0;
    for (int i = 0; i < n; i++) {
      const float f = r->probabilities[cf_policy_move_index(cf_engine_policy_move(moves[i]), black,
                                                            transform)];
      if (f > 0) kl += f * log(f / prior[i]);
    }
    CHECK(r->policy_kld > 0);
    CHECK_NEAR(r->policy_kld, kl, 1e-3 + 1e-3 * kl);
    positive += r->policy_kld > 0.01f; /* visits that left the priors */
    checked++;
  }
  CHECK(checked >= 20);
  CHECK(positive > 0);
  sp_game_free(&g);
  cf_search_free(s);
  cf_net_free(net);
}

CF_TEST_MAIN(test_noise, test_game_matches_pgn, test_repeats_from_seed, test_chunk_round_trip,
             test_resign, test_temperature_from_fen_move, test_group_steps_match_alone,
             test_orig_and_policy_kld)
