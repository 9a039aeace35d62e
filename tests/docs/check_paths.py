#!/usr/bin/env python3
"""check_paths.py ROOT: no Markdown file in the repository names a path of
one particular machine: /root/..., /home/NAME/..., /work/... or ~/...,
in prose and in code blocks alike. A command in the docs must run for any
reader, so it says $HOME/... or a placeholder defined in the doc
($DATA, $RUNS, ...) instead.

A path counts where it starts a word: after the start of the line, a space,
a quote, a backtick, a bracket, '=' or ':'; so $ROOT/work/x or
https://host/root/ do not match.
"""
import os
import re
import sys

START = r"(?:^|(?<=[\s`'\"(\[{=:,;|<>]))"
PATTERNS = [
    ("/root/", re.compile(START + r"/root(?:/|\b)")),
    ("/home/NAME/", re.compile(START + r"/home/[^/\s`'\")]+/")),
    ("/work/", re.compile(START + r"/work(?:/|\b)")),
    ("~/", re.compile(START + r"~/[A-Za-z_.$]")),
]
SKIP_DIRS = {".git", "node_modules"}


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def scan(path):
    """(line number, pattern name, line) for every machine path in the file."""
    hits = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for name, rx in PATTERNS:
                if rx.search(line):
                    hits.append((n, name, line.rstrip("\n")))
    return hits


def self_test():
    """The patterns catch what they should and nothing else."""
    bad = ["cd /root/cformer", "`/work/main/build`", "see ~/cformer-data/v1",
           "--out=/home/alice/data", "(/root/x)", "/work", "ls ~/.local/share"]
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
    for md in markdown_files(root):
        files += 1
        rel = os.path.relpath(md, root)
        for n, name, line in scan(md):
            bad.append(f"{rel}:{n}: {name}: {line.strip()}")
    for b in bad:
        print(b)
    print(f"{files} Markdown files checked, {len(bad)} machine paths")
    return 1 if bad or wrong or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
