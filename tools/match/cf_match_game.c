/* cf_match_game.c: the game loop: position startpos moves ..., go movetime (or nodes),
 * bestmove, check and play it, adjudicate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chess/cf_move_uci.h"
#include "tools/match/cf_match_game.h"

/* The position command for the game so far. */
static char *position_command(const cf_game *g) {
  size_t cap = 32 + (size_t)g->count * 6;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t at = (size_t)snprintf(s, cap, "position startpos%s", g->count > 1 ? " moves" : "");
  for (int i = 1; i < g->count; i++) {
    char m[CF_UCI_MOVE_MAX];
    cf_move_write_uci(g->plies[i].move, 0, m);
    at += (size_t)snprintf(s + at, cap - at, " %s", m);
  }
  return s;
}

static void forfeit(cf_match_game_result *out, bool white_failed, const char *fmt,
                    const char *a, const char *b) {
  out->result = white_failed ? CF_RESULT_BLACK_WINS : CF_RESULT_WHITE_WINS;
  snprintf(out->reason, sizeof out->reason, fmt, a, b);
  out->rules_end = false;
}

cf_status cf_match_play(cf_engine_proc *white, cf_engine_proc *black, const char *opening,
                        const cf_match_limits *limits, cf_match_game_result *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  CF_TRY(cf_game_init(&out->game, NULL, err));
  char *copy = strdup(opening ? opening : "");
  if (!copy) {
    cf_game_free(&out->game);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  }
  for (char *s = NULL, *m = strtok_r(copy, " \t", &s); m; m = strtok_r(NULL, " \t", &s)) {
    if (cf_game_push_uci(&out->game, m, err) != CF_OK) {
      free(copy);
      cf_game_free(&out->game);
      cf_error_prefix(err, "opening '%s'", opening);
      return err ? err->status : CF_ERR_ARG;
    }
  }
  free(copy);
  out->opening_plies = out->game.count - 1;
  int max_plies = limits->max_plies > 0 ? limits->max_plies : 1000;
  out->clock_left_ms[0] = out->clock_left_ms[1] = limits->tc_base_ms;
  cf_engine_proc *side[2] = {white, black};
  char line[CF_PROC_LINE_MAX], info[CF_PROC_LINE_MAX];
  cf_error e = {0};
  for (int i = 0; i < 2; i++)
    if (cf_engine_send(side[i], "ucinewgame", &e) != CF_OK) {
      forfeit(out, i == 0, "%s crashed%s", side[i]->name, "");
      return CF_OK;
    }
  for (;;) {
    cf_game_reason reason;
    cf_game_result r = cf_game_outcome(&out->game, &reason);
    if (r != CF_RESULT_ONGOING) {
      out->result = r;
      snprintf(out->reason, sizeof out->reason, "%s", cf_game_reason_name(reason));
      out->rules_end = true;
      return CF_OK;
    }
    if (out->game.count - 1 >= max_plies) {
      out->result = CF_RESULT_DRAW;
      snprintf(out->reason, sizeof out->reason, "adjudicated draw after %d plies", max_plies);
      return CF_OK;
    }
    int us = cf_game_position(&out->game)->side == CF_WHITE ? 0 : 1;
    cf_engine_proc *p = side[us];
    char *pos = position_command(&out->game);
    char go[160];
    long nodes = limits->nodes[us];
    const bool clocked = nodes <= 0 && limits->tc_base_ms > 0;
    int wait_ms;
    if (nodes > 0) {
      snprintf(go, sizeof go, "go nodes %ld", nodes);
      wait_ms = CF_MATCH_NODES_WAIT_MS + limits->margin_ms;
    } else if (clocked) {
      snprintf(go, sizeof go, "go wtime %.0f btime %.0f winc %.0f binc %.0f",
               out->clock_left_ms[0], out->clock_left_ms[1], limits->tc_inc_ms, limits->tc_inc_ms);
      wait_ms = (int)out->clock_left_ms[us] + limits->margin_ms;
    } else {
      snprintf(go, sizeof go, "go movetime %d", limits->movetime_ms);
      wait_ms = limits->movetime_ms + limits->margin_ms;
    }
    info[0] = 0;
    cf_status st = pos ? cf_engine_send(p, pos, &e) : CF_ERR_NOMEM;
    free(pos);
    const double sent_at = cf_engine_now_ms();
    if (st == CF_OK) st = cf_engine_send(p, go, &e);
    if (st == CF_OK)
      st = cf_engine_expect(p, "bestmove", wait_ms, line, info, &e);
    if (clocked && st == CF_OK) {
      /* the whole round trip counts, as a GUI's clock counts it */
      out->clock_left_ms[us] -= cf_engine_now_ms() - sent_at;
      if (out->clock_left_ms[us] < 0) {
        forfeit(out, us == 0, "%s lost on time%s", p->name, " (clock)");
        return CF_OK;
      }
      out->clock_left_ms[us] += limits->tc_inc_ms;
    }
    if (st == CF_ERR_BACKEND) {
      /* Say what was waited for, so a loss on time can be found in the
       * engine's log (LogFile) and told from a hung engine. */
      char detail[sizeof go + 64];
      snprintf(detail, sizeof detail, " (no bestmove %d ms after '%s', move %d%s)", wait_ms, go,
               cf_game_position(&out->game)->fullmove, us == 0 ? "" : "...");
      forfeit(out, us == 0, "%s lost on time%s", p->name, detail);
      return CF_OK;
    }
    if (st != CF_OK) {
      forfeit(out, us == 0, "%s crashed%s", p->name, "");
      return CF_OK;
    }
    char text[16] = "";
    sscanf(line + 8, "%15s", text);
    cf_move m;
    if (cf_move_parse_uci(cf_game_position(&out->game), text, &m, &e) != CF_OK ||
        cf_game_push(&out->game, m, &e) != CF_OK) {
      forfeit(out, us == 0, "illegal move '%s' by %s", text, p->name);
      return CF_OK;
    }
    const char *reported = strstr(info, " nodes ");
    if (reported) out->evals_sum[us] += atol(reported + 7);
    out->engine_moves[us]++;
  }
}

uint64_t cf_match_game_key(const cf_game *game) {
  uint64_t h = 14695981039346656037ull;
  for (int i = 1; i < game->count; i++) {
    cf_move m = game->plies[i].move;
    h = (h ^ (m & 0xff)) * 1099511628211ull;
    h = (h ^ (m >> 8)) * 1099511628211ull;
  }
  return h;
}
