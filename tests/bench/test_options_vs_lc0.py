"""scripts/options_vs_lc0.py without Lc0: its parsing of both engines'
VerboseMoveStats lines (a canned transcript) and its tolerances, on made-up
statistics where the answer is known.

Usage: test_options_vs_lc0.py SOURCE_ROOT
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
import options_vs_lc0 as ovl  # noqa: E402

FAILED = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILED.append(what)


# Lc0 pads the move index after it and ends with a `node` line; cformer pads
# before it and prints dashes where a value is unknown.
LC0 = [
    "info string g2g3  (374 ) N:       0 (+ 0) (P:  5.83%) (WL:  0.00000) (D: 0.000) (M:  0.0) "
    "(Q:  0.00000) (U: 0.17058) (S: -0.05000) (V:  0.0201) ",
    "info string d2d4  (293 ) N:      27 (+ 2) (P: 20.07%) (WL:  0.10769) (D: 0.717) (M:  2.0) "
    "(Q:  0.10769) (U: 0.12575) (S:  0.23330) (V:  0.1055) ",
    "info string node  (  20) N:     101 (+ 0) (P: 86.91%) (WL:  0.07941) (D: 0.731) (M:  2.7) "
    "(Q:  0.07941) (V:  0.0291) ",
    "bestmove d2d4",
]
CFORMER = [
    "info string g2g3  ( 374) N:       0 (+ 0) (P:  5.85%) (WL:   -.-----) (D: -.---) (M:  -.-) "
    "(Q: -0.22588) (U: 0.17100) (S: -0.05488) (V:  -.----)",
    "info string d2d4  ( 293) N:      28 (+ 0) (P: 20.07%) (WL:  0.10957) (D: 0.719) (M:  2.0) "
    "(Q:  0.10957) (U: 0.12304) (S:  0.23261) (V:  0.1055)",
]

moves, node = ovl.move_stats(LC0)
check(set(moves) == {"g2g3", "d2d4"} and node is not None and node["N"] == 101,
      "Lc0's move lines and its node line are told apart")
check(moves["d2d4"]["N"] == 27 and moves["d2d4"]["flight"] == 2 and moves["d2d4"]["P"] == 20.07
      and moves["d2d4"]["V"] == 0.1055, "N, in flight, P and V are read")
mine, _ = ovl.move_stats(CFORMER)
check(mine["g2g3"]["WL"] is None and mine["g2g3"]["V"] is None and mine["g2g3"]["Q"] == -0.22588,
      "dashes read as unknown")

devs = ovl.deviations(mine, moves)
worst = max(d[0] for d in devs)
check(worst <= 1.0, f"two searches within the noise agree (worst {worst:.2f} of tolerance)")
check(ovl.q_tolerance(5, 3) is None and ovl.q_tolerance(1, 1) == 0.01 and
      abs(ovl.q_tolerance(27, 28) - (0.02 + 0.5 / 27)) < 1e-12,
      "Q/WL/D: compared at one visit each or at 10 and more, not in between")
check(any(d[1:3] == ("d2d4", "Q") for d in devs), "Q is compared at 27 and 28 visits")

shifted = {m: dict(s) for m, s in mine.items()}
shifted["d2d4"]["V"] += 0.01
bad = [d for d in ovl.deviations(shifted, moves) if d[0] > 1.0]
check([d[1:3] for d in bad] == [("d2d4", "V")], f"a child value off by 0.01 is caught: {bad}")

wide = {m: dict(s) for m, s in mine.items()}
wide["g2g3"]["U"] *= 1.2
wide["g2g3"]["S"] = wide["g2g3"]["U"] + (mine["g2g3"]["S"] - mine["g2g3"]["U"])
bad = [d for d in ovl.deviations(wide, moves) if d[0] > 1.0]
check([d[1:3] for d in bad] == [("g2g3", "U")], f"a CPuct 20% off is caught: {bad}")

fpu = {m: dict(s) for m, s in mine.items()}
fpu["g2g3"]["S"] += 0.1
bad = [d for d in ovl.deviations(fpu, moves) if d[0] > 1.0]
check([d[1:3] for d in bad] == [("g2g3", "S-U")], f"a first-play value 0.1 off is caught: {bad}")

lost = dict(mine)
del lost["g2g3"]
check(any(d[0] == math.inf and d[1] == "g2g3" for d in ovl.deviations(lost, moves)),
      "a root move one engine lacks is a difference")

visits = {m: dict(s) for m, s in mine.items()}
visits["d2d4"]["N"] = 45
bad = [d for d in ovl.deviations(visits, moves) if d[0] > 1.0]
check(any(d[1:3] == ("d2d4", "N") for d in bad), "visits 45 against 27 are caught")

# The run's verdict, with the searches replaced: a difference in a row of a
# documented choice (BY_DESIGN) is reported as such and does not fail the
# run; the same difference in any other row does.
check(set(ovl.BY_DESIGN) <= {c[0] for c in ovl.CASES} and all(ovl.BY_DESIGN.values()),
      "every by-design row is a row, with its reason")
check(("MaxPrefetch", "0") in ovl.SHARED and ("CacheHistoryLength", "0") in ovl.SHARED,
      "both engines run without prefetch and with Lc0's NN cache key")


def verdict(differing):
    """(exit status, printed table) of a run where only `differing` differs."""
    import contextlib
    import io
    import tempfile
    real = ovl.compare_case
    ovl.compare_case = lambda option, value, base, log: (
        (2.0, [f"{option}: made up"]) if option == differing else (0.5, []))
    out = io.StringIO()
    try:
        with tempfile.NamedTemporaryFile() as f, contextlib.redirect_stdout(out):
            status = ovl.main(["--lc0", f.name, "--cformer", f.name, "--net", f.name,
                               "--only", "OutOfOrderEval,Contempt"])
    finally:
        ovl.compare_case = real
    return status, out.getvalue()


status, text = verdict("OutOfOrderEval")
check(status == 0 and "| OutOfOrderEval | false | MinibatchSize 8 | 2.00 | differs by design |" in text
      and "BY DESIGN: OutOfOrderEval:" in text and "DIFFERENCE" not in text,
      "a by-design row that differs is reported so and passes the run")
status, text = verdict("Contempt")
check(status == 1 and "| Contempt | 150 / -100 |  | 2.00 | fail |" in text
      and "DIFFERENCE: Contempt: made up" in text, "any other row that differs fails the run")

sys.exit(1 if FAILED else 0)
