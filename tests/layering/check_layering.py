#!/usr/bin/env python3
"""check_layering.py ROOT: every #include of the project's C sources points
down the layering, never up or sideways:

    tools, lib, python, web  ->  engine  ->  net  ->  encoder, policy_head, value_heads
        ->  backends, weights  ->  chess  ->  common

A file may include its own top-level folder's headers and those of any
folder below it; a folder on the same level (encoder and policy_head,
backends and weights) or above is an error naming the file, the line and
both folders. A top-level folder with C sources that the table does not
place is an error too, so a new folder must say where it sits. tests/,
scripts/ and training/ are outside the layering (tests include anything).

It also fails on an include circle between files that is not one of the
allowed ones (check_circles.py: modules whose implementations include or
import each other, directly or through others), on a listed circle that
grew, and on a listed one that is gone.

Before checking ROOT it checks itself on a planted tree (an include up, one
sideways, one down, a quoted local header, a generated one, a new circle, a
grown one): if the check could not fail, it fails.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_circles  # noqa: E402

LEVEL = {
    "tools": 7, "lib": 7, "python": 7, "web": 7,
    "engine": 6,
    "net": 5,
    "encoder": 4, "policy_head": 4, "value_heads": 4,
    "backends": 3, "weights": 3,
    "chess": 2,
    "common": 1,
}
OUTSIDE = {"tests", "scripts", "training", "data", "docs", "man", "weights_default"}
# Headers generated into the build tree, by the folder that generates them.
GENERATED = {"cf_net.pb-c.h": "weights"}
SOURCE = re.compile(r"\.(c|h|cc|cpp|hpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def tracked(root, use_git=True):
    """Every file of root's work tree (git's list when there is one)."""
    names = []
    try:
        if not use_git:
            raise OSError("walk the tree")
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode("utf-8", "surrogateescape")
        names = [n for n in out.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
    if not names:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
            names += [os.path.relpath(os.path.join(folder, f), root) for f in files]
    return sorted(names)


def sources(root, use_git=True):
    return [n for n in tracked(root, use_git) if SOURCE.search(n) and "/" in n]


def folder_of_include(root, src, inc):
    """The top-level folder an include names, or None for a system-like one."""
    if "/" in inc and not inc.startswith("."):
        return inc.split("/", 1)[0]
    if os.path.exists(os.path.join(root, os.path.dirname(src), inc)):
        target = os.path.normpath(os.path.join(os.path.dirname(src), inc))
        return target.split(os.sep, 1)[0]
    return GENERATED.get(os.path.basename(inc))


def check(root, use_git=True):
    """Problems found in root, one line each."""
    bad = []
    for src in sources(root, use_git):
        top = src.split("/", 1)[0]
        if top in OUTSIDE:
            continue
        if top not in LEVEL:
            bad.append(f"{src}: folder '{top}' is not placed in the layering "
                       f"(add it to LEVEL in tests/layering/check_layering.py)")
            continue
        try:
            with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
        except OSError as e:
            bad.append(f"{src}: {e}")
            continue
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            to = folder_of_include(root, src, m.group(1))
            if to is None or to == top:
                continue
            if to not in LEVEL:
                if to not in OUTSIDE:
                    continue  # not a project folder: a system or vendored header
                bad.append(f"{src}:{n}: includes \"{m.group(1)}\" from {to}/, "
                           f"which is outside the layering")
            elif LEVEL[to] >= LEVEL[top]:
                way = "up" if LEVEL[to] > LEVEL[top] else "sideways"
                bad.append(f"{src}:{n}: includes \"{m.group(1)}\": {top}/ -> {to}/ points {way} "
                           f"the layering (tools -> engine -> net -> encoder/policy_head/"
                           f"value_heads -> backends/weights -> chess -> common)")
    return bad


def self_test():
    """The check fails on planted bad includes and passes the good ones."""
    files = {
        "net/cf_net.c": '#include "encoder/cf_encoder.h"\n#include "common/cf_status.h"\n',
        "encoder/cf_encoder.h": '#include "backends/cf_backend.h"\n',
        "encoder/cf_encoder.c": '#include "cf_encoder.h"\n#include <stdio.h>\n',
        "backends/cf_backend.h": "",
        "weights/cf_weights.c": '#include "cf_net.pb-c.h"\n',
        "common/cf_status.h": "",
        "tests/x.c": '#include "engine/uci/cf_uci.h"\n',
    }
    planted = {
        "backends/cf_bad_up.c": ('#include "net/cf_net.h"\n', "points up"),
        "policy_head/cf_bad_side.c": ('#include "encoder/cf_encoder.h"\n', "points sideways"),
        "chess/cf_bad_generated.c": ('#include "cf_net.pb-c.h"\n', "points up"),
        "newfolder/cf_x.c": ("", "is not placed in the layering"),
    }
    wrong = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        if check(tmp, use_git=False):
            wrong.append(f"a good tree is refused: {check(tmp, use_git=False)}")
        for name, (text, want) in planted.items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            found = check(tmp, use_git=False)
            if not any(name in b and want in b for b in found):
                wrong.append(f"planted {name} ({want}) not caught: {found}")
            os.remove(path)
        wrong += circles_self_test(tmp)
    return wrong


def circles_self_test(tmp):
    """On a tree with one allowed circle (a <-> b): a new circle (c <-> d),
    a grown one (a <-> b <-> e) and a gone one are each caught."""
    wrong = []
    files = {
        "engine/a.c": '#include "engine/b.h"\n', "engine/a.h": "",
        "engine/b.c": '#include "engine/a.h"\n', "engine/b.h": "",
        "engine/c.c": '#include "engine/d.h"\n', "engine/c.h": '#include "engine/d.h"\n',
        "engine/d.c": "", "engine/d.h": '#include "engine/c.h"\n',  # headers only: no circle
        "training/p.py": "from q import x\n", "training/q.py": "import os\n",
    }
    allowed = {("engine/a", "engine/b"): "planted"}
    for name, text in files.items():
        os.makedirs(os.path.join(tmp, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)

    def run(extra, want):
        for name, text in extra.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        names = check_circles_names(tmp)
        bad, _ = check_circles.check(tmp, names, allowed)
        if want is None and bad:
            wrong.append(f"a tree with only the allowed circle is refused: {bad}")
        elif want is not None and not any(want in b for b in bad):
            wrong.append(f"planted {sorted(extra)} ({want}) not caught: {bad}")

    run({}, None)
    run({"engine/d.c": '#include "engine/c.h"\n'}, "a new include circle: engine/c -> engine/d")
    run({"engine/d.c": ""}, None)
    run({"training/q.py": "import p\n"}, "a new include circle: training/p -> training/q")
    run({"training/q.py": ""}, None)
    run({"engine/e.c": '#include "engine/a.h"\n', "engine/e.h": "",
         "engine/b.c": '#include "engine/a.h"\n#include "engine/e.h"\n'},
        "a listed circle grew (engine/a <-> engine/b)")
    run({"engine/e.c": "", "engine/b.c": ""}, "the allowed circle engine/a <-> engine/b is gone")
    return wrong


def check_circles_names(tmp):
    return tracked(tmp, use_git=False)


def main():
    root = os.path.abspath(sys.argv[1])
    wrong = self_test()
    for w in wrong:
        print(f"check_layering.py self-test: {w}")
    bad = check(root)
    for b in bad:
        print(b)
    print(f"{len(sources(root))} C sources checked, {len(bad)} includes against the layering")
    bad_circles, found = check_circles.check(root, tracked(root))
    for b in bad_circles:
        print(b)
    print(f"{len(found)} include circles, {len(check_circles.ALLOWED)} allowed: " +
          "; ".join(" <-> ".join(c) for c in found))
    return 1 if bad or wrong or bad_circles else 0


if __name__ == "__main__":
    sys.exit(main())
