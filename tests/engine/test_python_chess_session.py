"""A python-chess session with the engine logs no warning: it loads the
network (ping), sets every option the engine offers to its default (as a
GUI sends them all), pings again, analyses with two lines, plays a few
moves, sets a SyzygyPath that does not exist, pings and plays on.

python-chess warns about any line other than readyok while ping() waits
(so what a load says must not come before readyok) and about every line on
stderr. The session's warnings are collected from python-chess's logger.

    python3 test_python_chess_session.py CFORMER SOURCE_ROOT

python-chess comes from tests/third_party/python-chess when it is not
installed (its README says which release).
"""

import logging
import os
import sys
import unittest

CFORMER = None
chess = None


def import_python_chess(source_root):
    global chess
    try:
        import chess.engine  # noqa: F401 (python-chess, installed)
    except ImportError:
        sys.path.insert(0, os.path.join(source_root, "tests", "third_party", "python-chess"))
        import chess.engine  # noqa: F401 (python-chess, the tests' copy)
    chess = sys.modules["chess"]


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


# Options python-chess sets itself (it refuses to configure them).
MANAGED = {"uci_chess960", "uci_variant", "multipv", "ponder"}


class Session(unittest.TestCase):
    def setUp(self):
        self.log = Collect()
        logging.getLogger("chess.engine").addHandler(self.log)
        self.engine = chess.engine.SimpleEngine.popen_uci([CFORMER], timeout=60)

    def tearDown(self):
        self.engine.quit()
        logging.getLogger("chess.engine").removeHandler(self.log)

    def test_no_warning(self):
        e = self.engine
        e.ping()  # loads the network
        every = {name: opt.default for name, opt in e.options.items()
                 if name.lower() not in MANAGED and opt.type != "button"}
        self.assertGreater(len(every), 30)
        e.configure(every)
        e.ping()
        self.assertEqual(self.log.records, [], "python-chess warned:\n" + "\n".join(self.log.records))
        board = chess.Board()
        infos = e.analyse(board, chess.engine.Limit(nodes=60), multipv=2)
        self.assertEqual(len(infos), 2)
        self.assertTrue(all("score" in i and "pv" in i for i in infos))
        for _ in range(4):
            played = e.play(board, chess.engine.Limit(nodes=20))
            self.assertIn(played.move, board.legal_moves)
            board.push(played.move)
        e.configure({"SyzygyPath": os.path.join(os.path.dirname(CFORMER), "no-such-tables")})
        e.ping()
        played = e.play(board, chess.engine.Limit(nodes=20), info=chess.engine.INFO_ALL)
        self.assertIn(played.move, board.legal_moves)
        # what the tables said reached the user, as the search's info
        self.assertIn("Syzygy: no tables loaded", played.info.get("string", ""))
        self.assertEqual(self.log.records, [], "python-chess warned:\n" + "\n".join(self.log.records))


def main():
    global CFORMER
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    CFORMER = os.path.abspath(sys.argv[1])
    import_python_chess(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=1)


if __name__ == "__main__":
    main()
