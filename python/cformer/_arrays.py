"""Net.evaluate_arrays: a batch's outputs as stacked NumPy arrays, for
notebooks and trainers (cformer_evaluate_arrays)."""

import ctypes
import dataclasses
import re
from typing import Optional

import numpy as np

from . import _lib as L
from ._errors import from_status
from ._positions import _c_positions
from ._score import centipawns

_lib = L.lib

#: Positions handed to the library per call: its scratch memory grows with
#: the call (about 2 KB a position), the caller's arrays do not.
CHUNK = 4096

POLICY_SIZE = L.CFORMER_POLICY_SIZE


@dataclasses.dataclass
class Arrays:
    """The network's outputs for N positions, row i for position i.

    wdl: (N, 3) float32, win/draw/loss for the side to move; q: (N,) float32,
    win - loss; moves_left: (N,) float32 plies (nan without a moves-left
    head); policy: (N, 1858) float32, the raw logits of every entry of Lc0's
    policy vector, legal or not (squares in the mover's frame after the
    canonical transform, as in Lc0's training data); legal: (N, 1858) bool,
    the entries that are legal moves; transform: (N,) int32, the canonical
    transform (Lc0's bits: 1 flip files, 2 mirror ranks, 4 transpose);
    planes: (N, 112, 8, 8) float32 input planes when asked for, else None."""

    wdl: np.ndarray
    q: np.ndarray
    moves_left: np.ndarray
    policy: np.ndarray
    legal: np.ndarray
    transform: np.ndarray
    planes: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return len(self.q)

    def centipawns(self) -> np.ndarray:
        """(N,) int32: each row's centipawn score of wdl, beside q (Lc0's
        default formula, :func:`cformer.centipawns`)."""
        return np.array([centipawns(row) for row in self.wdl], dtype=np.int32)

    def probabilities(self, temperature: float = 1.0) -> np.ndarray:
        """softmax(policy / temperature) over each row's legal entries, 0
        elsewhere: (N, 1858) float32. A row without legal moves is all 0."""
        if not temperature > 0:
            raise ValueError("temperature must be > 0 (got %r)" % (temperature,))
        logits = np.where(self.legal, self.policy / np.float32(temperature), -np.inf)
        top = logits.max(axis=1, keepdims=True)
        top[~np.isfinite(top)] = 0.0
        e = np.where(self.legal, np.exp(logits - top), 0.0)
        total = e.sum(axis=1, keepdims=True)
        return (e / np.where(total > 0, total, 1.0)).astype(np.float32)


def _ptr(array, ctype):
    return array.ctypes.data_as(ctypes.POINTER(ctype))


def evaluate_arrays(net_ptr, items, planes):
    """Fills an Arrays for the positions items (already a list), CHUNK at
    a time."""
    n = len(items)
    out = Arrays(
        wdl=np.zeros((n, 3), dtype=np.float32),
        q=np.zeros(n, dtype=np.float32),
        moves_left=np.zeros(n, dtype=np.float32),
        policy=np.zeros((n, POLICY_SIZE), dtype=np.float32),
        legal=np.zeros((n, POLICY_SIZE), dtype=np.bool_),
        transform=np.zeros(n, dtype=np.int32),
        planes=(np.zeros((n, L.CFORMER_PLANES, 8, 8), dtype=np.float32) if planes else None),
    )
    err = L.cformer_error()
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        c_pos, keep = _c_positions(items[lo:hi])
        arrays = L.cformer_arrays(
            wdl=_ptr(out.wdl[lo:hi], ctypes.c_float),
            q=_ptr(out.q[lo:hi], ctypes.c_float),
            moves_left=_ptr(out.moves_left[lo:hi], ctypes.c_float),
            policy=_ptr(out.policy[lo:hi], ctypes.c_float),
            legal=_ptr(out.legal[lo:hi].view(np.uint8), ctypes.c_ubyte),
            planes=(_ptr(out.planes[lo:hi], ctypes.c_float) if planes else None),
            transform=_ptr(out.transform[lo:hi], ctypes.c_int),
        )
        st = _lib.cformer_evaluate_arrays(net_ptr(), hi - lo, c_pos, ctypes.byref(arrays),
                                          ctypes.byref(err))
        if st != 0:
            # Name the position by its index in the whole batch, not the chunk.
            msg = re.sub(r"\bposition (\d+)", lambda m: "position %d" % (int(m.group(1)) + lo),
                         err.message.decode("utf-8", "replace"), count=1)
            raise from_status(st, msg)
        del keep
    return out


def policy_indices(net_ptr, position, check):
    """{UCI move: entry of the 1858 vector} for the legal moves of position."""
    c_pos, keep = _c_positions([position])
    out = (L.cformer_move_index * L.CFORMER_MAX_MOVES)()
    n = ctypes.c_int(0)
    err = L.cformer_error()
    check(_lib.cformer_policy_indices(net_ptr(), c_pos, out, ctypes.byref(n), ctypes.byref(err)),
          err)
    del keep
    return {out[i].move.decode("ascii"): int(out[i].index) for i in range(n.value)}


def policy_move(index: int, black_to_move: bool = False, transform: int = 0) -> str:
    """The real move (UCI; castling as king takes rook, e1h1) that entry
    index of the 1858 policy vector stands for, for a position with this
    side to move and canonical transform (Arrays.transform)."""
    buf = ctypes.create_string_buffer(L.CFORMER_MOVE_MAX)
    err = L.cformer_error()
    st = _lib.cformer_policy_move(int(index), 1 if black_to_move else 0, int(transform), buf,
                                  ctypes.byref(err))
    if st != 0:
        raise from_status(st, err.message.decode("utf-8", "replace"))
    return buf.value.decode("ascii")
