#!/usr/bin/env python3
"""scripts/bench_play_vs_lc0.py: its parsing and arithmetic, then a run.

First the functions on made-up engine output: info lines of both engines'
formats, a search's rate (nps, or nodes / time), mate detection, medians,
ratios and positions left out for a mate. Then whole runs with the real
cformer (reference backend, a tiny random net, short movetimes) against a
fake Lc0 that speaks UCI and reports known rates: the rates, ratios and mate
exclusion of the report, the options and environment Lc0 gets, the engine
order alternating, and failures and usage errors with their exit statuses.
No timing is asserted.

usage: test_bench_play_vs_lc0.py CFORMER SOURCE_ROOT
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import script_checks  # noqa: E402  (the checks both script tests share)

cformer, root = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "bench_play_vs_lc0.py")
sys.path.insert(0, os.path.join(root, "scripts"))
import bench_play_vs_lc0 as play  # noqa: E402

check = script_checks.Checks()


# --- parsing ---------------------------------------------------------------
LC0_LINE = ("info depth 9 seldepth 24 time 4981 nodes 9412 score cp 23 wdl 310 402 288 "
            "nps 1890 tbhits 0 pv e2e4 e7e5 g1f3")
info = play.parse_info(LC0_LINE)
check(info == dict(depth=9, seldepth=24, time=4981, nodes=9412, score=23, score_kind="cp",
                   nps=1890, tbhits=0), f"an Lc0 info line: {info}")
info = play.parse_info("info depth 3 seldepth 5 time 120 nodes 77 score mate -2 nps 641 "
                       "hashfull 1 pv a1a2")
check(info["score_kind"] == "mate" and info["score"] == -2 and info["nps"] == 641,
      "a mate score is read with its sign")
check(play.parse_info("info string error: no such option") == {}, "info string: no fields")
check(play.parse_info("bestmove e2e4") is None, "not an info line: None")
check(play.parse_info("info nodes many") is None, "a number that is not one: None")

s = play.summarize_search(["info depth 1 time 10 nodes 5 score cp 1 nps 500 pv e2e4",
                           "info string a note", LC0_LINE, "bestmove e2e4 ponder e7e5"])
check(s["rate"] == 1890 and s["nodes"] == 9412 and s["bestmove"] == "e2e4" and not s["mate"],
      f"the rate is the last info line's nps: {s}")
s = play.summarize_search(["info depth 2 time 250 nodes 500 score cp 3 pv d2d4", "bestmove d2d4"])
check(s["rate"] == 2000 and s["nps"] is None, "without nps: nodes * 1000 / time")
s = play.summarize_search(["info depth 2 time 100 nodes 50 score mate 3 nps 500 pv a1a8",
                           "info depth 3 time 200 nodes 90 score cp 900 nps 450 pv a1a8",
                           "bestmove a1a8"])
check(s["mate"] and s["rate"] == 450, "a mate on any info line marks the search")
for bad, what in [(["bestmove e2e4"], "no info line"), ([LC0_LINE], "no bestmove"),
                  (["info depth 1 time 0 nodes 3 pv e2e4", "bestmove e2e4"], "no nps, no time")]:
    try:
        play.summarize_search(bad)
        check(False, f"{what}: an error")
    except play.RunError:
        check(True, f"{what}: an error")

# --- arithmetic -------------------------------------------------------------
ms = []
for rnd, (a, b, c) in enumerate([(100, 150, 300), (120, 130, 240), (110, 170, 250)]):
    ms += [dict(net="n", position="p1", engine="lc0", rate=a, mate=False),
           dict(net="n", position="p1", engine="cf", rate=b, mate=False),
           dict(net="n", position="p2", engine="lc0", rate=c, mate=False),
           dict(net="n", position="p2", engine="cf", rate=2 * c, mate=False),
           dict(net="n", position="p3", engine="lc0", rate=50, mate=rnd == 2),
           dict(net="n", position="p3", engine="cf", rate=500, mate=False)]
rows, overall = play.aggregate(ms, "lc0", ["lc0", "cf"])
by = {r["position"]: r for r in rows}
check(by["p1"]["medians"] == {"lc0": 110, "cf": 150}, f"medians per position: {by['p1']}")
check(abs(by["p1"]["ratios"]["cf"] - 150 / 110) < 1e-12 and by["p2"]["ratios"]["cf"] == 2.0,
      "ratio = median cformer / median Lc0")
check(by["p3"]["mate"] and by["p3"]["ratios"]["cf"] is None,
      "a mate in one round of one engine leaves the position out")
o = overall[0]
check(o["positions"] == 2 and abs(o["median_ratio"] - (150 / 110 + 2) / 2) < 1e-12 and
      abs(o["geomean_ratio"] - (150 / 110 * 2) ** 0.5) < 1e-12,
      f"overall: median and geometric mean over the positions without a mate: {o}")

# --- whole runs against a fake Lc0 -----------------------------------------
FAKE = r'''#!/usr/bin/env python3
import os, sys
log = open(os.environ["FAKE_LC0_LOG"], "a")
log.write("env OMP_NUM_THREADS=%s\n" % os.environ.get("OMP_NUM_THREADS"))
opts, pos = {}, ""
for line in sys.stdin:
    line = line.strip()
    log.write(line + "\n"); log.flush()
    if line == "uci":
        print("id name FakeLc0"); print("uciok")
    elif line.startswith("setoption name "):
        name, _, value = line[len("setoption name "):].partition(" value ")
        opts[name] = value
    elif line == "isready":
        if not os.path.isfile(opts.get("WeightsFile", "")) or os.environ.get("FAKE_LC0_BADNET"):
            print("error Invalid weight file: " + opts.get("WeightsFile", ""))
        print("readyok")
    elif line.startswith("position "):
        pos = line
    elif line.startswith("go nodes"):  # the same-network check: cformer's answer
        sys.path.insert(0, os.environ["FAKE_TESTS_DIR"])
        import fake_lc0_uci
        print("\n".join(fake_lc0_uci.cformer_search(opts, pos, line)))
    elif line.startswith("go "):
        if os.environ.get("FAKE_LC0_CRASH"):
            sys.exit(5)
        if "8/8/8" in pos:  # the endgame: a proven mate, no nps on the line
            print("info depth 2 seldepth 3 time 400 nodes 600 score mate 1 pv a1a8")
        elif "e2e4" in pos:
            print("info depth 5 seldepth 9 time 90 nodes 180 score cp 20 nps 2000 pv g1f3")
        else:
            print("info depth 5 seldepth 9 time 90 nodes 90 score cp 10 nps 1000 pv e2e4")
        print("bestmove e2e4")
    elif line == "quit":
        break
    sys.stdout.flush()
'''

with tempfile.TemporaryDirectory() as tmp:
    fake = script_checks.write_fake(tmp, FAKE)
    log = os.path.join(tmp, "calls.log")
    positions = os.path.join(tmp, "positions.txt")
    with open(positions, "w") as f:
        f.write("# three positions\nstartpos\nstartpos moves e2e4\n"
                "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\n")
    env = dict(os.environ, FAKE_LC0_LOG=log, FAKE_CFORMER=cformer,
               FAKE_TESTS_DIR=os.path.dirname(os.path.abspath(__file__)))
    env.pop("OMP_NUM_THREADS", None)
    out_json = os.path.join(tmp, "out.json")
    base = [sys.executable, script, "--cformer", cformer, "--backend", "ref", "--shapes", "2x32",
            "--positions", positions, "--minibatch", "4", "--movetime-ms", "60", "--rounds", "2"]

    p, data = script_checks.run_with_fake(check, base, fake, out_json, env)
    if data is not None:
        lc0 = [m for m in data["measurements"] if m["engine"] == "lc0 fake"]
        mine = [m for m in data["measurements"] if m["engine"] == "cformer f32"]
        check(len(lc0) == 6 and len(mine) == 6, "2 rounds x 3 positions for each engine")
        expect = {"positions.txt:2": 1000, "positions.txt:3": 2000, "positions.txt:4": 1500}
        check(all(m["rate"] == expect[m["position"]] for m in lc0),
              "Lc0's rate: nps of its last info line, else nodes * 1000 / time")
        check(all(m["rate"] > 0 and m["nodes"] > 0 and m["bestmove"] for m in mine),
              "cformer's searches report visits and a move")
        rows = {r["position"]: r for r in data["rows"]}
        r2 = rows["positions.txt:3"]
        check(abs(r2["ratios"]["cformer f32"] - r2["medians"]["cformer f32"] / 2000) < 1e-9 and
              f"{r2['ratios']['cformer f32']:.2f}x" in p.stdout, "the ratio is computed and printed")
        check(rows["positions.txt:4"]["mate"] and rows["positions.txt:4"]["ratios"]["cformer f32"]
              is None and "| mate" in p.stdout, "the position with a mate is left out")
        check(data["overall"][0]["positions"] == 2, "the overall ratio covers the other two")
        first = [m["engine"] for m in data["measurements"][:6]]
        check(first == ["lc0 fake", "cformer f32", "cformer f32", "lc0 fake", "lc0 fake",
                        "cformer f32"], f"the order alternates by position: {first}")
        second = data["measurements"][6]["engine"]
        check(second == "cformer f32", "and by round")
        calls = open(log).read().splitlines()
        for want in ["env OMP_NUM_THREADS=1", "setoption name Backend value blas",
                     "setoption name Threads value 1", "setoption name MinibatchSize value 4",
                     "setoption name SmartPruningFactor value 0", "go movetime 60"]:
            check(want in calls, f"Lc0 gets '{want}'")
        check(calls.count("ucinewgame") == 6 + 3 and calls.count("go nodes 1") == 3,
              "ucinewgame before every search, the check's three one-visit searches among them")
        check("setoption name VerboseMoveStats value true" in calls and
              "setoption name UCI_ShowWDL value true" in calls,
              "the check asks Lc0 for its priors and W/D/L")
        check("load average before:" in p.stdout and "CPU use" in p.stdout,
              "the load average and CPU use are printed")

    for var, what in [("FAKE_LC0_BADNET", "an Lc0 that rejects the net"),
                      ("FAKE_LC0_CRASH", "an Lc0 that exits in a search")]:
        p = subprocess.run(base + ["--lc0", fake, "--rounds", "1"], env=dict(env, **{var: "1"}),
                           capture_output=True, text=True)
        check(p.returncode == 1 and "lc0" in p.stderr, f"{what}: exit 1 with a message")

    p = subprocess.run(base + ["--lc0", fake, "--rounds", "1"],
                       env=dict(env, FAKE_LC0_DISAGREE="1"), capture_output=True, text=True)
    check(p.returncode == 1 and "disagree on the network's outputs" in p.stderr,
          "an Lc0 that computes another network: exit 1 before any timed search")

    usage_cases = [([], "no --lc0"), (["--lc0", os.path.join(tmp, "nope")], "a missing Lc0"),
                   (["--lc0", fake, "--precisions", "f32,f32"], "a precision twice"),
                   (["--lc0", fake, "--movetime-ms", "0"], "movetime 0"),
                   (["--lc0", fake, "--positions", os.path.join(tmp, "none")], "no positions"),
                   (["--lc0", fake, "--bogus"], "an unknown flag")]
    script_checks.check_usage(check, script, base, usage_cases, env)

sys.exit(check.finish())
