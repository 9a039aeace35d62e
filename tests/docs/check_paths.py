#!/usr/bin/env python3
"""check_paths.py ROOT: no tracked file of the repository names a path of
one particular machine: the root user's home, a user's home under /home,
the shared work tree at the file system's top, or a path under the tilde
home, in prose, code, comments, SVG text and data alike. A command in the
docs must run for any reader, so it says $HOME/... or a placeholder defined
in the doc ($DATA, $RUNS, ...) instead; code takes paths from its arguments.

The files are those `git ls-files` lists (every tracked file, whatever its
type); outside a git checkout, every file under ROOT but build folders.
Binary files (a NUL byte in them, or not UTF-8) are skipped: gzip and
protobuf data hold no paths a reader sees.

A path counts where it starts a word: after the start of the line, a space,
a quote, a backtick, a bracket, '>', '=' or ':'; so $ROOT/work/x or
https://host/root/ do not match. The patterns are spelled in pieces below
so that this file does not match itself.
"""
import os
import re
import subprocess
import sys

START = r"(?:^|(?<=[\s`'\"(\[{=:,;|<>]))"
S = "/"
ROOT_HOME, HOMES, WORK, TILDE = S + "root", S + "home", S + "work", "~" + S
PATTERNS = [
    (ROOT_HOME + S, re.compile(START + ROOT_HOME + r"(?:/|\b)")),
    (HOMES + "/NAME/", re.compile(START + HOMES + r"/[^/\s`'\")<]+/")),
    (WORK + S, re.compile(START + WORK + r"(?:/|\b)")),
    (TILDE, re.compile(START + TILDE + r"[A-Za-z_.$]")),
]
SKIP_DIRS = {".git", "node_modules"}


def tracked_files(root):
    """Every file git tracks under root; every file but build folders when
    root is not a git checkout."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
        if names:
            return [os.path.join(root, n) for n in sorted(names)]
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        found += [os.path.join(folder, name) for name in sorted(files)]
    return found


def read_text(path):
    """The file's text, or None for a binary file (or one that is gone)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def scan(text, patterns=None):
    """(line number, pattern name, line) for every line of text a pattern
    matches (default: the machine paths); check_reference.py shares it."""
    hits = []
    for n, line in enumerate(text.splitlines(), 1):
        for name, rx in patterns or PATTERNS:
            if rx.search(line):
                hits.append((n, name, line))
    return hits


def self_test():
    """The patterns catch what they should and nothing else."""
    bad = ["cd " + ROOT_HOME + "/cformer", "`" + WORK + "/main/build`",
           "see " + TILDE + "cformer-data/v1", "--out=" + HOMES + "/alice/data",
           "(" + ROOT_HOME + "/x)", WORK, "ls " + TILDE + ".local/share",
           '<text x="1">' + ROOT_HOME + "/runs/cf-v6/log.jsonl</text>",
           '"' + WORK + '/shared/testdata"']
    good = ["$HOME/cformer-data", "$DATA/v1", "https://example.org/root/x",
            "training/work/x", "$ROOT/work/", "~ 5%", "x ~/2", "/homework/", "/home/ dir",
            "/usr/share/cformer", "build/tools/cformer"]
    wrong = [s for s in bad if not any(rx.search(s) for _, rx in PATTERNS)]
    wrong += [s for s in good if any(rx.search(s) for _, rx in PATTERNS)]
    return wrong


def main():
    root = os.path.abspath(sys.argv[1])
    wrong = self_test()
    for s in wrong:
        print(f"check_paths.py self-test: wrong verdict on {s!r}")
    bad, files = [], 0
    for path in tracked_files(root):
        text = read_text(path)
        if text is None:
            continue
        files += 1
        rel = os.path.relpath(path, root)
        for n, name, line in scan(text):
            bad.append(f"{rel}:{n}: {name}: {line.strip()[:200]}")
    for b in bad:
        print(b)
    print(f"{files} tracked text files checked, {len(bad)} machine paths")
    return 1 if bad or wrong or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
