"""Syzygy endgame tablebases for the search agent (cformer_set_tablebases)."""

import ctypes
import dataclasses
import os
from typing import Sequence, Union

from . import _lib as L
from ._errors import from_status


@dataclasses.dataclass(frozen=True)
class TablebaseInfo:
    """What :func:`set_tablebases` loaded."""
    wdl_tables: int
    dtz_tables: int
    max_pieces: int


def set_tablebases(paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]],
                                 None]) -> TablebaseInfo:
    """Loads Syzygy tablebases for the search agent, as Lc0's SyzygyPath:
    directories separated by ':' (a str or os.PathLike), or a list or tuple
    of directories (joined so);
    None or "" drops them. Once loaded, :meth:`Net.choose` with the search
    agent uses them (at the root, only the moves that keep the tables' best
    result; in the tree, positions after a capture or pawn move are scored
    without the network). The tables are the process's: do not call this
    while another thread is choosing a move.

    Returns a :class:`TablebaseInfo`. A missing or empty directory, a damaged
    table or a build without Syzygy support raises the matching
    :class:`cformer.Error` naming the first problem; the other directories
    are loaded all the same."""
    if paths is None:
        text = ""
    elif isinstance(paths, (list, tuple)):
        text = ":".join(os.fspath(p) for p in paths)
    else:
        text = os.fspath(paths)
    info = L.cformer_tablebase_info()
    err = L.cformer_error()
    st = L.lib.cformer_set_tablebases(text.encode("utf-8"), ctypes.byref(info), ctypes.byref(err))
    if st != 0:
        raise from_status(st, err.message.decode("utf-8", "replace"))
    return TablebaseInfo(info.wdl_tables, info.dtz_tables, info.max_pieces)
