/* perft_positions.h: published perft counts, shared by the fast and slow
 * perft tests. Positions 1-6 are the Chess Programming Wiki "Perft Results"
 * set; counts[d - 1] is perft(d). */
#ifndef PERFT_POSITIONS_H
#define PERFT_POSITIONS_H

#include <stdint.h>

typedef struct perft_case {
  const char *name;
  const char *fen;
  int depths;             /* entries used in counts */
  uint64_t counts[8];
} perft_case;

static const perft_case cpw_positions[] = {
  {"startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6,
   {20, 400, 8902, 197281, 4865609, 119060324}},
  {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5,
   {48, 2039, 97862, 4085603, 193690690}},
  {"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7,
   {14, 191, 2812, 43238, 674624, 11030083, 178633661}},
  {"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6,
   {6, 264, 9467, 422333, 15833292, 706045033}},
  {"position4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 6,
   {6, 264, 9467, 422333, 15833292, 706045033}},
  {"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5,
   {44, 1486, 62379, 2103487, 89941194}},
  {"position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5,
   {46, 2079, 89890, 3894594, 164075551}},
};

#define CPW_POSITION_COUNT ((int)(sizeof cpw_positions / sizeof cpw_positions[0]))

#endif /* PERFT_POSITIONS_H */
