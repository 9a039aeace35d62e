"""Positions from Python: a FEN, "startpos", a (fen, moves) tuple, a
{"fen": ..., "moves": [...]} dict, or any board object with .fen() and a
move stack (python-chess's Board, without importing python-chess), turned
into the library's cformer_position."""

import ctypes
import sys
from typing import Any, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _lib as L

if sys.version_info >= (3, 8):
    from typing import Protocol
else:  # pragma: no cover (pyproject.toml asks for 3.8)
    Protocol = object

STARTPOS = "startpos"


class BoardLike(Protocol):
    """A board object: anything with ``fen()`` (python-chess's
    ``chess.Board``; with its ``move_stack`` and ``root()`` the game's moves
    are passed too, so the network sees the history)."""

    def fen(self) -> str: ...


#: One position: a FEN str or "startpos"; a (fen, moves) tuple (fen a str
#: or None for the start, moves UCI strs played from it); a dict
#: {"fen": ..., "moves": [...]}; or a board (BoardLike, e.g. chess.Board).
Position = Union[str, Tuple[Optional[str], Sequence[str]], Mapping[str, Any], BoardLike]

#: One Position, or an iterable (list, generator) of them for a batch.
Positions = Union[Position, Iterable[Position]]


def _text(value, what):
    """A str argument as NUL-free UTF-8 bytes."""
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (what, type(value).__name__))
    if "\0" in value:
        raise ValueError("%s contains a NUL character" % what)
    return value.encode("utf-8")


def _optional_text(value, what):
    return None if value is None else _text(value, what)


class _Position:
    """One position as the C struct, holding the bytes it points to."""

    __slots__ = ("fen", "moves", "array")

    def __init__(self, position):
        fen, moves = _split_position(position)
        self.fen = _optional_text(fen, "FEN")
        self.moves = [_text(m, "move %d" % (i + 1)) for i, m in enumerate(moves)]
        self.array = (ctypes.c_char_p * len(self.moves))(*self.moves) if self.moves else None

    def fill(self, c_pos):
        c_pos.fen = self.fen
        c_pos.moves = ctypes.cast(self.array, L.c_char_p_p) if self.array is not None else None
        c_pos.n_moves = len(self.moves)


def _is_board(obj):
    """A board object: anything with a callable fen() (python-chess's Board
    and look-alikes), told apart without importing python-chess."""
    return not isinstance(obj, (str, bytes, tuple, dict)) and callable(getattr(obj, "fen", None))


def _board_position(board):
    """(start fen, UCI moves) of a board object. With a move stack and a
    root() (python-chess: the position before the stack's first move), the
    game's start and its moves, so the network sees the history; otherwise
    the board's FEN alone."""
    stack = getattr(board, "move_stack", None)
    root = getattr(board, "root", None)
    if stack is not None and callable(root):
        moves = []
        for i, m in enumerate(stack):
            uci = m.uci() if callable(getattr(m, "uci", None)) else m
            if not isinstance(uci, str):
                raise TypeError("move %d of the board's move stack is a %s, not a move with "
                                ".uci() or a UCI str" % (i + 1, type(m).__name__))
            moves.append(uci)
        fen = root().fen()
    else:
        fen, moves = board.fen(), []
    if not isinstance(fen, str):
        raise TypeError("the board's fen() returned a %s, not a str" % type(fen).__name__)
    return fen, moves


def _split_position(position):
    """(fen or None, list of moves) from a FEN or "startpos", a (fen, moves)
    tuple, a {"fen": ..., "moves": [...]} dict or a board object."""
    if isinstance(position, str):
        return (None if position == STARTPOS else position), []
    if isinstance(position, tuple):
        if len(position) != 2:
            raise TypeError("a position tuple is (fen, moves), got %d items (pass a list "
                            "for a batch of positions)" % len(position))
        fen, moves = position
    elif isinstance(position, dict):
        unknown = set(position) - {"fen", "moves"}
        if unknown:
            raise ValueError("unknown position keys %s (known: fen, moves)" % sorted(unknown))
        fen, moves = position.get("fen"), position.get("moves")
    elif _is_board(position):
        fen, moves = _board_position(position)
    else:
        raise TypeError("a position is a FEN str or 'startpos', a (fen, moves) tuple, a dict "
                        "{'fen': ..., 'moves': [...]} or a board with .fen() (python-chess), "
                        "not %s" % type(position).__name__)
    if fen == STARTPOS:
        fen = None
    if fen is not None and not isinstance(fen, str):
        raise TypeError("the FEN must be a str or None, not %s" % type(fen).__name__)
    if moves is None:
        moves = []
    elif isinstance(moves, (str, bytes)):
        raise TypeError("moves must be a list of UCI move strings, not a single %s "
                        "(a tuple of two FENs is read as (fen, moves): pass a list "
                        "for a batch)" % type(moves).__name__)
    else:
        try:
            moves = list(moves)
        except TypeError:
            raise TypeError("moves must be a list of UCI move strings, not %s"
                            % type(moves).__name__) from None
    return fen, moves


def _is_single(positions):
    return isinstance(positions, (str, tuple, dict)) or _is_board(positions)


def _batch(positions, what):
    """(items, single): one position as a list of one, or the list of an
    iterable of positions."""
    if _is_single(positions):
        return [positions], True
    try:
        items = list(positions)
    except TypeError:
        raise TypeError("%s takes a position (FEN str, 'startpos', (fen, moves) tuple, dict, "
                        "board) or an iterable of them, not %s"
                        % (what, type(positions).__name__)) from None
    if len(items) > 2**31 - 1:
        raise ValueError("too many positions")
    return items, False


def _c_positions(items):
    """A ctypes array of cformer_position and the objects it points into."""
    keep = [_Position(p) for p in items]
    array = (L.cformer_position * max(len(keep), 1))()
    for p, c in zip(keep, array):
        p.fill(c)
    return array, keep


