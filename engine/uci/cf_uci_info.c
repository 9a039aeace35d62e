/* cf_uci_info.c: the lines that report a move: info (the search's, with
 * MultiPV; the one-ply agents'), VerboseMoveStats, bestmove, and the move
 * played without the network. Every line goes out through cf_uci_emit,
 * which cleans it (cf_uci_text.h) and logs it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/cf_clock.h"
#include "chess/cf_move_uci.h"
#include "engine/cf_instant_move.h"
#include "engine/cf_net_input.h"
#include "engine/search/cf_search_wdl.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_score.h"
#include "engine/uci/cf_uci_text.h"
#include "engine/syzygy/cf_syzygy.h"
#include "policy_head/cf_policy_map.h"

void cf_uci_emit(cf_uci *u, const char *fmt, ...) {
  /* Lines quote input (commands, values, FENs, file names) and files (a
   * network's license): cleaned, so no control character or invalid UTF-8
   * reaches the GUI (cf_uci_text.h says how). */
  char line[4096], clean[4 * sizeof line];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  cf_uci_text_clean(line, clean, sizeof clean);
  pthread_mutex_lock(&u->out_mu);
  u->write(u->user, clean);
  cf_uci_log_line(u->log, CF_UCI_LOG_OUT, clean, strlen(clean)); /* under out_mu: in order */
  pthread_mutex_unlock(&u->out_mu);
}

void cf_uci_say(cf_uci *u, const char *fmt, ...) {
  char line[sizeof u->said.held[0]];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (!u->say_at_search) {
    cf_uci_emit(u, "info string %s", line);
    return;
  }
  pthread_mutex_lock(&u->out_mu);
  if (u->said.n_held < CF_UCI_HELD_MAX) snprintf(u->said.held[u->said.n_held++], sizeof line, "%s", line);
  else u->said.dropped++;
  pthread_mutex_unlock(&u->out_mu);
}

void cf_uci_release_said(cf_uci *u) {
  pthread_mutex_lock(&u->out_mu);
  cf_uci_notes said = u->said;
  u->said = (cf_uci_notes){0};
  pthread_mutex_unlock(&u->out_mu);
  for (int i = 0; i < said.n_held; i++) cf_uci_emit(u, "info string %s", said.held[i]);
  if (said.dropped) cf_uci_emit(u, "info string (%d more messages not shown)", said.dropped);
}

/* Castling notation of the current game's moves: king takes rook under
 * UCI_Chess960 or in a Chess960 position (cf_move_uci_king_takes_rook). */
int cf_uci_king_takes_rook(const cf_uci *u) {
  return cf_move_uci_king_takes_rook(cf_game_position(&u->game), u->opt[CF_OPT_UCI_CHESS960].on);
}

/* " wdl W D L" when UCI_ShowWDL is on. */
static void wdl_text(const cf_uci *u, float wl, float d, char *out, size_t size) {
  out[0] = 0;
  if (!u->opt[CF_OPT_SHOW_WDL].on) return;
  int p[3];
  cf_uci_wdl_from_wl(wl, d, p);
  snprintf(out, size, " wdl %d %d %d", p[0], p[1], p[2]);
}

/* " movesleft N" when UCI_ShowMovesLeft is on and the network has a
 * moves-left head: Lc0's (1 + plies left after the move) / 2, in moves. */
static void moves_left_text(const cf_uci *u, float plies, char *out, size_t size) {
  out[0] = 0;
  if (!u->opt[CF_OPT_SHOW_MOVESLEFT].on || !u->net || !cf_net_get_info(u->net)->has_moves_left ||
      isnan(plies))
    return;
  snprintf(out, size, " movesleft %d", (int)((1.0f + plies) / 2.0f));
}

/* " eps N" (network evaluations per second) when UCI_ShowEPS is on. */
static void eps_text(const cf_uci *u, long evals, double seconds, char *out, size_t size) {
  out[0] = 0;
  if (!u->opt[CF_OPT_SHOW_EPS].on) return;
  snprintf(out, size, " eps %ld", seconds > 0 ? (long)((double)evals / seconds) : 0L);
}

/* Moves as " m1 m2 ..." into out. */
static void moves_text(const cf_uci *u, const cf_move *moves, int n, char *out, size_t size) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < n && at + CF_UCI_MOVE_MAX + 1 < size; i++) {
    char m[CF_UCI_MOVE_MAX];
    cf_move_write_uci(moves[i], cf_uci_king_takes_rook(u), m);
    at += (size_t)snprintf(out + at, size - at, " %s", m);
  }
}

/* The search's info line(s): one per MultiPV line, best first. */
static void emit_search_info(cf_uci *u, const cf_search *s, const cf_search_info *info) {
  const int multipv = (int)u->opt[CF_OPT_MULTIPV].i;
  cf_search_move_stats stats[CF_MAX_MOVES];
  int n = cf_search_root_stats(s, stats, multipv < CF_MAX_MOVES ? multipv : CF_MAX_MOVES);
  const long ms = (long)(info->seconds * 1000.0);
  const long nps = info->seconds > 0 ? (long)((double)info->playouts / info->seconds) : 0;
  if (n == 0) { /* before the root's first evaluation */
    cf_uci_emit(u, "info depth %d seldepth %d time %ld nodes %ld nps %ld", info->depth, info->seldepth,
         ms, info->visits, nps);
    return;
  }
  for (int k = 0; k < n; k++) {
    const cf_search_move_stats *m = &stats[k];
    float wl, d;
    int mate = 0;
    if (k == 0) { /* the best line carries the search's own figures */
      wl = info->wdl[0] - info->wdl[2];
      d = info->wdl[1];
      mate = info->mate;
    } else if (m->n > 0) {
      wl = m->wl;
      d = m->d;
      mate = m->mate;
    } else { /* an unvisited move: the root's own value, as Lc0 shows it */
      wl = info->root_wdl[0] - info->root_wdl[2];
      d = info->root_wdl[1];
    }
    float q = k == 0 ? info->q : m->n > 0 ? m->q : info->root_q;
    /* The reported view of W/D/L (contempt taken out by
     * WDLEvalObjectivity); Q, with the draw score, stays the search's. */
    const char *score_type = u->opt[CF_OPT_SCORE_TYPE].text;
    cf_search_reported_wdl(s, strcmp(score_type, "WDL_mu") == 0, &wl, &d);
    char score[48], wdl[48], pv[CF_AGENT_PV_MAX * (CF_UCI_MOVE_MAX + 1) + 1], mpv[24] = "";
    cf_uci_score_text(score_type, wl, d, q, mate, score, sizeof score);
    wdl_text(u, wl, d, wdl, sizeof wdl);
    cf_move line[CF_AGENT_PV_MAX];
    int len = cf_search_pv(s, m->move, line, CF_AGENT_PV_MAX);
    moves_text(u, line, len, pv, sizeof pv);
    if (multipv > 1) snprintf(mpv, sizeof mpv, " multipv %d", k + 1);
    char left[32] = "";
    moves_left_text(u, m->n > 0 ? m->m : 1.0f + info->root_m, left, sizeof left);
    /* tbhits once tables are loaded (Lc0's place for it: after nps). */
    char tb[32] = "";
    if (cf_syzygy_max_pieces() > 0) snprintf(tb, sizeof tb, " tbhits %ld", info->tb_hits);
    /* PerPVCounters: each line counts its own move's visits (Lc0's). */
    const long nodes = u->opt[CF_OPT_PER_PV_COUNTERS].on ? (long)m->n : info->visits;
    char eps[32] = "";
    eps_text(u, info->evals, info->seconds, eps, sizeof eps);
    cf_uci_emit(u, "info depth %d seldepth %d time %ld nodes %ld%s score %s%s%s nps %ld%s%s hashfull %d pv%s",
         info->depth, info->seldepth, ms, nodes, mpv, score, wdl, left, nps, eps, tb,
         info->hashfull, pv);
  }
}

void cf_uci_on_search_info(void *user, const cf_search *s, const cf_search_info *info) {
  emit_search_info(user, s, info);
}

/* VerboseMoveStats' last line: the root itself ("node"), as Lc0 ends its
 * list: the root's number of moves in the index column, the policy of its
 * visited moves as P, its own W/D/L, Q and network value from the side to
 * move; no U or S (nothing chooses the root). */
static void emit_root_node_stats(cf_uci *u, float draw_score) {
  cf_search_move_stats r;
  int n_moves = 0;
  if (!cf_search_root_node_stats(u->search, &r, &n_moves)) return;
  char wl[16] = "  -.-----", d[16] = "-.---", ml[16] = " -.-", q[16] = " -.-----", v[16] = " -.----";
  if (r.n > 0) {
    float rwl = r.wl, rd = r.d;
    cf_search_reported_wdl(u->search, true, &rwl, &rd);
    snprintf(wl, sizeof wl, "%8.5f", rwl);
    snprintf(d, sizeof d, "%5.3f", rd);
    snprintf(ml, sizeof ml, "%4.1f", r.m);
    snprintf(q, sizeof q, "%8.5f", rwl + draw_score * rd);
  }
  if (!isnan(r.v)) snprintf(v, sizeof v, "%7.4f", r.v);
  const char *proof = r.proven == 1 ? " (W)" : r.proven == -1 ? " (L)" : r.proven == 0 ? " (D)" : "";
  /* P: two decimals, or one once it rounds to 100% (Lc0's width). */
  char p[16];
  snprintf(p, sizeof p, r.p >= 0.99995f ? "%5.1f" : "%5.2f", 100.0 * r.p);
  cf_uci_emit(u, "info string node  (%4d) N: %7u (+%2u) (P: %s%%) (WL: %s) (D: %s) (M: %s) "
          "(Q: %s) (V: %s)%s",
       n_moves, r.n, r.in_flight, p, wl, d, ml, q, v, proof);
}

/* VerboseMoveStats: a line per root move, Lc0's layout, best last. */
static void emit_move_stats(cf_uci *u) {
  cf_search_move_stats stats[CF_MAX_MOVES];
  int n = cf_search_root_stats(u->search, stats, CF_MAX_MOVES);
  const cf_position *pos = cf_game_position(&u->game);
  /* DrawScore is White's; Q is from the side to move. */
  const float ds = cf_search_get_params(u->search)->draw_score;
  const float draw_score = pos->side == CF_WHITE ? ds : -ds;
  for (int k = n - 1; k >= 0; k--) {
    const cf_search_move_stats *m = &stats[k];
    char move[CF_UCI_MOVE_MAX], wl[16] = "  -.-----", d[16] = "-.---", ml[16] = " -.-", v[16] = " -.----";
    cf_move_write_uci(m->move, cf_uci_king_takes_rook(u), move);
    int index = cf_policy_move_index(cf_engine_policy_move(m->move), pos->side == CF_BLACK, 0);
    /* Shown as Lc0 shows them: W/D/L in the reported view
     * (WDLEvalObjectivity), Q made of those; S is the search's own Q + U
     * plus the moves-left utility, the score selection compares (Lc0's). */
    float shown_q = m->q;
    if (m->n > 0) {
      float mwl = m->wl, md = m->d;
      cf_search_reported_wdl(u->search, true, &mwl, &md);
      shown_q = m->q + (mwl - m->wl) + draw_score * (md - m->d);
      snprintf(wl, sizeof wl, "%8.5f", mwl);
      snprintf(d, sizeof d, "%5.3f", md);
      snprintf(ml, sizeof ml, "%4.1f", m->m);
    }
    if (!isnan(m->v)) snprintf(v, sizeof v, "%7.4f", m->v);
    const char *proof = m->proven == 1 ? " (W)" : m->proven == -1 ? " (L)" : m->proven == 0 ? " (D)" : "";
    cf_uci_emit(u, "info string %-5s (%4d) N: %7u (+%2u) (P: %5.2f%%) (WL: %s) (D: %s) (M: %s) "
            "(Q: %8.5f) (U: %7.5f) (S: %8.5f) (V: %s)%s",
         move, index, m->n, m->in_flight, 100.0 * m->p, wl, d, ml, shown_q, m->u,
         m->q + m->u + m->m_utility, v,
         proof);
  }
  emit_root_node_stats(u, draw_score);
}

/* The one-ply agents' info line(s): one per MultiPV line in the agent's
 * ranking, each with its own value and the reply the child's policy expects
 * (the best line's reply is the ponder move). Unscored moves carry the
 * root's value, as Lc0 shows unvisited ones. */
static void emit_one_ply_info(cf_uci *u, const cf_agent_result *r, double elapsed) {
  const int multipv = (int)u->opt[CF_OPT_MULTIPV].i;
  const long ms = (long)(elapsed * 1000.0);
  const long nps = elapsed > 0 ? (long)((double)r->evals / elapsed) : 0;
  int lines = r->n_moves < multipv ? r->n_moves : multipv;
  if (lines < 1) lines = 1;
  for (int k = 0; k < lines; k++) {
    /* the best line carries the result's own figures (equal to moves[0]'s) */
    const cf_agent_move_stats *m = r->n_moves > 0 ? &r->moves[k] : NULL;
    cf_move line[2] = {k == 0 ? r->best : m->move, k == 0 ? r->ponder : m->reply};
    const float *wdl3 = k == 0 ? r->wdl : m->wdl;
    float q = k == 0 ? r->q : m->q;
    int mate = k == 0 ? r->mate : m->proven == 1;
    float wl = wdl3[0] - wdl3[2];
    char score[48], wdl[48], pv[2 * (CF_UCI_MOVE_MAX + 1) + 1], mpv[24] = "";
    cf_uci_score_text(u->opt[CF_OPT_SCORE_TYPE].text, wl, wdl3[1], q, mate, score, sizeof score);
    wdl_text(u, wl, wdl3[1], wdl, sizeof wdl);
    moves_text(u, line, line[1] != CF_MOVE_NONE ? 2 : 1, pv, sizeof pv);
    if (multipv > 1) snprintf(mpv, sizeof mpv, " multipv %d", k + 1);
    char left[32] = "";
    if (m) moves_left_text(u, m->moves_left, left, sizeof left);
    cf_uci_emit(u, "info depth 1 seldepth 1 time %ld nodes %ld%s score %s%s%s nps %ld pv%s", ms,
         r->evals, mpv, score, wdl, left, nps, pv);
  }
}

/* VerboseMoveStats for the one-ply agents, in the search's layout, best
 * last: N is 1 for a move the network scored, U and S do not exist here. */
static void emit_one_ply_move_stats(cf_uci *u, const cf_agent_result *r) {
  const cf_position *pos = cf_game_position(&u->game);
  for (int k = r->n_moves - 1; k >= 0; k--) {
    const cf_agent_move_stats *m = &r->moves[k];
    char move[CF_UCI_MOVE_MAX], wl[16] = "  -.-----", d[16] = "-.---", ml[16] = " -.-",
                                q[16] = " -.-----", v[16] = " -.----";
    cf_move_write_uci(m->move, cf_uci_king_takes_rook(u), move);
    int index = cf_policy_move_index(cf_engine_policy_move(m->move), pos->side == CF_BLACK, 0);
    if (m->scored) {
      snprintf(wl, sizeof wl, "%8.5f", m->wdl[0] - m->wdl[2]);
      snprintf(d, sizeof d, "%5.3f", m->wdl[1]);
      snprintf(q, sizeof q, "%8.5f", m->q);
      if (!isnan(m->moves_left)) snprintf(ml, sizeof ml, "%4.1f", m->moves_left);
      if (m->by_net) snprintf(v, sizeof v, "%7.4f", m->q);
    }
    const char *proof = m->proven == 1 ? " (W)" : m->proven == 0 ? " (D)" : "";
    cf_uci_emit(u, "info string %-5s (%4d) N: %7d (+ 0) (P: %5.2f%%) (WL: %s) (D: %s) (M: %s) "
            "(Q: %s) (U: -.-----) (S: -.-----) (V: %s)%s",
         move, index, m->by_net ? 1 : 0, 100.0 * m->p, wl, d, ml, q, v, proof);
  }
}

/* The agent's last info line(s) and VerboseMoveStats: the search's final
 * figures, or the one-ply agents' lines. */
void cf_uci_emit_final_info(cf_uci *u, const cf_agent_result *r, double elapsed) {
  if (cf_agent_has(u->agent, CF_AGENT_BUILDS_TREE)) {
    /* The final figures, as the search left them. */
    cf_search_info info = {.best = r->best, .q = r->q, .mate = r->mate, .depth = r->depth,
                           .seldepth = r->seldepth, .visits = r->nodes, .playouts = r->playouts,
                           .evals = r->evals, .seconds = elapsed, .hashfull = r->hashfull,
                           .tb_hits = r->tb_hits};
    memcpy(info.wdl, r->wdl, sizeof info.wdl);
    info.root_q = r->root_q;
    info.root_m = r->root_m; /* an unvisited MultiPV move shows it, as Lc0 does */
    memcpy(info.root_wdl, r->root_wdl, sizeof info.root_wdl);
    emit_search_info(u, u->search, &info);
    if (u->opt[CF_OPT_VERBOSE_MOVE_STATS].on) emit_move_stats(u);
    return;
  }
  emit_one_ply_info(u, r, elapsed);
  if (u->opt[CF_OPT_VERBOSE_MOVE_STATS].on) emit_one_ply_move_stats(u, r);
}

void cf_uci_emit_bestmove(cf_uci *u, const cf_agent_result *r) {
  const int chess960 = cf_uci_king_takes_rook(u);
  char move[CF_UCI_MOVE_MAX], ponder[CF_UCI_MOVE_MAX + 8] = "";
  cf_move_write_uci(r->best, chess960, move);
  if (r->ponder != CF_MOVE_NONE) {
    char p[CF_UCI_MOVE_MAX];
    cf_move_write_uci(r->ponder, chess960, p);
    snprintf(ponder, sizeof ponder, " ponder %s", p);
  }
  cf_uci_emit(u, "bestmove %s%s", move, ponder);
}

/* Go at a root without a legal move: the game's result as a depth-0 line a
 * GUI shows as the score (the side to move mated: mate 0, W/D/L 0/0/1;
 * stalemate: the draw on ScoreType's scale, cp 0 by default, 0/1/0), the
 * best line of MultiPV, with no pv, and why in words (not an error: the
 * position is legal, only over). */
void cf_uci_emit_game_over(cf_uci *u, cf_game_reason reason) {
  const bool mated = reason == CF_REASON_CHECKMATE;
  const float wl = mated ? -1.0f : 0.0f, d = mated ? 0.0f : 1.0f;
  char score[48], wdl[48], mpv[24] = "";
  if (mated) snprintf(score, sizeof score, "mate 0"); /* cf_uci_score_text writes no mate 0 */
  else cf_uci_score_text(u->opt[CF_OPT_SCORE_TYPE].text, wl, d, 0.0f, 0, score, sizeof score);
  wdl_text(u, wl, d, wdl, sizeof wdl);
  if (u->opt[CF_OPT_MULTIPV].i > 1) snprintf(mpv, sizeof mpv, " multipv 1");
  cf_uci_emit(u, "info depth 0 seldepth 0 time %ld nodes 0%s score %s%s",
              (long)((cf_clock_now() - u->start) * 1000.0), mpv, score, wdl);
  cf_uci_emit(u, "info string %s: no legal move, the game is over (%s)",
              cf_game_reason_name(reason), mated ? "lost for the side to move" : "drawn");
}

/* A move without the network (time trouble, or a stop during the load):
 * no tree; the clock's budget is not recorded, so nothing is saved or
 * spent from it. why names the reason in the info string. */
void cf_uci_play_instant(cf_uci *u, const char *why) {
  const cf_position *pos = cf_game_position(&u->game);
  cf_agent_result r = {.best = cf_instant_move(pos), .ponder = CF_MOVE_NONE};
  char move[CF_UCI_MOVE_MAX];
  cf_move_write_uci(r.best, cf_uci_king_takes_rook(u), move);
  cf_uci_emit(u, "info depth 0 seldepth 0 time %ld nodes 0 pv %s",
       (long)((cf_clock_now() - u->clock.start) * 1000.0), move);
  cf_uci_emit(u, "info string %s: %s played without the network", why, move);
  cf_uci_emit_bestmove(u, &r);
}

cf_status cf_uci_log_changed(cf_uci *u, cf_error *err) {
  (void)err;
  cf_error why = {0};
  if (cf_uci_log_open(u->log, u->opt[CF_OPT_LOG_FILE].text, &why) == CF_OK) return CF_OK;
  u->opt[CF_OPT_LOG_FILE] = (cf_uci_value){0};
  cf_uci_note(u, "info string error: %s; logging is off", why.msg);
  return CF_OK;
}

void cf_uci_note(cf_uci *u, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (u->notes.greeted) cf_uci_emit(u, "%s", line);
  else if (u->notes.n_held < CF_UCI_HELD_MAX) snprintf(u->notes.held[u->notes.n_held++], sizeof u->notes.held[0], "%s", line);
}

void cf_uci_release_held(cf_uci *u) {
  for (int i = 0; i < u->notes.n_held; i++) cf_uci_emit(u, "%s", u->notes.held[i]);
  u->notes.n_held = 0;
}

void cf_uci_notes_reset(cf_uci *u) {
  u->notes = (cf_uci_notes){0};
  pthread_mutex_lock(&u->out_mu);
  u->said = (cf_uci_notes){0};
  pthread_mutex_unlock(&u->out_mu);
}
