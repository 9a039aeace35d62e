"""Every option in Lc0's `uci` reply is accepted by cformer.

Reads the committed copy of Lc0's reply (tests/data/lc0/lc0-uci-reply.txt),
sets each option in cformer to Lc0's default value (the first var of a combo)
and fails, listing them, where cformer answers `unknown option` for any.
Values cformer does not take (Lc0's backend names, its weights
autodiscovery) are not the point here: only the option names are checked,
so a value error is allowed but printed. The list of Lc0 options seen must
not be empty, so a broken data file cannot pass.

Usage: check_lc0_option_list.py CFORMER LC0_UCI_REPLY
"""
import subprocess
import sys


def lc0_options(path):
    """[(name, default value)] of the `option name` lines of a `uci` reply."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("option name "):
                continue
            tokens = line.split(" ")
            kind_at = tokens.index("type")
            name = " ".join(tokens[2:kind_at])
            kind = tokens[kind_at + 1]
            default = line.split(" default ", 1)[1] if " default " in line else ""
            if kind == "combo":
                default = default.split(" var ")[0]
            elif kind == "spin":
                default = default.split(" min ")[0]
            out.append((name, default))
    return out


def main():
    cformer, reply = sys.argv[1], sys.argv[2]
    options = lc0_options(reply)
    if len(options) < 20:
        print(f"FAIL: only {len(options)} options read from {reply}")
        return 1
    # One `isready` after each setoption: the lines before its readyok are
    # that option's answer.
    commands = ["uci"]
    for name, value in options:
        commands += [f"setoption name {name} value {value}", "isready"]
    commands.append("quit")
    p = subprocess.run([cformer, "uci"], input="\n".join(commands) + "\n",
                       capture_output=True, text=True, timeout=120)
    lines = p.stdout.splitlines()
    try:
        lines = lines[lines.index("uciok") + 1:]
    except ValueError:
        print(f"FAIL: no uciok from {cformer} (exit {p.returncode})\n{p.stderr[-2000:]}")
        return 1
    answers, current = [], []
    for line in lines:
        if line == "readyok":
            answers.append(current)
            current = []
        else:
            current.append(line)
    if len(answers) != len(options):
        print(f"FAIL: {len(answers)} readyok for {len(options)} options\n{p.stderr[-2000:]}")
        return 1
    missing = []
    for (name, value), answer in zip(options, answers):
        for line in answer:
            if "unknown option" in line:
                missing.append(name)
            elif line.startswith("info string error"):
                print(f"note: {name} = '{value}' (Lc0's default): {line}")
    if missing:
        print(f"FAIL: {len(missing)} of Lc0's {len(options)} options are not accepted by "
              f"cformer: {', '.join(missing)}")
        return 1
    print(f"ok: all {len(options)} options of Lc0's uci reply are accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
