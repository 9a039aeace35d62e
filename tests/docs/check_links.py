#!/usr/bin/env python3
"""check_links.py ROOT: every relative link and image in the repository's
Markdown files points at a file or folder that exists in the repository,
and a link to a heading (#anchor) names a heading of that file, so moving or
renaming a doc cannot leave readers at a dead end. Web links are not
fetched (no network in CI)."""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SKIP_DIRS = {".git", "node_modules"}


def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    out = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip().lower()
            text = re.sub(r"[^\w\- ]", "", text)
            out.add(text.replace(" ", "-"))
    return out


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def main():
    root = os.path.abspath(sys.argv[1])
    bad = []
    checked = 0
    for md in markdown_files(root):
        in_code = False
        with open(md, encoding="utf-8") as f:
            lines = f.readlines()
        for n, line in enumerate(lines, 1):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                    continue
                checked += 1
                path, _, anchor = target.partition("#")
                where = os.path.relpath(md, root)
                full = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
                if not full.startswith(root):
                    bad.append(f"{where}:{n}: '{target}' leaves the repository")
                elif not os.path.exists(full):
                    bad.append(f"{where}:{n}: '{target}' does not exist")
                elif anchor and full.endswith(".md") and anchor not in anchors(full):
                    bad.append(f"{where}:{n}: '{target}': no heading '#{anchor}'")
    for b in bad:
        print(b)
    print(f"{checked} links checked, {len(bad)} broken")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
