#!/usr/bin/env python3
"""check_reference.py ROOT: the reference pages (README.md and docs/*.md)
read as a reference, not a logbook: no issue numbers, no commit hashes, no
branch names, no "tried, not kept". History belongs in CHANGELOG.md, which
is not checked. Text inside code blocks is checked too (a command that
names a commit is history as well)."""
import os
import re
import sys

from check_paths import scan

PATTERNS = [
    ("an issue number", re.compile(r"\bissues?\s+#?\d+", re.I)),
    ("an issue number", re.compile(r"(?:^|\s)#\d+\b")),
    ("a commit hash", re.compile(r"\bcommits?\s+`?[0-9a-f]{7,40}\b", re.I)),
    ("a commit hash", re.compile(r"\b[0-9a-f]{40}\b")),
    ("a branch name", re.compile(r"\bbranch(?:es)?\s+`[^`]+`", re.I)),
    ("\"tried, not kept\"", re.compile(r"tried,?\s+(?:and\s+)?(?:not kept|left out)", re.I)),
    ("\"not merged\"", re.compile(r"\bnot merged\b", re.I)),
]


def pages(root):
    yield os.path.join(root, "README.md")
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        for name in sorted(os.listdir(docs)):
            if name.endswith(".md"):
                yield os.path.join(docs, name)


def scan_text(text):
    """(line number, what, line) for every diary mark in text."""
    return scan(text, PATTERNS)


def self_test():
    """The patterns catch what they should and nothing else."""
    bad = ["What issue 21's targets ask", "see #34 for why", "(commit 85b0b49)",
           "Branch `backends2-rpe-batched` holds it", "Batch-major RPE: tried, not kept",
           "Tried and left out: a third table", "e446685, not merged",
           "at 0123456789abcdef0123456789abcdef01234567"]
    good = ["signature 64cde5df86d2bea8", "a branch of the tree", "every issue is",
            "C#7 chord", "| 1 | 321.7 |", "the commit of the weights", "`#include`"]
    wrong = [s for s in bad if not scan_text(s)]
    wrong += [s for s in good if scan_text(s)]
    return wrong


def main():
    root = os.path.abspath(sys.argv[1])
    bad = [f"check_reference.py self-test: wrong verdict on {s!r}" for s in self_test()]
    count = 0
    for page in pages(root):
        if not os.path.exists(page):
            continue
        count += 1
        with open(page, encoding="utf-8") as f:
            for n, what, line in scan_text(f.read()):
                bad.append(f"{os.path.relpath(page, root)}:{n}: {what}: {line.strip()}")
    for b in bad:
        print(b)
    print(f"{count} reference pages checked, {len(bad)} problems")
    return 1 if bad or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
