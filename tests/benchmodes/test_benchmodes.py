"""`cformer benchmark` and `cformer backendbench` end to end on the
built-in network, read the way a script written for Lc0's output reads
them: tiny configurations, no timing asserted (only the layout and the
counts that do not depend on speed), and bad flags refused with status 2.

    python3 test_benchmodes.py CFORMER
"""

import re
import subprocess
import sys
import unittest

CFORMER = None

# Lc0's `benchmark` lines (src/tools/benchmark.cc's layout)
POSITION = re.compile(r"^Position: (\d+)/(\d+) (\S.*)$")
PROGRESS = re.compile(r"^Benchmark time (\d+) ms, (\d+) nodes, (\d+) nps(?:, move ([a-h][1-8][a-h][1-8][qrbn]?))?$")
BESTMOVE = re.compile(r"^bestmove ([a-h][1-8][a-h][1-8][qrbn]?)$")
TOTALS = re.compile(r"\n===========================\nTotal time \(ms\) : (\d+)\n"
                    r"Nodes searched  : (\d+)\nNodes/second    : (\d+)\n$")
# Lc0's `backendbench` CSV header, byte for byte
HEADER = ("size, mean nps, mean ms,   sdev,     cv, max nps,  median, min nps, "
          "first max, first mean")


def run(*args):
    return subprocess.run([CFORMER] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=600, text=True)


class Benchmark(unittest.TestCase):
    def test_lc0_layout_and_counts(self):
        p = run("benchmark", "--nodes", "6", "--movetime", "-1", "--num-positions", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        totals = TOTALS.search(p.stdout)
        self.assertIsNotNone(totals, p.stdout)
        positions, last_nodes = [], {}
        for line in p.stdout[:totals.start()].splitlines():
            if not line:
                continue
            m = POSITION.match(line)
            if m:
                positions.append(m.groups())
                continue
            m = PROGRESS.match(line)
            if m:
                last_nodes[len(positions)] = int(m.group(2))
                continue
            self.assertRegex(line, BESTMOVE, "a line Lc0 never prints")
        self.assertEqual([(i, n) for i, n, _ in positions], [("1", "3"), ("2", "3"), ("3", "3")])
        # position 1 is Lc0's first: the start position
        self.assertTrue(positions[0][2].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP"))
        # each position's last progress line is its full search: 6 nodes
        self.assertEqual(last_nodes, {1: 6, 2: 6, 3: 6})
        self.assertEqual(int(totals.group(2)), 18)
        ms = int(totals.group(1))
        self.assertEqual(int(totals.group(3)), round(1000 * 18 / (ms + 1)))

    def test_fen_with_moves_is_the_only_position(self):
        fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4"
        p = run("benchmark", "--nodes", "3", "--fen", fen, "--num-positions", "5")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nPosition: 1/1 " + fen + "\n", p.stdout)
        self.assertEqual(p.stdout.count("bestmove "), 1)

    def test_bad_flags(self):
        cases = [(["--nodes", "0"], "--nodes"),
                 (["--num-positions", "35"], "--num-positions"),
                 (["--nodes", "-1", "--movetime", "-1"], "would not end"),
                 (["--fen", "not a fen"], "--fen"),
                 (["--fen", "8/8/8/8/8/8/8/K6k w - - 0 1 moves e2e4"], "--fen"),
                 (["--no-such-flag"], "no-such-flag")]
        for args, word in cases:
            p = run("benchmark", *args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(word, p.stderr)
            self.assertEqual(p.stdout, "")


class Backendbench(unittest.TestCase):
    def rows(self, out):
        lines = out.splitlines()
        return lines, [[float(x) for x in l.split(",")] for l in lines if l != HEADER]

    def test_lc0_layout(self):
        p = run("backendbench", "--batches", "3", "--start-batch-size", "2",
                "--max-batch-size", "6", "--batch-step", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines, rows = self.rows(p.stdout)
        self.assertEqual(lines[0], HEADER)
        self.assertEqual(lines.count(HEADER), 1)
        self.assertEqual([int(r[0]) for r in rows], [2, 4, 6])
        for line, r in zip(lines[1:], rows):
            self.assertEqual(len(r), 10, line)
            # Lc0's column widths: each field right-aligned to its header's
            self.assertEqual([len(f) for f in line.split(",")],
                             [4, 9, 8, 7, 7, 8, 8, 8, 10, 11], line)
            size, mean_nps, mean_ms, sdev, cv, max_nps, median, min_nps = r[:8]
            self.assertGreater(mean_ms, 0)
            self.assertGreaterEqual(sdev, 0)
            self.assertLessEqual(min_nps, median + 1)   # printed rounded
            self.assertLessEqual(median, max_nps + 1)

    def test_header_every_32_rows_unless_once(self):
        p = run("backendbench", "--batches", "2", "--max-batch-size", "33")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual([i for i, l in enumerate(lines) if l == HEADER], [0, 33])
        p = run("backendbench", "--batches", "2", "--max-batch-size", "33", "--header-only-once")
        self.assertEqual(p.stdout.splitlines().count(HEADER), 1)

    def test_clippy(self):
        p = run("backendbench", "--batches", "2", "--max-batch-size", "3", "--clippy")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Recommended minibatch-size for this net:", p.stdout)
        for control in ("Bullet", "Rapid", "Tournament"):
            m = re.search(r"\(%s\): +(\d+)" % control, p.stdout)
            self.assertIsNotNone(m, p.stdout)
            self.assertIn(int(m.group(1)), (1, 2, 3))

    def test_bad_flags(self):
        cases = [(["--batches", "1"], "--batches"),
                 (["--start-batch-size", "9", "--max-batch-size", "4"], "--start-batch-size"),
                 (["--max-batch-size", "1025"], "--max-batch-size"),
                 (["--batch-step", "0"], "--batch-step"),
                 (["--fen", "nonsense"], "--fen"),
                 (["--backend", "no-such-backend"], "no-such-backend")]
        for args, word in cases:
            p = run("backendbench", *args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(word, p.stderr)
            self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    CFORMER = sys.argv.pop(1)
    unittest.main()
