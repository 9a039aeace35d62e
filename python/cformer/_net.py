"""Net, the results it returns, and the conversion of Python positions."""

import ctypes
import dataclasses
import math
import numbers
import os
import threading
from typing import Dict, Iterable, List, Mapping, Optional, Tuple, Union, overload

import numpy as np

from . import _lib as L
from ._errors import from_status
from . import _arrays, _search
from ._positions import (Position, Positions, _batch, _c_positions, _is_single, _optional_text,
                         _text)
from ._score import centipawns

#: Backend options: "key=value,..." or a dict {key: value}.
Options = Union[str, Mapping[str, Union[str, int, float, bool]], None]


_lib = L.lib


def _check(status, err):
    if status != 0:
        raise from_status(status, err.message.decode("utf-8", "replace"))


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    value = int(value)
    if value < 0:
        raise ValueError("%s must be >= 0 (got %d)" % (what, value))
    return value


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s" % (what, type(value).__name__))
    value = float(value)
    if not value >= 0 or math.isinf(value):
        raise ValueError("%s must be a finite number >= 0 (got %r)" % (what, value))
    return value


def _options_string(options):
    """The backend options "key=value,..." from a str, a dict or None."""
    if options is None:
        return None
    if isinstance(options, str):
        return _text(options, "options")
    if isinstance(options, dict):
        items = []
        for key, value in options.items():
            if not isinstance(key, str):
                raise TypeError("option names must be str, not %s" % type(key).__name__)
            if isinstance(value, bool):
                value = int(value)
            value = str(value)
            for part, what in ((key, "name"), (value, "value")):
                if not part or any(c in part for c in ",= \0"):
                    raise ValueError("option %s %r is empty or contains ',', '=' or a space"
                                     % (what, part))
            items.append("%s=%s" % (key, value))
        return ",".join(items).encode("utf-8")
    raise TypeError("options must be a str 'key=value,...' or a dict, not %s"
                    % type(options).__name__)


@dataclasses.dataclass(frozen=True)
class NetInfo:
    """What :attr:`Net.info` reports about an open network."""

    backend: str
    layers: int
    d_model: int
    heads: int
    dff: int
    params: int
    input_format: int
    has_moves_left: bool
    max_batch: int


@dataclasses.dataclass
class Evaluation:
    """The network's output for one position (side to move's view).

    wdl: float32 array [win, draw, loss]; q: win - loss; moves_left: expected
    plies left (nan when the net has no moves-left head); policy: {UCI move:
    probability} over the legal moves, most probable first (empty when the
    side to move is mated or stalemated); logits: {UCI move: raw logit} in
    the same order."""

    wdl: np.ndarray
    q: float
    moves_left: float
    policy: Dict[str, float]
    logits: Dict[str, float]

    @property
    def best_move(self) -> Optional[str]:
        """The most probable move, None without legal moves."""
        return next(iter(self.policy), None)

    @property
    def cp(self) -> int:
        """The centipawn score of wdl beside q, Lc0's default formula
        (ScoreType WDL_mu, as cformer's UCI ``score cp``;
        :func:`cformer.centipawns`)."""
        return centipawns(self.wdl)


@dataclasses.dataclass
class Choice:
    """A move chosen by an agent.

    move: UCI (None when the position has no legal move); ponder: the
    expected reply or None; q, wdl: the expected outcome of move for the side
    to move; mate: > 0 when move mates in that many moves, < 0 when the side
    to move is mated in -mate (search agent), else 0; evaluations: network
    evaluations spent; stopped: a time limit (or the search's memory cap)
    cut the work short. With no legal move (the game is over): move None,
    mate 0 and the game's result as q and wdl (checkmated: -1, [0, 0, 1];
    stalemate: 0, [0, 1, 0]), as the UCI engine's ``score mate 0`` / ``cp 0``."""

    move: Optional[str]
    ponder: Optional[str]
    q: float
    wdl: np.ndarray
    mate: int
    evaluations: int
    stopped: bool

    @property
    def cp(self) -> int:
        """The centipawn score of wdl beside q (Lc0's default formula,
        :func:`cformer.centipawns`); UCI shows ``mate`` instead when it is
        not 0."""
        return centipawns(self.wdl)


# A numpy view of cformer_eval (the same layout as the ctypes struct).
_MOVE_DTYPE = np.dtype([("move", "S%d" % L.CFORMER_MOVE_MAX), ("probability", "<f4"),
                        ("logit", "<f4")], align=True)
_EVAL_DTYPE = np.dtype([("wdl", "<f4", (3,)), ("q", "<f4"), ("moves_left", "<f4"),
                        ("n_moves", "<i4"), ("policy", _MOVE_DTYPE, (L.CFORMER_MAX_MOVES,))],
                       align=True)
assert _MOVE_DTYPE.itemsize == ctypes.sizeof(L.cformer_move_prob)
assert _EVAL_DTYPE.itemsize == ctypes.sizeof(L.cformer_eval)


def _evaluation(rec):
    n = int(rec["n_moves"])
    policy = rec["policy"][:n]
    moves = [m.decode("ascii") for m in policy["move"]]
    return Evaluation(
        wdl=np.array(rec["wdl"], dtype=np.float32),
        q=float(rec["q"]),
        moves_left=float(rec["moves_left"]),
        policy=dict(zip(moves, policy["probability"].tolist())),
        logits=dict(zip(moves, policy["logit"].tolist())),
    )


class Net:
    """An open network.

    Net(path=None, backend=None, options=None, *, threads=0, max_batch=0,
    history_fill=None)

    path: a .pb.gz or .pb weights file (str or os.PathLike); None = the
    network built into the library. backend: "onednn", "openblas", "ref",
    "cuda"; None or "auto" = the best available. options: the backend
    options, "key=value,..." or a dict. threads: CPU threads of the backend
    (0 = its default). max_batch: positions per network pass (0 = 64).
    history_fill: "fen_only" (None = this), "no" or "always".

    A Net is a context manager; close() frees it (also done when it is
    garbage collected). Calls on one Net are serialised by a lock: use one
    Net per thread to evaluate in parallel."""

    def __init__(self, path: Union[str, bytes, "os.PathLike[str]", None] = None,
                 backend: Optional[str] = None, options: Options = None, *, threads: int = 0,
                 max_batch: int = 0, history_fill: Optional[str] = None) -> None:
        self._init_state()
        opts, keep = self._options(backend, options, threads, max_batch, history_fill)
        if path is None:
            self._open(lambda out, err: _lib.cformer_open_builtin(ctypes.byref(opts), out, err))
        else:
            try:
                fspath = os.fspath(path)
            except TypeError:
                raise TypeError("path must be a str, bytes or os.PathLike, not %s"
                                % type(path).__name__) from None
            if isinstance(fspath, str):
                fspath = os.fsencode(fspath)
            if b"\0" in fspath:
                raise ValueError("path contains a NUL character")
            self._open(lambda out, err: _lib.cformer_open_file(fspath, ctypes.byref(opts), out,
                                                               err))
        del keep  # the option strings lived until here

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview], backend: Optional[str] = None,
                   options: Options = None, *, threads: int = 0, max_batch: int = 0,
                   history_fill: Optional[str] = None, name: Optional[str] = None) -> "Net":
        """Opens a network from the contents of a .pb.gz or .pb file (bytes,
        bytearray, memoryview). name appears in error messages."""
        if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("data must be bytes-like, not %s" % type(data).__name__)
        data = bytes(data)
        c_name = _optional_text(name, "name")
        self = cls.__new__(cls)
        self._init_state()
        opts, keep = cls._options(backend, options, threads, max_batch, history_fill)
        self._open(lambda out, err: _lib.cformer_open_bytes(data, len(data), c_name,
                                                            ctypes.byref(opts), out, err))
        del keep
        return self

    def _init_state(self):
        self._ptr = None
        self._lock = threading.Lock()  # one library call on this net at a time
        self._stop = None              # the cformer_stop of this net's searches
        self._state = threading.Lock() # guards _searching against stop()
        self._searching = False

    @staticmethod
    def _options(backend, options, threads, max_batch, history_fill):
        keep = [_optional_text(backend, "backend"), _options_string(options),
                _optional_text(history_fill, "history_fill")]
        opts = L.cformer_options(backend=keep[0], backend_options=keep[1],
                                 threads=_int(threads, "threads"),
                                 max_batch=_int(max_batch, "max_batch"), history_fill=keep[2])
        return opts, keep

    def _open(self, call):
        ptr = L.net_p()
        err = L.cformer_error()
        _check(call(ctypes.byref(ptr), ctypes.byref(err)), err)
        self._ptr = ptr
        info = L.cformer_net_info()
        _check(_lib.cformer_net_get_info(ptr, ctypes.byref(info), ctypes.byref(err)), err)
        self._info = NetInfo(
            backend=info.backend.decode("utf-8", "replace") if info.backend else "",
            layers=info.layers, d_model=info.d_model, heads=info.heads, dff=info.dff,
            params=info.params, input_format=info.input_format,
            has_moves_left=bool(info.has_moves_left), max_batch=info.max_batch)

    # ---- life cycle ----------------------------------------------------

    def close(self) -> None:
        """Frees the network; later calls raise ValueError. Idempotent."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            ptr, self._ptr = self._ptr, None
            if ptr:
                _lib.cformer_close(ptr)
            stop, self._stop = self._stop, None
            if stop:
                _search.free_stop(stop)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return not self._ptr

    def __enter__(self) -> "Net":
        self._live()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        if self.closed:
            return "<cformer.Net closed>"
        i = self._info
        return ("<cformer.Net backend=%s layers=%d d_model=%d heads=%d params=%d>"
                % (i.backend, i.layers, i.d_model, i.heads, i.params))

    def _live(self):
        if not self._ptr:
            raise ValueError("the cformer.Net is closed")
        return self._ptr

    @property
    def info(self) -> NetInfo:
        """A :class:`NetInfo`: backend, layers, d_model, heads, dff, params,
        input_format, has_moves_left, max_batch."""
        self._live()
        return self._info

    # ---- positions -----------------------------------------------------

    @overload
    def evaluate(self, positions: Position, temperature: float = 1.0) -> Evaluation: ...

    @overload
    def evaluate(self, positions: "Iterable[Position]",
                 temperature: float = 1.0) -> List[Evaluation]: ...

    def evaluate(self, positions: Positions,
                 temperature: float = 1.0) -> Union[Evaluation, List[Evaluation]]:
        """Evaluates a position or a batch of them.

        A position is a FEN str or "startpos"; a (fen, moves) tuple (fen a str,
        or None for the start position; moves a list of UCI strs played from
        it); a dict {"fen": ..., "moves": [...]}; or a board object with
        .fen(), such as python-chess's chess.Board, whose move stack is
        passed as the moves. Pass the moves rather than only the final FEN:
        the network sees the history. A single position returns one
        :class:`Evaluation`, any other iterable of positions (a list, a
        generator) a list of them.
        temperature > 0 shapes the probabilities: softmax(logit /
        temperature) (0 is taken as 1)."""
        items, single = _batch(positions, "evaluate")
        t = _number(temperature, "temperature")
        c_pos, keep = _c_positions(items)
        out = (L.cformer_eval * max(len(items), 1))()
        err = L.cformer_error()
        with self._lock:
            st = _lib.cformer_evaluate(self._live(), len(items), c_pos, t, out, ctypes.byref(err))
        _check(st, err)
        del keep
        recs = np.frombuffer(out, dtype=_EVAL_DTYPE, count=len(items))
        results = [_evaluation(r) for r in recs]
        return results[0] if single else results

    def planes(self, position: Position,
               with_transform: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, int]]:
        """The network's 112 input planes for a position: a float32 array of
        shape (112, 64), planes[plane, square] with square = 8 * rank + file
        seen from the side to move after the canonical transform. With
        with_transform=True returns (planes, transform), transform being
        Lc0's bits (1 flip files, 2 mirror ranks, 4 transpose; 0 = none).

        position: a FEN str or "startpos", a (fen, moves) tuple, a {"fen":
        ..., "moves": [...]} dict, or a board with .fen() such as
        python-chess's chess.Board (its move stack passed as the history)."""
        if not _is_single(position):
            raise TypeError("planes takes one position (FEN str, (fen, moves) tuple, "
                            "dict or board), not %s" % type(position).__name__)
        c_pos, keep = _c_positions([position])
        planes = np.zeros((L.CFORMER_PLANES, L.CFORMER_SQUARES), dtype=np.float32)
        transform = ctypes.c_int(0)
        err = L.cformer_error()
        with self._lock:
            st = _lib.cformer_planes(self._live(), c_pos,
                                     planes.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                     ctypes.byref(transform), ctypes.byref(err))
        _check(st, err)
        del keep
        return (planes, transform.value) if with_transform else planes

    def choose(self, position: Position, agent: Optional[str] = None, nodes: int = 0,
               movetime: float = 0.0, temperature: float = 0.0) -> Choice:
        """Chooses a move with an agent (see :func:`cformer.agents`; None = the
        engine's default, the search). nodes: the one-ply agents' most network
        evaluations, the search's visits (0 = no limit; the search then makes
        800 visits unless movetime is given); movetime: seconds (0 = no
        limit); temperature: the policy softmax temperature (0 = the agent's
        default). Returns a :class:`Choice`.

        position: a FEN str or "startpos", a (fen, moves) tuple, a {"fen":
        ..., "moves": [...]} dict, or a board with .fen() such as
        python-chess's chess.Board (its move stack passed as the history)."""
        if not _is_single(position):
            raise TypeError("choose takes one position (FEN str, (fen, moves) tuple, "
                            "dict or board), not %s" % type(position).__name__)
        c_agent = _optional_text(agent, "agent")
        opts = L.cformer_choose_options(agent=c_agent, nodes=_int(nodes, "nodes"),
                                        movetime=_number(movetime, "movetime"),
                                        temperature=_number(temperature, "temperature"))
        c_pos, keep = _c_positions([position])
        out = L.cformer_choice()
        err = L.cformer_error()
        with self._lock:
            st = _lib.cformer_choose(self._live(), c_pos, ctypes.byref(opts), ctypes.byref(out),
                                     ctypes.byref(err))
        _check(st, err)
        del keep
        move = out.move.decode("ascii")
        ponder = out.ponder.decode("ascii")
        return Choice(move=None if move in ("", "0000") else move, ponder=ponder or None,
                      q=float(out.q), wdl=np.array(out.wdl[:], dtype=np.float32),
                      mate=int(out.mate), evaluations=int(out.evaluations),
                      stopped=bool(out.stopped))

    def evaluate_arrays(self, positions: Positions, planes: bool = False) -> _arrays.Arrays:
        """Evaluates a batch into stacked NumPy arrays (an :class:`Arrays`):
        wdl (N, 3), q (N,), moves_left (N,), policy (N, 1858) raw logits of
        every entry of Lc0's policy vector, legal (N, 1858) bool, transform
        (N,), and with planes=True the input planes (N, 112, 8, 8). The
        numbers are those of :meth:`evaluate` for the same positions: a
        legal move's logit is policy[i, net.policy_indices(p)[move]]. A
        single position gives N = 1.

        positions: one position or an iterable of them, each a FEN str or
        "startpos", a (fen, moves) tuple, a {"fen": ..., "moves": [...]}
        dict, or a board with .fen() such as python-chess's chess.Board (its
        move stack passed as the history)."""
        items, _ = _batch(positions, "evaluate_arrays")
        with self._lock:
            return _arrays.evaluate_arrays(self._live, items, bool(planes))

    def policy_indices(self, position: Position) -> Dict[str, int]:
        """{UCI move: its entry in the 1858 policy vector} for the legal
        moves of a position (the entries depend on the position's canonical
        transform, hence on the net's input format).

        position: a FEN str or "startpos", a (fen, moves) tuple, a {"fen":
        ..., "moves": [...]} dict, or a board with .fen() such as
        python-chess's chess.Board (its move stack passed as the history)."""
        if not _is_single(position):
            raise TypeError("policy_indices takes one position, not %s"
                            % type(position).__name__)
        with self._lock:
            return _arrays.policy_indices(self._live, position, _check)

    def search(self, position: Position, nodes: int = 0, movetime: float = 0.0, multipv: int = 1,
               *, temperature: float = 0.0, infinite: bool = False) -> _search.SearchResult:
        """Searches a position with the PUCT tree search on a fresh tree and
        returns a :class:`SearchResult` with every root move's visits,
        prior, Q and PV (best first; ``lines`` = the first multipv).
        nodes: visits to make; movetime: seconds; with neither (and not
        infinite) the search makes 800 visits. infinite=True searches until
        :meth:`stop` is called from another thread. temperature: the
        priors' softmax temperature (0 = Lc0's 1.359). The search runs
        without the GIL.

        position: a FEN str or "startpos", a (fen, moves) tuple, a {"fen":
        ..., "moves": [...]} dict, or a board with .fen() such as
        python-chess's chess.Board (its move stack passed as the history)."""
        if not _is_single(position):
            raise TypeError("search takes one position, not %s" % type(position).__name__)
        multipv = _int(multipv, "multipv")
        if multipv < 1:
            raise ValueError("multipv must be >= 1")
        c_pos, keep = _c_positions([position])
        out = L.cformer_search_result()
        err = L.cformer_error()
        with self._lock:
            ptr = self._live()
            if self._stop is None:
                self._stop = _search.new_stop()
            opts = L.cformer_search_options(nodes=_int(nodes, "nodes"),
                                            movetime=_number(movetime, "movetime"),
                                            temperature=_number(temperature, "temperature"),
                                            infinite=1 if infinite else 0, stop=self._stop)
            with self._state:
                _lib.cformer_stop_clear(self._stop)
                self._searching = True
            try:
                st = _lib.cformer_search(ptr, c_pos, ctypes.byref(opts), ctypes.byref(out),
                                         ctypes.byref(err))
            finally:
                with self._state:
                    self._searching = False
        _check(st, err)
        del keep
        return _search.result(out, multipv)

    @property
    def searching(self) -> bool:
        """True while :meth:`search` runs on this net."""
        with self._state:
            return self._searching

    def stop(self) -> bool:
        """Ends the search running on this net now (from any thread); it
        returns what it has found, with stopped=True. Returns whether a
        search was running (with none running, nothing happens)."""
        with self._state:
            if self._searching:
                _lib.cformer_stop_request(self._stop)
                return True
            return False
