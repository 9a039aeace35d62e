#!/usr/bin/python3
"""check_options.py ROOT CFORMER: the option tables of the docs say what the
binary says.

The truth is the built binary, never a C file: `CFORMER` fed "uci\\nquit\\n"
prints one `option name N type T default D [min A max B] [var ...]` line per
option, and `CFORMER uci --help` prints each option's flags, help and
default. Against them:

  1. docs/UCI.md's option table (| UCI option | flag | default | meaning |)
     has exactly the binary's options, each with its flags and default;
  2. docs/SEARCH_OPTIONS.md's option table (| UCI option | flag | type | default |
     range | Lc0's default |) names only real options, with their flags,
     type, default and (for spins and combos) range;
  3. man/cformer.1's UCI OPTIONS section has an entry per option whose head
     "Name (--flag, -f; default D)" matches, and whose first "A to B" range
     (if any) is a spin's min and max;
  4. docs/GUI.md's table of the settings that matter names real options
     with flags the binary takes and the binary's defaults;
  5. where an option's help gives per-backend defaults ("ref 8,
     onednn/openblas 16, cuda 256"), every page that quotes them for that
     option quotes the same numbers;
  6. the "Differences from Lc0" table of docs/CLI.md says "none" or "not
     implemented" for no option the binary has, and its subcommands row
     names every command of `cformer --help`, and every option whose Lc0's
     default in SEARCH_OPTIONS.md is "none"; SEARCH_OPTIONS.md's "What is not
     implemented from Lc0" names no option the binary has (except as
     "Lc0's `X`" or "the `X` option").

Exit status 0 when every check passes, 1 otherwise (each failure listed).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "man"))
from check_man import plain  # noqa: E402  (roff to text, shared with the man test)

FLAG = re.compile(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*|-[a-zA-Z])(?![\w-])")
BACKENDS = ("ref", "onednn", "openblas", "cuda", "CPU")


def run(argv, stdin=b""):
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60, cwd=os.path.dirname(argv[0]) or ".")
    return p.stdout.decode("utf-8", "replace")


def uci_options(cformer):
    """{name: {"type", "default", "min", "max", "vars"}} from `uci`."""
    out = {}
    for line in run([cformer], b"uci\nquit\n").splitlines():
        m = re.match(r"^option name (\S+) type (\S+) default ?(.*)$", line)
        if not m:
            continue
        name, typ, rest = m.groups()
        o = {"type": typ, "vars": re.findall(r" var (\S+)", " " + rest)}
        mm = re.search(r"(?:^| )min (-?\d+) max (-?\d+)", rest)
        o["min"], o["max"] = (int(mm.group(1)), int(mm.group(2))) if mm else (None, None)
        default = re.split(r" (?:min|var) ", " " + rest, maxsplit=1)[0].strip() if typ in (
            "spin", "combo") else rest
        o["default"] = default.rstrip("\r")
        out[name] = o
    return out


def help_options(cformer):
    """{name: {"flags": set, "help": text}} from `cformer uci --help`."""
    out = {}
    for line in run([cformer, "uci", "--help"]).splitlines():
        m = re.match(r"^  ((?:-[a-zA-Z], )?--[a-z0-9-]+)(?: \S+)?\s+(\w+): (.*)$", line)
        if not m:
            continue
        flags = set(FLAG.findall(m.group(1)))
        flags |= set(re.findall(r"\(also (--[a-z0-9-]+)\)", m.group(3)))
        out[m.group(2)] = {"flags": flags, "help": m.group(3)}
    return out


def md_table(text, header_start):
    """Rows (lists of cells) of the first Markdown table whose header line
    starts with header_start."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header_start):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split(" | ")])
            return rows
    return None


def norm_default(cell):
    cell = cell.split(" (")[0].strip()
    cell = cell.strip("`")
    return "" if cell == "empty" else cell


def backend_numbers(text):
    """{backend: number} quoted in text, e.g. 'ref 8, CPU 32' or
    '(ref 8, onednn and openblas 16, cuda 256)'."""
    out = {}
    for b in BACKENDS:
        for m in re.finditer(r"(?<![\w-])" + b + r"(?![\w-])[^,;()\d]{0,25}?(\d+)", text):
            out.setdefault(b, int(m.group(1)))
    if "CPU" in out:
        for b in ("onednn", "openblas"):
            out.setdefault(b, out["CPU"])
        del out["CPU"]
    return out


def doc_flags(cell_text, name, opts):
    """The flags a doc cell names, less the --no-X forms of a boolean's --X
    (the parser accepts those for every check option)."""
    flags = set(FLAG.findall(cell_text))
    if opts.get(name, {}).get("type") == "check":
        flags = {f for f in flags if not (f.startswith("--no-") and "--" + f[5:] in flags)}
    return flags


def check_backend_numbers(where, name, text, helps, bad):
    h = helps.get(name)
    if not h or "backend's default" not in h["help"]:
        return
    truth = backend_numbers(h["help"])
    said = backend_numbers(text)
    for b, n in said.items():
        if b in truth and truth[b] != n:
            bad.append(f"{where}: {name}: says {b} {n}, the binary says {truth[b]}")


def check_uci_page(root, opts, helps, bad):
    with open(os.path.join(root, "docs", "UCI.md"), encoding="utf-8") as f:
        rows = md_table(f.read(), "| UCI option | flag | default |")
    if rows is None:
        bad.append("docs/UCI.md: no option table (| UCI option | flag | default | meaning |)")
        return 0
    seen = set()
    for cells in rows:
        name = cells[0].strip("`")
        seen.add(name)
        if name not in opts:
            bad.append(f"docs/UCI.md: option {name} is not in the binary's `uci` answer")
            continue
        flags = doc_flags(cells[1], name, opts)
        if name in helps and flags != helps[name]["flags"]:
            bad.append(f"docs/UCI.md: {name}: flags {sorted(flags)}, the binary's --help "
                       f"has {sorted(helps[name]['flags'])}")
        if norm_default(cells[2]) != opts[name]["default"]:
            bad.append(f"docs/UCI.md: {name}: default '{cells[2]}', the binary says "
                       f"'{opts[name]['default']}'")
        check_backend_numbers("docs/UCI.md", name, cells[3] if len(cells) > 3 else "", helps, bad)
    for name in opts:
        if name not in seen:
            bad.append(f"docs/UCI.md: the option table lacks {name}")
    return len(rows)


def check_search(root, opts, helps, bad):
    path = os.path.join(root, "docs", "SEARCH_OPTIONS.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rows = md_table(text, "| UCI option | flag | type | default | range |")
    if rows is None:
        bad.append("docs/SEARCH_OPTIONS.md: no option table")
        return 0
    types = {"float": "string", "spin": "spin", "check": "check", "combo": "combo",
             "string": "string"}
    for cells in rows:
        name = cells[0].strip("`")
        if name not in opts:
            bad.append(f"docs/SEARCH_OPTIONS.md: option {name} is not in the binary's `uci` answer")
            continue
        o = opts[name]
        flags = doc_flags(cells[1], name, opts)
        if name in helps and flags != helps[name]["flags"]:
            bad.append(f"docs/SEARCH_OPTIONS.md: {name}: flags {sorted(flags)}, the binary's --help "
                       f"has {sorted(helps[name]['flags'])}")
        if types.get(cells[2]) != o["type"]:
            bad.append(f"docs/SEARCH_OPTIONS.md: {name}: type {cells[2]}, the binary says {o['type']}")
        if norm_default(cells[3]) != o["default"]:
            bad.append(f"docs/SEARCH_OPTIONS.md: {name}: default '{cells[3]}', the binary says "
                       f"'{o['default']}'")
        if o["type"] == "spin":
            m = re.match(r"^(-?\d+) to (\d+)$", cells[4])
            if not m or (int(m.group(1)), int(m.group(2))) != (o["min"], o["max"]):
                bad.append(f"docs/SEARCH_OPTIONS.md: {name}: range '{cells[4]}', the binary says "
                           f"{o['min']} to {o['max']}")
        if o["type"] == "combo" and "`" in cells[4]:
            words = set(re.findall(r"`([^`]+)`", cells[4]))
            if words != set(o["vars"]):
                bad.append(f"docs/SEARCH_OPTIONS.md: {name}: choices {sorted(words)}, the binary says "
                           f"{sorted(o['vars'])}")
    # An option Lc0 lacks (its Lc0's default cell says "none") is a
    # difference, so CLI.md's "Differences from Lc0" names it.
    with open(os.path.join(root, "docs", "CLI.md"), encoding="utf-8") as f:
        diffs = md_table(f.read(), "| topic | Lc0 | cformer |") or []
    diff_text = " ".join(" ".join(c) for c in diffs)
    for cells in rows:
        name = cells[0].strip("`")
        if len(cells) > 5 and cells[5].startswith("none") and f"`{name}`" not in diff_text:
            bad.append(f"docs/SEARCH_OPTIONS.md: {name} is cformer's own (Lc0 has none), but "
                       f"docs/CLI.md's differences from Lc0 do not name it")
    # What is not implemented: no real option named there.
    m = re.search(r"^## What is not implemented from Lc0\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        bad.append("docs/SEARCH_OPTIONS.md: no section 'What is not implemented from Lc0'")
    else:
        for name in re.findall(r"(?<!Lc0's )(?<!the )`([A-Za-z_0-9]+)`", m.group(1)):
            if name in opts:
                bad.append(f"docs/SEARCH_OPTIONS.md: 'What is not implemented' names {name}, "
                           f"which the binary has")
    return len(rows)


def check_gui(root, opts, helps, bad):
    """docs/GUI.md's table of the settings that matter: real options, flags
    the binary takes, the binary's defaults."""
    with open(os.path.join(root, "docs", "GUI.md"), encoding="utf-8") as f:
        rows = md_table(f.read(), "| option (flag) | default |")
    if rows is None:
        bad.append("docs/GUI.md: no settings table (| option (flag) | default | set it when |)")
        return 0
    for cells in rows:
        m = re.match(r"^`([A-Za-z_0-9]+)`(.*)$", cells[0])
        if not m or m.group(1) not in opts:
            bad.append(f"docs/GUI.md: '{cells[0]}' is not an option of the binary")
            continue
        name = m.group(1)
        extra = doc_flags(m.group(2), name, opts) - helps.get(name, {}).get("flags", set())
        if extra:
            bad.append(f"docs/GUI.md: {name}: flags {sorted(extra)} are not the binary's")
        if norm_default(cells[1]) != opts[name]["default"]:
            bad.append(f"docs/GUI.md: {name}: default '{cells[1]}', the binary says "
                       f"'{opts[name]['default']}'")
    return len(rows)


def check_man(root, opts, helps, bad):
    with open(os.path.join(root, "man", "cformer.1"), encoding="utf-8") as f:
        roff = f.read()
    m = re.search(r"^\.SH UCI OPTIONS\n(.*?)(?=^\.SH )", roff, re.M | re.S)
    if not m:
        bad.append("man/cformer.1: no UCI OPTIONS section")
        return 0
    entries = {}
    for chunk in m.group(1).split("\n.TP\n")[1:]:
        head, _, body = chunk.partition("\n")
        args = re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', head.split(None, 1)[1] if " " in head else "")
        text = plain("".join(a or b for a, b in args))
        hm = re.match(r"^(\w+) \((.*?); default ?(.*)\)$", text)
        if not hm:
            bad.append(f"man/cformer.1: entry head not 'Name (flags; default D)': {text!r}")
            continue
        entries[hm.group(1)] = (hm.group(2), hm.group(3), plain(body))
    for name, o in opts.items():
        if name not in entries:
            bad.append(f"man/cformer.1: UCI OPTIONS has no entry for {name}")
            continue
        flags_text, default, body = entries[name]
        flags = doc_flags(flags_text, name, opts)
        if name in helps and flags != helps[name]["flags"]:
            bad.append(f"man/cformer.1: {name}: flags {sorted(flags)}, the binary's --help "
                       f"has {sorted(helps[name]['flags'])}")
        if norm_default(default) != o["default"]:
            bad.append(f"man/cformer.1: {name}: default '{default}', the binary says "
                       f"'{o['default']}'")
        rm = re.search(r"(?<![\w.])(-?\d+) to (\d+)(?![\w.])", body)
        if o["type"] == "spin" and rm and (int(rm.group(1)), int(rm.group(2))) != (o["min"], o["max"]):
            bad.append(f"man/cformer.1: {name}: range {rm.group(1)} to {rm.group(2)}, the "
                       f"binary says {o['min']} to {o['max']}")
        check_backend_numbers("man/cformer.1", name, body.replace("\n", " "), helps, bad)
    for name in entries:
        if name not in opts:
            bad.append(f"man/cformer.1: UCI OPTIONS documents {name}, which the binary lacks")
    return len(entries)


def check_differences(root, cformer, opts, bad):
    with open(os.path.join(root, "docs", "CLI.md"), encoding="utf-8") as f:
        rows = md_table(f.read(), "| topic | Lc0 | cformer |")
    if rows is None:
        bad.append("docs/CLI.md: no 'Differences from Lc0' table (| topic | Lc0 | cformer |)")
        return
    commands = []
    inside = False
    for line in run([cformer, "--help"]).splitlines():
        if line.strip() == "commands:":
            inside = True
        elif inside:
            cm = re.match(r"^  (\S+)\s{2,}\S", line)
            if cm:
                commands.append(cm.group(1))
    if not commands:
        bad.append("cformer --help lists no commands")
    sub = [c for c in rows if c[0] == "subcommands"]
    if not sub:
        bad.append("docs/CLI.md: the differences table has no 'subcommands' row")
    else:
        named = set(re.findall(r"`(?:cformer )?([a-z-]+)", sub[0][2]))
        for c in commands:
            if c != "uci" and c not in named:
                bad.append(f"docs/CLI.md: the subcommands row does not name `{c}`")
    for cells in rows:
        if len(cells) < 3:
            continue
        if re.match(r"^(none|not implemented|no )", cells[2], re.I):
            for name in re.findall(r"`([A-Za-z_0-9]+)`", cells[0] + " " + cells[1]):
                if name in opts:
                    bad.append(f"docs/CLI.md: says cformer has no {name}, but `uci` lists it")


def self_test():
    """The parsers find what they must, so a check cannot pass by reading
    nothing."""
    wrong = []
    if backend_numbers("0 = the backend's (ref 8, CPU 32, cuda 256)") != {
            "ref": 8, "onednn": 32, "openblas": 32, "cuda": 256}:
        wrong.append("backend_numbers on 'ref 8, CPU 32, cuda 256'")
    if backend_numbers("(ref 8, onednn/openblas 16, cuda 256)") != {
            "ref": 8, "onednn": 16, "openblas": 16, "cuda": 256}:
        wrong.append("backend_numbers on 'onednn/openblas 16'")
    if doc_flags("`--show-wdl` (`--no-show-wdl`)", "X", {"X": {"type": "check"}}) != {"--show-wdl"}:
        wrong.append("doc_flags on a boolean's --no- form")
    rows = md_table("| UCI option | flag |\n|---|---|\n| `A` | `--a`, `-a` |\n\ntext", "| UCI option")
    if rows != [["`A`", "`--a`, `-a`"]]:
        wrong.append(f"md_table read {rows}")
    return [f"check_options.py self-test: {w}" for w in wrong]


def main():
    root, cformer = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    bad = self_test()
    opts = uci_options(cformer)
    helps = help_options(cformer)
    if len(opts) < 10:
        bad.append(f"the binary's `uci` answer has only {len(opts)} options")
    for name in opts:
        if name not in helps:
            bad.append(f"`cformer uci --help` has no flag for option {name}")
    n = check_uci_page(root, opts, helps, bad)
    n += check_search(root, opts, helps, bad)
    n += check_man(root, opts, helps, bad)
    n += check_gui(root, opts, helps, bad)
    check_differences(root, cformer, opts, bad)
    for b in bad:
        print(b)
    print(f"{len(opts)} options, {n} documented rows checked, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
