"""`cformer analyse`'s annotated PGN is what a GUI reads: every move of the
main line carries `[%eval ...]` (and `[%wdl ...]`), the better lines are real
`( ... )` variations that start with a move number, a game that stops at an
illegal move is analysed up to it (with its warning and a comment), and a
checkmate or stalemate is scored exactly there and in the JSONL records.

The file is read back by python-chess's PGN reader when python-chess is
there (installed, or its source in a folder under tests/third_party/ with
chess/pgn.py), with the evaluations and variations intact; the checks of
the text itself run either way.

    python3 test_analyse_gui_pgn.py CFORMER SOURCE_ROOT
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

CFORMER = None
chess = None

GAMES = """[Event "fool"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "illegal"]
[Result "1-0"]

1. e4 e5 2. Ke3 Nc6 1-0

[Event "stalemate"]
[FEN "7k/5K2/8/8/8/8/8/6Q1 w - - 0 1"]
[SetUp "1"]
[Result "1/2-1/2"]

1. Qg6 1/2-1/2

[Event "long"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O *
"""

EVAL = re.compile(r"\[%eval (#-?\d+|-?\d+\.\d\d)(,\d+)?\]")
WDL = re.compile(r"\[%wdl (\d+) (\d+) (\d+)\]")


def import_python_chess(source_root):
    """python-chess's chess.pgn, installed or in tests/third_party; None."""
    global chess
    tried = [None] + sorted(os.path.dirname(os.path.dirname(p)) for p in glob.glob(
        os.path.join(source_root, "tests", "third_party", "**", "chess", "pgn.py"),
        recursive=True))
    for folder in tried:
        if folder:
            sys.path.insert(0, folder)
        try:
            import chess.pgn  # noqa: F401 (python-chess)
            chess = sys.modules["chess"]
            if hasattr(chess, "Board"):
                return folder or "installed"
        except ImportError:
            pass
        for name in [n for n in sys.modules if n == "chess" or n.startswith("chess.")]:
            del sys.modules[name]
        if folder:
            sys.path.remove(folder)
    chess = None
    return None


def games_of(text, prose=True):
    """[(tags text, movetext)] of an annotated PGN; without prose, each
    comment holds its annotations alone (its words may hold brackets)."""
    out = []
    for block in re.split(r"\n\n(?=\[)", text.strip()):
        tags, _, moves = block.partition("\n\n")
        moves = " ".join(moves.split())
        if not prose:
            moves = re.sub(r"\{[^}]*\}", lambda m: "{ %s }" % " ".join(
                re.findall(r"\[%[^]]*\]", m.group(0))), moves)
        out.append((tags, moves))
    return out


class GuiPgn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cf-analyse-gui-")
        cls.pgn = os.path.join(cls.dir, "g.pgn")
        with open(cls.pgn, "w") as f:
            f.write(GAMES)
        cls.out = {}
        cls.stderr = {}
        for name, args in (("net", []), ("search", ["--nodes=40"])):
            for kind in ("pgn", "jsonl"):
                path = os.path.join(cls.dir, "%s.%s" % (name, kind))
                p = subprocess.run([CFORMER, "analyse", cls.pgn, "-O", path, *args],
                                   capture_output=True, check=True)
                with open(path) as f:
                    cls.out[name, kind] = f.read()
                cls.stderr[name, kind] = p.stderr.decode()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_every_move_has_an_eval_and_every_variation_a_move_number(self):
        for name in ("net", "search"):
            games = games_of(self.out[name, "pgn"], prose=False)
            self.assertEqual(len(games), 4)
            plies = {"fool": 4, "illegal": 2, "stalemate": 1, "long": 16}
            for tags, moves in games:
                event = re.search(r'\[Event "(\w+)"\]', tags).group(1)
                # the main line: the text outside the variations
                main = moves
                while re.search(r"\([^()]*\)", main):
                    main = re.sub(r"\([^()]*\)", "", main)
                self.assertEqual(len(EVAL.findall(main)), plies[event], (name, event, moves))
                for var in re.findall(r"\(([^()]*)\)", moves):
                    self.assertRegex(var.strip(), r"^\d+\.(\.\.)? [KQRBNa-hO]", var)
                    self.assertEqual(len(EVAL.findall(var)), 1, var)
                # a marked move is followed by its comment and the better line
                for glyph_move in re.findall(r"\S+(?:\?\?|\?!|\?)(?= )", main):
                    self.assertIn(glyph_move, moves)
                n_marked = len(re.findall(r"\S(\?\?|\?!|\?) \{", moves))
                self.assertEqual(len(re.findall(r"\(", moves)), n_marked, moves)
                for w, d, l in WDL.findall(moves):
                    self.assertEqual(int(w) + int(d) + int(l), 1000)
                if event == "long":
                    self.assertTrue(main.endswith(" *"), main)

    def test_evals_are_whites_view_of_the_records(self):
        # net-only: the eval after ply k is the record of ply k + 1, whose
        # W/D/L is the side to move's; the eval is White's
        recs = [json.loads(l) for l in self.out["net", "jsonl"].splitlines()]
        recs = [r for r in recs if r["game"] == 4]
        moves = dict((re.search(r'\[Event "(\w+)"\]', t).group(1), m)
                     for t, m in games_of(self.out["net", "pgn"]))["long"]
        main = re.sub(r"\([^()]*\)", "", moves)
        evals = [float(e) for e, _ in EVAL.findall(main)]
        wdls = [[int(x) for x in w] for w in WDL.findall(main)]
        self.assertEqual(len(evals), 16)
        for ply, (e, wdl) in enumerate(zip(evals, wdls), start=1):
            r = recs[ply]
            white = r["fen"].split()[1] == "w"
            want = [round(1000 * x) for x in (r["wdl"] if white else r["wdl"][::-1])]
            self.assertTrue(all(abs(a - b) <= 1 for a, b in zip(wdl, want)), (ply, wdl, want))
            wl = (r["wdl"][0] - r["wdl"][2]) * (1 if white else -1)
            if abs(wl) > 0.02:
                self.assertEqual(e > 0, wl > 0, (ply, e, wl))

    def test_terminal_positions_scored_exactly(self):
        for name in ("net", "search"):
            games = dict((re.search(r'\[Event "(\w+)"\]', t).group(1), m)
                         for t, m in games_of(self.out[name, "pgn"]))
            self.assertIn("Qh4# { [%eval #0] Checkmate. }", games["fool"])
            self.assertIn("Qg6", games["stalemate"])
            self.assertRegex(games["stalemate"],
                             r"Qg6\S* \{ \[%eval 0\.00\] \[%wdl 0 1000 0\] Stalemate\.")
            recs = [json.loads(l) for l in self.out[name, "jsonl"].splitlines()]
            mate = [r for r in recs if r["game"] == 1 and r["ply"] == 4][0]
            self.assertEqual(mate["terminal"], "checkmate")
            self.assertEqual((mate["wdl"], mate["q"], mate["moves_left"]), ([0, 0, 1], -1, 0))
            stale = [r for r in recs if r["game"] == 3 and r["ply"] == 1][0]
            self.assertEqual(stale["terminal"], "stalemate")
            self.assertEqual((stale["wdl"], stale["q"]), ([0, 1, 0], 0))
            self.assertEqual(sum("terminal" in r for r in recs), 2)
            if name == "search":  # searched: nothing to play, the exact score above stands
                for over in (mate, stale):
                    self.assertEqual((over["agent"], over["nodes"], over["best"], over["lines"]),
                                     ("search", 0, None, []))
                    self.assertNotIn("mate", over)

    def test_illegal_move_game_analysed_up_to_it(self):
        for name in ("net", "search"):
            recs = [json.loads(l) for l in self.out[name, "jsonl"].splitlines()]
            self.assertEqual([r["ply"] for r in recs if r["game"] == 2], [0, 1, 2])
            for kind in ("pgn", "jsonl"):
                err = self.stderr[name, kind]
                self.assertEqual(err.count("(analysed up to it)"), 1, err)
                self.assertIn("game 2: line 9: illegal move 'Ke3' (ply 3) (analysed up to it)",
                              err)
                self.assertNotIn("skipped", err)
            games = games_of(self.out[name, "pgn"])
            tags, moves = games[1]
            self.assertIn('[Result "1-0"]', tags)
            self.assertRegex(moves, r"^1\. e4\S* .*e5\S* \{ .*illegal move 'Ke3'.*\} 1-0$")

    def test_read_back_by_python_chess(self):
        if chess is None:
            self.skipTest("python-chess is not here (installed or under tests/third_party)")
        import io
        for name in ("net", "search"):
            f = io.StringIO(self.out[name, "pgn"])
            games = []
            while True:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                games.append(g)
            self.assertEqual(len(games), 4)
            texts = games_of(self.out[name, "pgn"], prose=False)
            for g, (_, moves) in zip(games, texts):
                self.assertEqual(g.errors, [])
                nodes = list(g.mainline())
                self.assertTrue(all(n.eval() is not None for n in nodes), name)
                # the variations as written, each an alternative to a played move
                written = len(re.findall(r"\(", moves))
                alternatives = [v for n in nodes for v in n.parent.variations[1:]]
                self.assertEqual(len(alternatives), written)
                for v in alternatives:
                    self.assertNotEqual(v.move, v.parent.variations[0].move)
                    self.assertIsNotNone(v.eval())
            fool, illegal, stale, long_game = games
            last = list(fool.mainline())[-1]
            self.assertTrue(last.board().is_checkmate())
            self.assertEqual(last.eval().pov(chess.BLACK), chess.engine.MateGiven)
            self.assertEqual([n.san() for n in illegal.mainline()], ["e4", "e5"])
            self.assertEqual(illegal.headers["Result"], "1-0")
            end = list(stale.mainline())[-1]
            self.assertTrue(end.board().is_stalemate())
            self.assertEqual(end.eval().white(), chess.engine.Cp(0))
            self.assertEqual(len(list(long_game.mainline())), 16)


if __name__ == "__main__":
    CFORMER = os.path.abspath(sys.argv[1])
    where = import_python_chess(sys.argv[2])
    print("python-chess: %s" % (where or "not here: the text checks only"))
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=1)
