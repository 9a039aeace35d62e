/* cf_syzygy.h: Syzygy endgame tablebases, read with Fathom (Debian's
 * libfathom-dev), the way Lc0 uses them.
 *
 * Loading takes Lc0's SyzygyPath spelling: directories separated by ':'.
 * Every directory and every table file in it is checked before the prober
 * sees it (cf_syzygy_dir.h, cf_syzygy_file.h), because Fathom trusts its
 * files: a truncated table would be read past its end. A directory with any
 * problem is left out whole and named in the report, and the rest load.
 *
 * Probing follows Lc0's search:
 *   - in the tree, a position with at most the tables' piece count, no
 *     castling rights and a zero rule-50 count (just after a capture or a
 *     pawn move) is scored from WDL, cursed wins and blessed losses as draws;
 *   - at the root, the legal moves are ranked by DTZ (falling back to WDL
 *     when a DTZ probe fails) and only the equal best are kept, so a won
 *     position is converted within the fifty-move rule.
 *
 * The prober is one per process (Fathom keeps global state): load and unload
 * only while no search probes; probing from several threads is safe. In a
 * build without Fathom, loading answers CF_ERR_UNSUPPORTED and every probe
 * answers "not in the tables". */
#ifndef CF_SYZYGY_H
#define CF_SYZYGY_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "common/cf_status.h"

/* The most pieces Fathom's prober reads (its TB_PIECES). */
#define CF_SYZYGY_MAX_PIECES 7
/* The longest SyzygyPath accepted, in bytes. */
#define CF_SYZYGY_PATH_MAX 4096
/* How many error messages a report keeps (it counts them all). */
#define CF_SYZYGY_MESSAGES_MAX 8

typedef struct cf_syzygy_report {
  int wdl_tables;  /* WDL tables (.rtbw) in use */
  int dtz_tables;  /* DTZ tables (.rtbz) in use */
  int max_pieces;  /* the largest piece count among them; 0 when none */
  int error_count; /* problems found; the first CF_SYZYGY_MESSAGES_MAX are below */
  char errors[CF_SYZYGY_MESSAGES_MAX][CF_ERROR_MSG_MAX];
} cf_syzygy_report;

/* Win/draw/loss for the side to move, as the tables store it. */
typedef enum cf_syzygy_wdl {
  CF_SYZYGY_LOSS = -2,
  CF_SYZYGY_BLESSED_LOSS = -1, /* lost, but the fifty-move rule saves it */
  CF_SYZYGY_DRAW = 0,
  CF_SYZYGY_CURSED_WIN = 1,    /* won, but not within the fifty-move rule */
  CF_SYZYGY_WIN = 2
} cf_syzygy_wdl;

/* How the root moves were filtered. */
typedef enum cf_syzygy_root {
  CF_SYZYGY_ROOT_NONE = 0, /* not in the tables (or a probe failed): all moves stay */
  CF_SYZYGY_ROOT_DTZ,      /* ranked by DTZ: the fifty-move rule is respected */
  CF_SYZYGY_ROOT_WDL       /* ranked by WDL only (DTZ tables missing) */
} cf_syzygy_root;

/* Whether this build can read tables at all. */
int cf_syzygy_available(void);

/* Replaces the loaded tables with those in `paths` (':'-separated
 * directories; "" or "<empty>" unloads). Fills *report (never NULL). Returns
 * CF_OK when every directory loaded cleanly, else the status of the first
 * problem, with every problem's message in report->errors; the directories
 * without problems are loaded either way. */
cf_status cf_syzygy_load(const char *paths, cf_syzygy_report *report);

/* Drops all tables (safe to call when none are loaded). */
void cf_syzygy_unload(void);

/* The largest piece count of the loaded tables; 0 when none are loaded. */
int cf_syzygy_max_pieces(void);

/* Whether the in-tree rule lets pos be probed: pieces within the tables'
 * count, no castling rights, rule-50 count zero. Cheap; no table access. */
int cf_syzygy_tree_probeable(const cf_position *pos);

/* The in-tree probe: 1 and *wdl (side to move's view) when pos passes
 * cf_syzygy_tree_probeable and the tables answer; 0 otherwise. */
int cf_syzygy_probe_wdl(const cf_position *pos, cf_syzygy_wdl *wdl);

/* The root filter: when pos is in the tables (piece count, no castling
 * rights), fills *safe with the legal moves that keep the best result and
 * says how they were ranked. `has_repeated`: the position occurred before
 * since the last capture or pawn move (then wins are no longer ranked as
 * certain, as in Lc0). Returns CF_SYZYGY_ROOT_NONE, with safe->count 0,
 * otherwise. Thread-safe (concurrent calls take turns). */
cf_syzygy_root cf_syzygy_root_filter(const cf_position *pos, int has_repeated, cf_movelist *safe);
/* cf_syzygy_root_filter, and *result (when not NULL and the root is in the
 * tables): the root's result for the side to move, from its best move's
 * rank (a win or loss the fifty-move rule spoils is a cursed win or blessed
 * loss; by WDL alone, as the tables store it). */
cf_syzygy_root cf_syzygy_root_probe(const cf_position *pos, int has_repeated, cf_movelist *safe,
                                    cf_syzygy_wdl *result);

/* Adds a message to the report (counted always, kept while there is room).
 * For the loader's parts; callers read report->errors. */
void cf_syzygy_report_error(cf_syzygy_report *report, const cf_error *err);

#endif /* CF_SYZYGY_H */
