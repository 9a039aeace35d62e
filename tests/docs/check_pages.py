#!/usr/bin/env python3
"""check_pages.py ROOT: the docs stay references of a readable size.

  1. every page of docs/ (docs/*.md) is at most 300 lines, except
     NETWORK.md, the format reference, and so is README.md, the front page
     (reference detail goes to the docs page that owns the topic);
  2. CHANGELOG.md is at most 400 lines, and every entry (a line starting
     "- ") is one line: no continuation lines under it;
  3. every file in docs/results/ is listed in docs/results/README.md, and
     is named YYYY-MM-DD-topic.md;
  4. docs/README.md, the index of the docs, links every page of docs/ and
     the results index;
  5. README.md's "Map of the source" names every top-level folder of the
     repository (and .ci/) and no folder that does not exist; every
     subfolder a row names (`search/`, `ref/`, `cpu/avx2/`) exists in its
     folder.

Before checking ROOT it checks itself on a planted tree with one fault of
each kind, so it cannot pass by looking at nothing. Exit status 0 when
every check passes, 1 otherwise (each failure listed).
"""
import os
import re
import shutil
import sys
import tempfile

PAGE_MAX = 300
CHANGELOG_MAX = 400
EXEMPT = {"NETWORK.md"}
LINK = re.compile(r"\]\(([^)\s#]+)")


def check(root):
    bad = []
    docs = os.path.join(root, "docs")
    pages = sorted(n for n in os.listdir(docs) if n.endswith(".md"))
    for name in pages:
        with open(os.path.join(docs, name), encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > PAGE_MAX and name not in EXEMPT:
            bad.append(f"docs/{name}: {n} lines (at most {PAGE_MAX}: split it by topic, or move "
                       f"measurement reports to docs/results/)")
    readme = os.path.join(root, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > PAGE_MAX:
            bad.append(f"README.md: {n} lines (at most {PAGE_MAX}: move reference detail to "
                       f"the docs page that owns the topic)")
    path = os.path.join(root, "CHANGELOG.md")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if len(lines) > CHANGELOG_MAX:
        bad.append(f"CHANGELOG.md: {len(lines)} lines (at most {CHANGELOG_MAX})")
    for i, line in enumerate(lines[1:], 2):
        if lines[i - 2].startswith("- ") and line.startswith("  ") and line.strip():
            bad.append(f"CHANGELOG.md:{i}: an entry runs over one line (details go to "
                       f"docs/results/)")
    results = os.path.join(docs, "results")
    if os.path.isdir(results):
        index = os.path.join(results, "README.md")
        listed = set()
        if os.path.exists(index):
            with open(index, encoding="utf-8") as f:
                listed = {os.path.normpath(t) for t in LINK.findall(f.read())}
        else:
            bad.append("docs/results/README.md: missing (the index of the results)")
        for name in sorted(os.listdir(results)):
            if name == "README.md":
                continue
            if not re.match(r"^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$", name):
                bad.append(f"docs/results/{name}: not named YYYY-MM-DD-topic.md")
            if name not in listed:
                bad.append(f"docs/results/{name}: not listed in docs/results/README.md")
    index = os.path.join(docs, "README.md")
    if os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            linked = {os.path.normpath(t) for t in LINK.findall(f.read())}
        for name in pages + (["results/README.md"] if os.path.isdir(results) else []):
            if name != "README.md" and os.path.normpath(name) not in linked:
                bad.append(f"docs/README.md: the index does not link {name}")
    else:
        bad.append("docs/README.md: missing (the index of the docs)")
    bad += check_source_map(root)
    return bad


def check_source_map(root):
    bad = []
    path = os.path.join(root, "README.md")
    if not os.path.exists(path):
        return ["README.md: missing"]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Map of the source\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return ["README.md: no 'Map of the source' section"]
    named = set()
    for row in m.group(1).splitlines():
        cm = re.match(r"^\| `([^`]+)/` \| (.*)\|$", row)
        if not cm:
            continue
        folder = cm.group(1)
        named.add(folder)
        if not os.path.isdir(os.path.join(root, folder)):
            bad.append(f"README.md: the source map names {folder}/, which does not exist")
            continue
        for sub in re.findall(r"`([a-z_0-9]+(?:/[a-z_0-9]+)*)/`", cm.group(2)):
            if not os.path.isdir(os.path.join(root, folder, sub)):
                bad.append(f"README.md: the source map names {folder}/{sub}/, which does not exist")
    skip = {".git", "node_modules", "subprojects"}
    for name in sorted(os.listdir(root)):
        full = os.path.join(root, name)
        if (not os.path.isdir(full) or name in skip or name.startswith("build")
                or (name.startswith(".") and name != ".ci") or os.path.islink(full)):
            continue
        if not os.listdir(full):
            continue
        if name not in named:
            bad.append(f"README.md: the source map does not name {name}/")
    return bad


def self_test():
    """A planted tree with one fault of each kind: each must be found."""
    tmp = tempfile.mkdtemp(prefix="check-pages-")
    try:
        os.makedirs(os.path.join(tmp, "docs", "results"))
        with open(os.path.join(tmp, "docs", "LONG.md"), "w") as f:
            f.write("x\n" * (PAGE_MAX + 1))
        with open(os.path.join(tmp, "docs", "NETWORK.md"), "w") as f:
            f.write("x\n" * (PAGE_MAX + 1))
        with open(os.path.join(tmp, "docs", "README.md"), "w") as f:
            f.write("[LONG.md](LONG.md) [NETWORK.md](NETWORK.md)\n")
        with open(os.path.join(tmp, "CHANGELOG.md"), "w") as f:
            f.write("# Changelog\n- one\n  two\n")
        with open(os.path.join(tmp, "docs", "results", "README.md"), "w") as f:
            f.write("none\n")
        with open(os.path.join(tmp, "docs", "results", "2026-01-01-x.md"), "w") as f:
            f.write("x\n")
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write("## Map of the source\n\n| `docs/` | x `nope/` `results/no/` |\n| `gone/` | x |\n"
                    + "\nx\n" * (PAGE_MAX // 2))
        os.makedirs(os.path.join(tmp, "extra"))
        with open(os.path.join(tmp, "extra", "f"), "w") as f:
            f.write("x")
        found = "\n".join(check(tmp))
        want = ["docs/LONG.md: 301 lines", f"README.md: {PAGE_MAX + 4} lines",
                "CHANGELOG.md:3: an entry runs over",
                "docs/results/2026-01-01-x.md: not listed",
                "the index does not link results/README.md",
                "names gone/, which does not exist", "names docs/nope/", "names docs/results/no/",
                "does not name extra/"]
        wrong = [w for w in want if w not in found]
        if "NETWORK.md:" in found:
            wrong.append("NETWORK.md is exempt")
        return wrong
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    root = os.path.abspath(sys.argv[1])
    bad = [f"check_pages.py self-test: missed {w!r}" for w in self_test()]
    bad += check(root)
    for b in bad:
        print(b)
    print(f"{len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
