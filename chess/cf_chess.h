/* cf_chess.h: the whole rules layer in one include, for code that uses
 * most of it (the engine, tools). Library code includes the headers it
 * needs. */
#ifndef CF_CHESS_H
#define CF_CHESS_H

#include "chess/cf_attacks.h"
#include "chess/cf_bitboard.h"
#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "chess/cf_perft.h"
#include "chess/cf_position.h"
#include "chess/cf_zobrist.h"

#endif /* CF_CHESS_H */
