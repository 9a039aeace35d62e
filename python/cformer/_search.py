"""Net.search: the PUCT tree search with every root move reported
(cformer_search), and its results."""

import ctypes
import dataclasses
from typing import List, Optional

import numpy as np

from . import _lib as L
from ._score import centipawns


@dataclasses.dataclass
class RootMove:
    """One root move after a search, from the side to move's view.

    move: UCI; visits: completed visits of its subtree; prior: the policy's
    probability (softmax with the search's temperature); q: W - L of its
    subtree and wdl its [win, draw, loss] (nan when not visited); mate: > 0
    mates in that many moves, < 0 mated in -mate, 0 none known; pv: the
    principal variation starting with move (UCI moves)."""

    move: str
    visits: int
    prior: float
    q: float
    wdl: np.ndarray
    mate: int
    pv: List[str]

    @property
    def cp(self) -> Optional[int]:
        """The centipawn score of wdl beside q (Lc0's default formula,
        :func:`cformer.centipawns`); None when the move was not visited."""
        return None if np.isnan(self.wdl).any() else centipawns(self.wdl)


@dataclasses.dataclass
class SearchResult:
    """What a search found.

    move: the best move (None when the position has no legal move); ponder:
    its expected reply or None; q, wdl, mate: of move; visits: root visits;
    evaluations: network evaluations made; depth, seldepth: average and
    greatest depth; seconds: time spent; stopped: Net.stop() or movetime
    ended it; moves: every legal root move, best first (:class:`RootMove`);
    lines: the first multipv of them (MultiPV); pv: the best line. With
    no legal move: move None, no moves, mate 0, and the game's result as q
    and wdl (checkmated: -1, [0, 0, 1]; stalemate: the draw score, 0 by
    default, [0, 1, 0])."""

    move: Optional[str]
    ponder: Optional[str]
    q: float
    wdl: np.ndarray
    mate: int
    visits: int
    evaluations: int
    depth: int
    seldepth: int
    seconds: float
    stopped: bool
    moves: List[RootMove]
    multipv: int = 1

    @property
    def lines(self) -> List[RootMove]:
        """The first multipv root moves (MultiPV), best first."""
        return self.moves[:self.multipv]

    @property
    def pv(self) -> List[str]:
        """The best line (UCI moves); [] without legal moves."""
        return self.moves[0].pv if self.moves else []

    @property
    def cp(self) -> int:
        """The centipawn score of wdl beside q, as cformer's UCI ``score
        cp`` shows it (Lc0's default formula, :func:`cformer.centipawns`);
        UCI shows ``mate`` instead when it is not 0."""
        return centipawns(self.wdl)


def _root_move(m):
    return RootMove(move=m.move.decode("ascii"), visits=int(m.visits), prior=float(m.prior),
                    q=float(m.q), wdl=np.array(m.wdl[:], dtype=np.float32), mate=int(m.mate),
                    pv=[m.pv[k].value.decode("ascii") for k in range(m.pv_len)])


def result(out, multipv):
    """A SearchResult from the library's cformer_search_result."""
    move = out.move.decode("ascii")
    ponder = out.ponder.decode("ascii")
    return SearchResult(
        move=None if move in ("", "0000") else move, ponder=ponder or None, q=float(out.q),
        wdl=np.array(out.wdl[:], dtype=np.float32), mate=int(out.mate), visits=int(out.visits),
        evaluations=int(out.evaluations), depth=int(out.depth), seldepth=int(out.seldepth),
        seconds=float(out.seconds), stopped=bool(out.stopped),
        moves=[_root_move(out.moves[i]) for i in range(out.n_moves)], multipv=multipv)


def new_stop():
    """A cformer_stop for one Net (freed with free_stop)."""
    stop = L.stop_p()
    err = L.cformer_error()
    if L.lib.cformer_stop_create(ctypes.byref(stop), ctypes.byref(err)) != 0:
        raise MemoryError(err.message.decode("utf-8", "replace"))
    return stop


def free_stop(stop):
    L.lib.cformer_stop_free(stop)
