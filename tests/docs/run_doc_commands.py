#!/usr/bin/python3
"""run_doc_commands.py ROOT BUILD: every shell command shown in README.md and
docs/*.md runs, and exits 0.

A shell command is a fenced block marked ```sh (or bash, shell). Each block
runs whole under `bash -e -o pipefail`, standard input empty, with a time
limit (DOCTEST_TIMEOUT seconds, default 30), in a scratch folder laid out as
the README's commands leave the repository: every top-level entry of ROOT
linked in, `build/` the build tree BUILD, the tools' folders on PATH (so a
page may write `cformer` or `build/tools/cformer`), and these small inputs
beside them:

  net.pb.gz, my-net.pb.gz, trained.pb.gz  a 1-layer random RPE net (netconv random)
  games.pgn, games.pgn.zst                two short games (the .zst when zstd exists)
  puzzles.csv                             the first five shipped puzzles

A block that cannot run here is marked on a line of its own before the
fence, with the reason, and is reported as skipped:

  <!-- doctest: skip (needs a GPU) -->

A block that runs only where something is installed names a command that
tells; where it fails, the block is skipped with that command as the reason:

  <!-- doctest: needs python3 -c "import chess.engine" -->

A page may also hide setup commands that a block relies on, run just before
it in the same shell:

  <!-- doctest: setup printf 'uci\\nquit\\n' > in.txt -->

Indented code blocks that start with a command (cformer, netconv, python3,
build/, scripts/ ...) and fenced blocks without a language are refused:
commands belong in ```sh blocks, where they are run, and output in ```text.
Exit status 0 when every block ran and passed, 1 otherwise.
"""
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^```(\w*)\s*$")
SKIP = re.compile(r"^<!--\s*doctest:\s*skip\s*\((.+)\)\s*-->\s*$")
SETUP = re.compile(r"^<!--\s*doctest:\s*setup\s+(.+?)\s*-->\s*$")
NEEDS = re.compile(r"^<!--\s*doctest:\s*needs\s+(.+?)\s*-->\s*$")
SHELLS = {"sh", "bash", "shell"}
COMMAND_WORDS = re.compile(
    r"^    (?:\$ )?(?:build/|cformer|netconv|python3 |/usr/bin/python3 |scripts/|meson |ninja |"
    r"bash |[A-Z][A-Z_]*=\S|flock |pip |man |cat |mkdir |/usr/bin/time |tests/|git |env )")

GAMES_PGN = """[Event "doc test"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "doc test"]
[White "c"]
[Black "d"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2
"""


def pages(root):
    yield os.path.join(root, "README.md")
    docs = os.path.join(root, "docs")
    for name in sorted(os.listdir(docs)):
        if name.endswith(".md"):
            yield os.path.join(docs, name)


def blocks(path):
    """(line, lang, text, skip reason or None, [setup]) of each fenced block,
    and [(line, text)] of indented blocks that start with a command."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, indented = [], []
    i = 0
    pending_skip, pending_setup = None, []
    prev_blank = True
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            lang, start, body = m.group(1), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append((start, lang, "\n".join(body), pending_skip, pending_setup))
            pending_skip, pending_setup = None, []
            i += 1
            prev_blank = False
            continue
        sm, um, nm = SKIP.match(line), SETUP.match(line), NEEDS.match(line)
        if sm:
            pending_skip = sm.group(1)
        elif um:
            pending_setup.append(um.group(1))
        elif nm:
            pending_setup.append(("needs", nm.group(1)))
        elif line.strip():
            if prev_blank and COMMAND_WORDS.match(line):
                indented.append((i + 1, line.strip()))
            if not line.startswith("    "):
                pending_skip, pending_setup = None, []
        prev_blank = not line.strip()
        i += 1
    return out, indented


def make_scratch(root, build):
    scratch = tempfile.mkdtemp(prefix="cformer-doctest-")
    for name in os.listdir(root):
        if name.startswith(".") or name.startswith("build"):
            continue
        os.symlink(os.path.join(root, name), os.path.join(scratch, name))
    os.symlink(build, os.path.join(scratch, "build"))
    netconv = os.path.join(build, "tools", "netconv", "netconv")
    net = os.path.join(scratch, "net.pb.gz")
    subprocess.run([netconv, "random", "--layers", "1", "--embedding", "32", "--heads", "2",
                    "--dff", "32", "--rpe", "--seed", "1", "-o", net],
                   check=True, stdout=subprocess.DEVNULL, timeout=60)
    for other in ("my-net.pb.gz", "trained.pb.gz"):
        shutil.copy(net, os.path.join(scratch, other))
    with open(os.path.join(scratch, "games.pgn"), "w") as f:
        f.write(GAMES_PGN)
    if shutil.which("zstd"):
        subprocess.run(["zstd", "-q", "games.pgn", "-o", "games.pgn.zst"], cwd=scratch,
                       check=True, timeout=30)
    with open(os.path.join(root, "data", "puzzles", "lichess_puzzles_public.csv")) as f:
        head = [next(f) for _ in range(6)]
    with open(os.path.join(scratch, "puzzles.csv"), "w") as f:
        f.writelines(head)
    return scratch


def run_block(scratch, build, where, text, setup, timeout):
    env = dict(os.environ)
    tools = os.path.join(build, "tools")
    env["PATH"] = os.pathsep.join([tools, os.path.join(tools, "netconv"),
                                   os.path.join(tools, "match"), env.get("PATH", "")])
    for need in [x[1] for x in setup if isinstance(x, tuple)]:
        probe = subprocess.run(["bash", "-c", need], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        if probe.returncode != 0:
            return f"skipped (needs: {need})"
    script = "\n".join([x for x in setup if not isinstance(x, tuple)] + [text])
    # A session of its own, so that a block past its time is ended with
    # everything it started.
    t0 = time.monotonic()
    p = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script], cwd=scratch, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return f"{where}: did not finish in {timeout} s"
    if p.returncode != 0:
        tail = out.decode("utf-8", "replace").rstrip().splitlines()[-15:]
        return f"{where}: exit status {p.returncode}\n    " + "\n    ".join(tail)
    return f"{time.monotonic() - t0:.1f} s"


def main():
    root, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    timeout = float(os.environ.get("DOCTEST_TIMEOUT", "30"))
    bad, jobs, skipped = [], [], []
    for page in pages(root):
        rel = os.path.relpath(page, root)
        found, indented = blocks(page)
        for n, line in indented:
            bad.append(f"{rel}:{n}: a command in an indented block (put it in a ```sh "
                       f"block so it is run): {line}")
        for start, lang, text, skip, setup in found:
            if not lang:
                bad.append(f"{rel}:{start}: a fenced block without a language: ```sh for "
                           f"commands (they are run), ```text for output")
                continue
            if lang not in SHELLS:
                continue
            where = f"{rel}:{start}"
            if skip:
                skipped.append(f"{where}: skipped ({skip})")
            elif ".zst" in text and not shutil.which("zstd"):
                skipped.append(f"{where}: skipped (zstd is not installed)")
            else:
                jobs.append((where, text, setup))
    scratch = make_scratch(root, build)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda j: run_block(scratch, build, j[0], j[1], j[2], timeout),
                                    jobs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    problems, ran = [], 0
    for (where, _, _), r in zip(jobs, results):
        if r.endswith(" s") and r[:-2].replace(".", "").isdigit():
            print(f"{where}: ran in {r}")
            ran += 1
        elif r.startswith("skipped"):
            skipped.append(f"{where}: {r}")
        else:
            problems.append(r)
    for s in skipped:
        print(s)
    bad += problems
    for b in bad:
        print(b)
    print(f"{ran} blocks run, {len(skipped)} skipped, {len(bad)} problems")
    return 1 if bad or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
