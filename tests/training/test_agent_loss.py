"""test_agent_loss: training/agent_loss.py on the committed sample shard.

The same network entered twice must get identical figures and a paired
difference of exactly zero; a rerun reproduces the output; the policy agent
(--agent policy), whose move is the policy argmax, agrees with Stockfish at
least sometimes and its expected-score loss is within [0, 100]; the old
spellings (--agent CFORMER --agent-kind policy) give the same output plus
deprecation warnings; the search agent (--agent search --nodes N) runs and
says so; bad arguments fail with a message.

usage: test_agent_loss.py CFORMER SOURCE_ROOT   (exit 77: no Stockfish)
"""

import os
import subprocess
import sys

STOCKFISH = "/usr/games/stockfish"
if not os.access(STOCKFISH, os.X_OK):
    print(f"{STOCKFISH} not installed: skipped")
    sys.exit(77)

CFORMER, ROOT = sys.argv[1:3]
SCRIPT = os.path.join(ROOT, "training", "agent_loss.py")
SAMPLE = os.path.join(ROOT, "training", "sample", "sample.tsv")


def run(*extra, binary=("--cformer", CFORMER), positions=30):
    return subprocess.run([sys.executable, SCRIPT, *binary, "--shards", SAMPLE,
                           "--label-nodes", "300", "--positions", str(positions),
                           "--progress-every", "0", *extra],
                          capture_output=True, text=True, timeout=240)


def table(out):
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] in ("a", "b"):
            rows[parts[0]] = parts[1:]
    return rows


def main():
    res = run("--net", "a=builtin", "--net", "b=builtin")
    assert res.returncode == 0, res.stderr
    rows = table(res.stdout)
    assert set(rows) == {"a", "b"}, res.stdout
    assert rows["a"] == rows["b"], res.stdout
    assert "b - a: ES loss +0.00 ± 0.00" in res.stdout, res.stdout
    assert res.stdout.startswith("30 positions"), res.stdout
    again = run("--net", "a=builtin", "--net", "b=builtin")
    assert again.stdout == res.stdout, (res.stdout, again.stdout)

    pol = run("--net", "a=builtin", "--agent", "policy")
    assert pol.returncode == 0 and "deprecated" not in pol.stderr, pol.stderr
    assert "policy agent" in pol.stdout.splitlines()[0], pol.stdout
    agree, es = table(pol.stdout)["a"][:2]
    assert 0.0 < float(agree.split("±")[0]) <= 100.0, pol.stdout
    assert 0.0 <= float(es.split("±")[0]) <= 100.0, pol.stdout

    # The spellings of 0.1.0's first drafts still work, with a warning each.
    old = run("--net", "a=builtin", "--agent-kind", "policy", binary=("--agent", CFORMER))
    assert old.returncode == 0, old.stderr
    assert old.stdout == pol.stdout, (old.stdout, pol.stdout)
    assert f"--agent {CFORMER} (a path) is deprecated, use --cformer {CFORMER}" in old.stderr, old.stderr
    assert "--agent-kind is deprecated, use --agent" in old.stderr, old.stderr

    # The search agent at a few visits per move (`go nodes 8`).
    search = run("--net", "a=builtin", "--agent", "search", "--nodes", "8",
                 "--cformer-option", "Threads=1", positions=10)
    assert search.returncode == 0, search.stderr
    assert search.stdout.startswith("10 positions, Stockfish 300 nodes, search (8 visits) agent"), \
        search.stdout
    agree, es = table(search.stdout)["a"][:2]
    assert 0.0 <= float(agree.split("±")[0]) <= 100.0, search.stdout
    assert 0.0 <= float(es.split("±")[0]) <= 100.0, search.stdout

    for bad, message in ((["--net", "nameonly"], "NAME=WEIGHTS"),
                         (["--net", "a=/nonexistent.pb.gz"], "no such file"),
                         (["--net", "a=builtin", "--agent", "mcts"], "not an agent"),
                         (["--net", "a=builtin", "--cformer", "/nonexistent/cformer"],
                          "not an executable")):
        r = run(*bad)
        assert r.returncode != 0 and message in r.stderr, (bad, r.stderr)
    print("ok:", res.stdout.splitlines()[2])


if __name__ == "__main__":
    main()
