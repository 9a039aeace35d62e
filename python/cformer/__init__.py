"""cformer: run Lc0-format transformer chess networks (Chessformer-style RPE
networks included) from Python, over libcformer.

    import cformer
    with cformer.Net() as net:               # the built-in network
        ev = net.evaluate(("startpos", ["e2e4", "e7e5"]))
        print(ev.wdl, ev.q, ev.cp, ev.best_move)
        a = net.evaluate_arrays(["startpos", board])   # board: e.g. a chess.Board
        print(a.wdl.shape, a.policy.shape)               # (2, 3) (2, 1858)
        print(net.search("startpos", nodes=400, multipv=3).lines)
        print(net.choose("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", agent="value").move)

See python/README.md. The library is found through $CFORMER_LIBRARY, the
directory recorded at install time, then the system's search path.
"""

from typing import List

from . import _lib
from ._errors import (ArgumentError, BackendError, Error, FileError, FormatError,
                      InternalError, OutOfMemoryError, Status, UnsupportedError)
from ._arrays import Arrays, policy_move
from ._net import Choice, Evaluation, Net, NetInfo, Options
from ._positions import BoardLike, Position, Positions
from ._score import centipawns
from ._search import RootMove, SearchResult
from ._tablebases import TablebaseInfo, set_tablebases

__all__ = [
    "Net", "NetInfo", "Evaluation", "Choice", "Arrays", "SearchResult", "RootMove",
    "Position", "Positions", "BoardLike", "Options", "centipawns",
    "agents", "policy_move", "library_path", "__version__", "set_tablebases", "TablebaseInfo",
    "Error", "ArgumentError", "FileError", "FormatError", "UnsupportedError",
    "OutOfMemoryError", "BackendError", "InternalError", "Status",
]

#: The version of the libcformer loaded (cformer_version()).
__version__: str = _lib.lib.cformer_version().decode("ascii")

#: The path or name the library was loaded from.
library_path: str = _lib.path


def agents() -> List[str]:
    """The names of the move-choosing agents the library has (for
    :meth:`Net.choose`)."""
    n = _lib.lib.cformer_agent_count()
    return [_lib.lib.cformer_agent_name(i).decode("ascii") for i in range(n)]
