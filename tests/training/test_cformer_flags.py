"""test_cformer_flags: the cformer flags of datagen.py and agent_loss.py
(training/cformer_cli.py), parsed by each script's own parse_args.

--cformer PATH names the binary and --agent KIND the agent (policy, value,
search; default value); --nodes goes to `go nodes` for the search agent only;
--cformer-option NAME=VALUE (or --copt) sets UCI options. The deprecated spellings
(--agent PATH, --agent-kind, --agent-option) give the same arguments as the
new ones plus one warning each on stderr; a bad agent, a contradiction
between --agent PATH and --cformer, and a malformed option fail (exit 2).
Needs neither Stockfish nor a built cformer.

usage: test_cformer_flags.py SOURCE_ROOT
"""

import contextlib
import io
import os
import shutil
import sys
import tempfile

ROOT = sys.argv[1]
sys.path.insert(0, os.path.join(ROOT, "training"))

import agent_loss  # noqa: E402
import cformer_cli  # noqa: E402
import datagen  # noqa: E402

# Each script's arguments that are not the cformer flags.
SCRIPTS = {"datagen": (datagen, []),
           "agent_loss": (agent_loss, ["--shards", "x.tsv", "--net", "a=builtin"])}
failures = []


def parse(script, argv):
    """(args or None, exit code or None, stderr) of script's parse_args."""
    module, base = SCRIPTS[script]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return module.parse_args(base + argv), None, err.getvalue()
    except SystemExit as e:
        return None, e.code, err.getvalue()


def check(cond, what):
    if not cond:
        failures.append(what)
    print(("ok: " if cond else "FAIL: ") + what)


def flags(args):
    return (args.cformer, args.agent, args.nodes, args.cformer_options)


def main():
    tmp = tempfile.mkdtemp()
    try:
        fake = os.path.join(tmp, "cformer-copy")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(fake, 0o755)
        for script in SCRIPTS:
            # Defaults: the value agent and this checkout's build, else PATH.
            args, code, err = parse(script, [])
            check(code is None and err == "", f"{script}: no flags parse silently ({err!r})")
            check(args.agent == "value", f"{script}: default agent value ({args.agent})")
            check(args.cformer == cformer_cli.default_cformer(),
                  f"{script}: default cformer {args.cformer}")
            if os.access(cformer_cli.BUILT, os.X_OK):
                check(args.cformer == cformer_cli.BUILT, f"{script}: the built cformer by default")
            check(cformer_cli.go_nodes(args) is None, f"{script}: value agent: a bare go")

            # The new spellings.
            args, code, err = parse(script, ["--cformer", fake, "--agent", "search", "--nodes",
                                             "16", "--cformer-option", "Threads=1",
                                             "--cformer-option", "WeightsFile=n.pb.gz"])
            check(code is None and err == "", f"{script}: new flags parse silently ({err!r})")
            check(flags(args) == (fake, "search", 16, {"Threads": "1", "WeightsFile": "n.pb.gz"}),
                  f"{script}: new flags {flags(args)}")
            check(cformer_cli.go_nodes(args) == 16, f"{script}: search agent: go nodes 16")
            check(cformer_cli.engine_options(args, WeightsFile="w") ==
                  {"Agent": "search", "Threads": "1", "WeightsFile": "w"},
                  f"{script}: engine options (extra wins)")
            for kind in ("policy", "value"):
                args, code, _ = parse(script, ["--agent", kind])
                check(args.agent == kind and cformer_cli.go_nodes(args) is None,
                      f"{script}: --agent {kind}")

            # The old spellings: same arguments, one warning each.
            new, _, _ = parse(script, ["--cformer", fake, "--agent", "policy",
                                       "--cformer-option", "WeightsFile=n.pb.gz"])
            old, code, err = parse(script, ["--agent", fake, "--agent-kind", "policy",
                                            "--agent-option", "WeightsFile=n.pb.gz"])
            check(code is None and flags(old) == flags(new),
                  f"{script}: old spellings mean the new ones ({flags(old) if old else code})")
            warnings = [l for l in err.splitlines() if "deprecated" in l]
            check(len(warnings) == 3 and all(w.startswith(script) for w in warnings)
                  and f"use --cformer {fake}" in err and "use --agent" in err
                  and "use --cformer-option" in err, f"{script}: three deprecation warnings {err!r}")
            # --agent PATH: a file in the working folder, no '/' in its name.
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                args, code, err = parse(script, ["--agent", "cformer-copy"])
            finally:
                os.chdir(cwd)
            check(code is None and args.cformer == "cformer-copy" and args.agent == "value"
                  and "deprecated" in err, f"{script}: --agent FILE means --cformer FILE")
            # A path that does not exist yet is still a path when it has a '/'.
            args, code, err = parse(script, ["--agent", "build/nowhere/cformer"])
            check(code is None and args.cformer == "build/nowhere/cformer" and "deprecated" in err,
                  f"{script}: --agent DIR/NAME means --cformer DIR/NAME")
            # The old option appends to the new one's list.
            args, _, _ = parse(script, ["--cformer-option", "Threads=1", "--agent-option", "A=b"])
            check(args.cformer_options == {"Threads": "1", "A": "b"},
                  f"{script}: --agent-option adds to --cformer-option {args.cformer_options}")

            # --copt, cformer-match's spelling, is the same option (no warning).
            args, code, err = parse(script, ["--copt", "Threads=1", "--cformer-option", "B=c"])
            check(code is None and err == "" and args.cformer_options == {"Threads": "1", "B": "c"},
                  f"{script}: --copt is --cformer-option ({err!r})")

            # Errors.
            for argv, message in ((["--agent", "mcts"], "not an agent"),
                                  (["--agent-kind", "mcts"], "invalid choice"),
                                  (["--agent", fake, "--cformer", "/bin/true"], "contradicts"),
                                  (["--cformer-option", "Threads"], "NAME=VALUE"),
                                  (["--agent-option", "=1"], "NAME=VALUE"),
                                  (["--agent", "search", "--nodes", "0"], "positive")):
                args, code, err = parse(script, argv)
                last = err.strip().splitlines()[-1] if err.strip() else ""
                check(code == 2 and message in err, f"{script}: {' '.join(argv)} fails ({last})")
            # --agent PATH that agrees with --cformer is not a contradiction.
            args, code, _ = parse(script, ["--agent", fake, "--cformer", fake])
            check(code is None and args.cformer == fake, f"{script}: --agent PATH == --cformer")
    finally:
        shutil.rmtree(tmp)
    print(f"{len(failures)} failures")
    sys.exit(1 if failures else 0)


main()
