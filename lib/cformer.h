/* cformer.h: libcformer's public interface, the one header a program needs
 * to run Chessformer-style (and other Lc0 transformer) networks.
 *
 *     cformer_net *net;
 *     cformer_error err;
 *     if (cformer_open_builtin(NULL, &net, &err) != CFORMER_OK) {
 *       fprintf(stderr, "%s\n", err.message);
 *       return 1;
 *     }
 *     const char *moves[] = {"e2e4", "e7e5"};
 *     cformer_position pos = {.fen = NULL, .moves = moves, .n_moves = 2};
 *     cformer_eval ev;
 *     if (cformer_evaluate(net, 1, &pos, 1.0f, &ev, &err) == CFORMER_OK)
 *       printf("W %.3f D %.3f L %.3f, best %s\n", ev.wdl[0], ev.wdl[1], ev.wdl[2],
 *              ev.policy[0].move);
 *     cformer_close(net);
 *
 * Link with `pkg-config --cflags --libs cformer` (shared) or
 * `pkg-config --static --cflags --libs cformer` (static).
 *
 * Errors: every function that can fail returns a cformer_status and, when
 * err is not NULL, fills it with the same status and a one-line message that
 * names the cause (the file, the field, the move, the option). Nothing in the
 * library prints, aborts or exits.
 *
 * Threads: a cformer_net must not be used by two threads at once (give each
 * thread its own net, or serialise the calls). Different nets are
 * independent. cformer_version and cformer_status_name may be called from
 * any thread at any time.
 *
 * Stability: this header is the whole interface. Structs passed in are read
 * only during the call; structs written out are the caller's. New fields are
 * only ever appended to option structs, and a zeroed option struct always
 * means "the defaults". The layout of the result structs (cformer_eval,
 * cformer_choice, cformer_net_info, cformer_arrays, cformer_search_result)
 * changes only with the major version, so
 * bindings that mirror them (the Python package) check the major version. */
#ifndef CFORMER_H
#define CFORMER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CFORMER_VERSION_MAJOR 0
#define CFORMER_VERSION_MINOR 1
#define CFORMER_VERSION_PATCH 0
#define CFORMER_VERSION_STRING "0.1.0"
/* One number for comparisons: 10000 * major + 100 * minor + patch. */
#define CFORMER_VERSION (CFORMER_VERSION_MAJOR * 10000 + CFORMER_VERSION_MINOR * 100 + \
                         CFORMER_VERSION_PATCH)

#if defined(__GNUC__)
#define CFORMER_API __attribute__((visibility("default")))
#else
#define CFORMER_API
#endif

/* The version of the library actually loaded (compare with
 * CFORMER_VERSION_STRING, the one compiled against). */
CFORMER_API const char *cformer_version(void);

typedef enum cformer_status {
  CFORMER_OK = 0,
  CFORMER_ERR_ARG = 1,         /* a bad argument: FEN, move, option, agent, NULL pointer */
  CFORMER_ERR_IO = 2,          /* a file could not be opened or read */
  CFORMER_ERR_FORMAT = 3,      /* a weights file is malformed */
  CFORMER_ERR_UNSUPPORTED = 4, /* well-formed, but not something cformer runs */
  CFORMER_ERR_NOMEM = 5,       /* out of memory, or a size limit exceeded */
  CFORMER_ERR_BACKEND = 6,     /* a compute backend failed or is unavailable */
  CFORMER_ERR_INTERNAL = 7     /* a bug in cformer */
} cformer_status;

#define CFORMER_ERROR_MAX 512

typedef struct cformer_error {
  cformer_status status;
  char message[CFORMER_ERROR_MAX];
} cformer_error;

/* "ok", "bad argument", "i/o error", ... */
CFORMER_API const char *cformer_status_name(cformer_status status);

/* ---- opening a network ------------------------------------------------- */

typedef struct cformer_net cformer_net;

typedef struct cformer_options {
  const char *backend;         /* "onednn", "openblas", "ref", "cuda"; NULL, "" or "auto" =
                                  the best available */
  const char *backend_options; /* "key=value,..." as the UCI option BackendOptions; NULL = none */
  int threads;                 /* CPU threads of the backend; 0 = the backend's default */
  int max_batch;               /* positions per network pass; 0 = 64 */
  const char *history_fill;    /* Lc0's HistoryFill: "fen_only" (NULL = this), "no", "always" */
} cformer_options;

/* A .pb.gz or .pb file (Lc0's format, docs/NETWORK.md). opts may be NULL.
 * Only a regular file is read (a FIFO, device, socket or directory is
 * CFORMER_ERR_IO at once); a payload over 16 times the file's size (at least
 * 64 MiB, at most 4 GiB) is refused as a decompression bomb. */
CFORMER_API cformer_status cformer_open_file(const char *path, const cformer_options *opts,
                                             cformer_net **out, cformer_error *err);

/* The same from a buffer (not retained); name appears in messages (NULL =
 * "<memory>"). */
CFORMER_API cformer_status cformer_open_bytes(const void *data, size_t size, const char *name,
                                              const cformer_options *opts, cformer_net **out,
                                              cformer_error *err);

/* The small network built into the library. */
CFORMER_API cformer_status cformer_open_builtin(const cformer_options *opts, cformer_net **out,
                                                cformer_error *err);

/* Accepts NULL. */
CFORMER_API void cformer_close(cformer_net *net);

typedef struct cformer_net_info {
  const char *backend;     /* the backend in use */
  int layers, d_model, heads, dff;
  size_t params;           /* weights in the network */
  int input_format;        /* Lc0's input format number */
  int has_moves_left;      /* 1 when the net has a moves-left head */
  int max_batch;
} cformer_net_info;

CFORMER_API cformer_status cformer_net_get_info(const cformer_net *net, cformer_net_info *out,
                                                cformer_error *err);

/* ---- positions and evaluation ------------------------------------------ */

/* A position as a game: a start FEN and the moves played from it. History
 * matters: the network sees the last 8 positions, repetitions and the
 * fifty-move counter, so pass the moves rather than only the final FEN. */
typedef struct cformer_position {
  const char *fen;          /* standard FEN, X-FEN or Shredder-FEN; NULL = the start position */
  const char *const *moves; /* UCI moves from fen (e1g1 or king-takes-rook e1h1 castling) */
  int n_moves;
} cformer_position;

#define CFORMER_MAX_MOVES 256 /* more than any chess position has (218) */
#define CFORMER_MOVE_MAX 6    /* "e7e8q" and its NUL */

typedef struct cformer_move_prob {
  char move[CFORMER_MOVE_MAX]; /* UCI; castling as e1g1, or e1h1 in a Chess960 position */
  float probability;           /* softmax(logit / temperature) over the legal moves */
  float logit;                 /* the network's raw policy logit */
} cformer_move_prob;

typedef struct cformer_eval {
  float wdl[3];     /* win, draw, loss probabilities for the side to move */
  float q;          /* wdl[0] - wdl[2], -1..1 */
  float moves_left; /* expected plies left; NAN when the net has no moves-left head */
  int n_moves;      /* legal moves (0: checkmate or stalemate; policy is then empty) */
  cformer_move_prob policy[CFORMER_MAX_MOVES]; /* the legal moves, most probable first */
} cformer_eval;

/* Evaluates n positions (any n >= 0, in passes of max_batch) and writes
 * out[0..n-1]. temperature > 0 shapes the reported probabilities (1 = the
 * network's own; 0 is taken as 1). A bad FEN or an illegal move fails the
 * whole call with CFORMER_ERR_ARG, naming the position's index. */
CFORMER_API cformer_status cformer_evaluate(cformer_net *net, int n,
                                            const cformer_position *positions, float temperature,
                                            cformer_eval *out, cformer_error *err);

#define CFORMER_PLANES 112
#define CFORMER_SQUARES 64

/* The network's input for a position, as Lc0 feeds it: 112 planes of 64
 * squares (square = 8 * rank + file, seen from the side to move after the
 * canonical transform), planes[plane * 64 + square]. *transform (may be
 * NULL) receives the canonical transform applied (0 = none; Lc0's bits:
 * 1 flip files, 2 mirror ranks, 4 transpose). Depends on the net's input
 * format and HistoryFill. */
CFORMER_API cformer_status cformer_planes(const cformer_net *net, const cformer_position *position,
                                          float planes[CFORMER_PLANES * CFORMER_SQUARES],
                                          int *transform, cformer_error *err);

/* ---- arrays for trainers ------------------------------------------------ */

#define CFORMER_POLICY_SIZE 1858 /* Lc0's policy vector */

/* Where cformer_evaluate_arrays writes, position after position (row i of
 * each array is positions[i]). Every pointer may be NULL: that output is
 * then not written (planes cost a copy; leave them NULL when not wanted). */
typedef struct cformer_arrays {
  float *wdl;           /* n * 3: win, draw, loss for the side to move */
  float *q;             /* n: wdl[0] - wdl[2] */
  float *moves_left;    /* n: plies; NAN when the net has no moves-left head */
  float *policy;        /* n * 1858: the network's raw logits, every entry of Lc0's
                           policy vector (legal or not), in Lc0's order: squares in the
                           mover's frame after the canonical transform */
  unsigned char *legal; /* n * 1858: 1 where the entry is a legal move, else 0 */
  float *planes;        /* n * 112 * 64: the input planes, as cformer_planes */
  int *transform;       /* n: the canonical transform (as cformer_planes) */
} cformer_arrays;

/* Evaluates n positions (in passes of max_batch) into arrays: the same
 * network outputs as cformer_evaluate (a legal move's logit here is its
 * logit there), laid out for numerical code. A bad position fails the whole
 * call with CFORMER_ERR_ARG naming its index. */
CFORMER_API cformer_status cformer_evaluate_arrays(cformer_net *net, int n,
                                                   const cformer_position *positions,
                                                   const cformer_arrays *out, cformer_error *err);

typedef struct cformer_move_index {
  char move[CFORMER_MOVE_MAX]; /* UCI, as cformer_evaluate names it */
  int index;                   /* its entry in the 1858 policy vector */
} cformer_move_index;

/* The legal moves of a position with their entries in the 1858 policy
 * vector of cformer_evaluate_arrays (which depend on the net's input format
 * and history fill): out[0..*n-1], in move generation order. */
CFORMER_API cformer_status cformer_policy_indices(const cformer_net *net,
                                                  const cformer_position *position,
                                                  cformer_move_index out[CFORMER_MAX_MOVES],
                                                  int *n, cformer_error *err);

/* The UCI text ("a1b1", "a7a8q") of entry index of the 1858 policy vector
 * in the position's own squares: for a position whose transform (from
 * cformer_evaluate_arrays or cformer_planes) and side to move are given,
 * the real move the entry stands for (castling as king takes rook, e1h1).
 * move receives CFORMER_MOVE_MAX bytes. */
CFORMER_API cformer_status cformer_policy_move(int index, int black_to_move, int transform,
                                               char move[6], cformer_error *err);

/* ---- choosing a move --------------------------------------------------- */

typedef struct cformer_choose_options {
  /* "search" (the default, also for NULL: an Lc0-style PUCT tree search on
   * a fresh tree per call), "policy" (one evaluation, the highest policy
   * logit) or "value" (one-ply search); see cformer_agent_name. */
  const char *agent;
  /* search: the visits to make; policy, value: the most network evaluations
   * to spend. 0 = no limit; with neither nodes nor movetime the search makes
   * 800 visits (fewer when smart pruning ends it early). */
  long nodes;
  double movetime;    /* seconds; 0 = no limit */
  float temperature;  /* policy softmax temperature: the search's priors (0 = 1.359, Lc0's
                         default); the policy and value agents' moves do not depend on it */
} cformer_choose_options;

typedef struct cformer_choice {
  char move[CFORMER_MOVE_MAX];   /* the move; "0000" when the position has no legal move */
  char ponder[CFORMER_MOVE_MAX]; /* the expected reply, "" when not known */
  float q;                       /* expected score of move for the side to move, -1..1;
                                    with no legal move, the game's result: -1 checkmated
                                    (wdl 0 0 1), 0 stalemate (wdl 0 1 0; search: the
                                    draw score, 0 by default), mate 0, 0 evaluations */
  float wdl[3];
  int mate;                      /* > 0: move mates in this many moves; < 0 (search only):
                                    the side to move is mated in -mate; 0 = none known */
  long evaluations;              /* network evaluations spent (search: without the
                                    positions answered from its NN cache) */
  int stopped;                   /* 1 when a limit cut the work short (policy, value: the
                                    node or time limit; search: the time limit) */
} cformer_choice;

/* The agents this library has: i = 0 .. cformer_agent_count() - 1; NULL
 * outside that range. */
CFORMER_API int cformer_agent_count(void);
CFORMER_API const char *cformer_agent_name(int i);

/* Chooses a move for the position with an agent. opts may be NULL. */
CFORMER_API cformer_status cformer_choose(cformer_net *net, const cformer_position *position,
                                          const cformer_choose_options *opts,
                                          cformer_choice *out, cformer_error *err);

/* ---- searching ---------------------------------------------------------- */

/* A flag that stops a search from another thread. cformer_stop_request and
 * cformer_stop_clear may be called from any thread at any time; free it only
 * when no search uses it. */
typedef struct cformer_stop cformer_stop;

CFORMER_API cformer_status cformer_stop_create(cformer_stop **out, cformer_error *err);
CFORMER_API void cformer_stop_request(cformer_stop *stop);
CFORMER_API void cformer_stop_clear(cformer_stop *stop);
CFORMER_API int cformer_stop_requested(const cformer_stop *stop);
/* Accepts NULL. */
CFORMER_API void cformer_stop_free(cformer_stop *stop);

typedef struct cformer_search_options {
  /* Visits to make (fewer when smart pruning ends the search once the best
   * move cannot change, as Lc0's); with neither nodes, movetime nor infinite
   * the search makes 800. */
  long nodes;
  double movetime;   /* seconds; 0 = no limit */
  float temperature; /* softmax temperature of the priors; 0 = 1.359 (Lc0's) */
  int infinite;      /* 1: search until stop is requested (stop must be given) */
  cformer_stop *stop; /* requested from another thread: the search ends at once with
                         what it has; NULL = none. Not cleared by the search. */
} cformer_search_options;

#define CFORMER_PV_MAX 64

/* One root move after a search. Values from the side to move at the root. */
typedef struct cformer_root_move {
  char move[CFORMER_MOVE_MAX];
  long visits;
  float prior;   /* softmax(logit / temperature) over the legal moves */
  float q;       /* W - L of its subtree; NAN when not visited */
  float wdl[3];  /* NAN when not visited */
  int mate;      /* > 0: mates in this many moves; < 0: mated in -mate; 0 = none known */
  int pv_len;    /* the principal variation starting with move */
  char pv[CFORMER_PV_MAX][CFORMER_MOVE_MAX];
} cformer_root_move;

typedef struct cformer_search_result {
  char move[CFORMER_MOVE_MAX];   /* the best move; "0000" when there is no legal move */
  char ponder[CFORMER_MOVE_MAX]; /* its expected reply, "" when not known */
  float q, wdl[3];               /* of move, from the side to move; with no legal move
                                    the game's result, as cformer_choice says */
  int mate;                      /* as cformer_root_move.mate, for move */
  long visits;                   /* root visits */
  long evaluations;              /* network evaluations made */
  int depth, seldepth;           /* average and greatest depth of the playouts */
  double seconds;
  int stopped;                   /* the stop flag or movetime ended it */
  int n_moves;                   /* legal root moves: moves[0..n_moves-1], best first */
  cformer_root_move moves[CFORMER_MAX_MOVES];
} cformer_search_result;

/* An Lc0-style PUCT tree search of the position on a fresh tree (the
 * search agent of cformer_choose), reporting every root move. opts may be
 * NULL. The result is large (about 100 KB): allocate it, do not put it on
 * a small stack. */
CFORMER_API cformer_status cformer_search(cformer_net *net, const cformer_position *position,
                                          const cformer_search_options *opts,
                                          cformer_search_result *out, cformer_error *err);

/* ---- endgame tablebases ------------------------------------------------ */

typedef struct cformer_tablebase_info {
  int wdl_tables; /* Syzygy WDL tables (.rtbw) in use */
  int dtz_tables; /* DTZ tables (.rtbz) in use */
  int max_pieces; /* the largest piece count among them; 0 when none */
} cformer_tablebase_info;

/* Syzygy endgame tablebases for the search agent, as Lc0's SyzygyPath:
 * directories separated by ':'; NULL or "" drops them. Once loaded, every
 * cformer_search, and cformer_choose with the search agent, uses them: at
 * the root only the moves that keep the tables' best result are searched
 * (by DTZ, so wins are converted within the fifty-move rule), and inside
 * the tree positions right after a capture or pawn move are scored from
 * WDL without the network. The tables are the process's (one prober): call
 * this while no other thread is in cformer_choose or cformer_search. *out
 * (may be NULL) says what loaded. Returns CFORMER_OK when every directory
 * loaded; otherwise the status and message of the first problem (a missing
 * or empty directory, a damaged or truncated table, a path over 4096
 * bytes, a build without Syzygy support), with the other directories
 * loaded all the same. */
CFORMER_API cformer_status cformer_set_tablebases(const char *paths, cformer_tablebase_info *out,
                                                  cformer_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CFORMER_H */
