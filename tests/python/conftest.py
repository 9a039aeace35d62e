"""Shared fixtures of the cformer package tests. The package and library
come from the environment meson sets (PYTHONPATH, CFORMER_LIBRARY); run by
hand from the repository root:

    PYTHONPATH=python CFORMER_LIBRARY=build/lib/libcformer.so CF_TESTDATA=data \
        /usr/bin/python3 -m pytest -q tests/python
"""
import os
import pathlib

import pytest

import cformer

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
MATE_IN_1 = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


@pytest.fixture(scope="session")
def testdata():
    path = pathlib.Path(os.environ.get("CF_TESTDATA")
                        or pathlib.Path(__file__).resolve().parents[2] / "data")
    if not (path / "parity").is_dir():
        pytest.fail("no parity data under %s (set CF_TESTDATA)" % path)
    return path


@pytest.fixture(scope="session")
def net():
    """The built-in network on the default backend."""
    with cformer.Net() as n:
        yield n
