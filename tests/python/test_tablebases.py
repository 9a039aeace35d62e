"""cformer.set_tablebases: what loads, what is refused, and the search
playing the tables' move."""
import pytest

import cformer

HANGING_ROOK = "8/8/8/8/8/2k5/3R4/K7 b - - 0 1"  # Kxd2 is the only draw


@pytest.fixture
def tables(testdata):
    try:
        info = cformer.set_tablebases(testdata / "syzygy")
    except cformer.UnsupportedError as e:
        pytest.skip(str(e))
    yield info
    cformer.set_tablebases(None)


def test_counts(tables):
    assert tables == cformer.TablebaseInfo(wdl_tables=11, dtz_tables=11, max_pieces=4)


def test_missing_directory_names_it(tables, testdata):
    with pytest.raises(cformer.FileError, match="no-such-dir"):
        cformer.set_tablebases([testdata / "no-such-dir", testdata / "syzygy"])


def test_search_plays_the_tables_move(tables, net):
    assert net.choose(HANGING_ROOK, nodes=50).move == "c3d2"


def test_net_search_keeps_only_the_tables_moves(tables, net):
    r = net.search(HANGING_ROOK, nodes=50)
    assert r.move == "c3d2"
    assert all(m.visits == 0 for m in r.moves if m.move != "c3d2")


def test_dropping_them(tables):
    assert cformer.set_tablebases("").max_pieces == 0
