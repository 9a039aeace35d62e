#!/usr/bin/python3
"""Checks the manual pages in man/ against the built tools.

    check_man.py --version-of CFORMER PAGE BINARY [PAGE BINARY ...]

For each PAGE (a roff man page) and the BINARY it documents:

  1. `groff -man -Tutf8 -ww -z PAGE` exits 0 and prints nothing on stderr
     (no warnings of any kind);
  2. the page has the usual sections (NAME, SYNOPSIS, DESCRIPTION,
     EXIT STATUS, EXAMPLES, SEE ALSO) and its .TH source field is the
     version `CFORMER --version` prints ("cformer 0.1.0");
  3. every long flag (--something) printed by `BINARY --help` and, for each
     command that help lists under "commands:", by `BINARY COMMAND --help`
     appears in the page, and each such command has a .SS subsection
     ("BINARY-NAME COMMAND ...");
  4. the page names no path of the source tree (help texts print the
     machine's data folder; it must not be pasted into a page).

Exit status 0 when every check passes, 1 otherwise (each failure is listed).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

REQUIRED_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
FLAG_RE = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9_-]*")


def run(argv):
    """Runs argv; returns (exit status, stdout, stderr)."""
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=30)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def plain(roff):
    """The page's text with comments, font changes and escapes removed, so
    that `\\fB\\-\\-weights\\fR` reads `--weights`."""
    lines = [l for l in roff.splitlines() if not re.match(r'^[.\']\s*\\"', l)]
    text = "\n".join(lines)
    text = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", text)   # \fB \fR \f(CW \f[B]
    text = text.replace("\\-", "-").replace("\\e", "\\")
    text = re.sub(r"\\[&%:|^]", "", text)                  # zero-width escapes
    return text


def commands(help_text):
    """The commands a top-level help lists under "commands:"."""
    out, inside = [], False
    for line in help_text.splitlines():
        if line.strip() == "commands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  (\S+)\s{2,}\S", line)
            if not m:
                if line.strip():
                    break
                continue
            out.append(m.group(1))
    return out


def check_page(page, binary, version, groff, source_root):
    errors = []
    name = os.path.basename(page)

    # 1. renders without warnings
    rc, _, err = run([groff, "-man", "-Tutf8", "-ww", "-z", page])
    if rc != 0 or err.strip():
        errors.append(f"{name}: groff -man -Tutf8 -ww -z exited {rc} with:\n{err.rstrip()}")

    with open(page, encoding="utf-8") as f:
        roff = f.read()
    text = plain(roff)

    # 2. sections and version
    sections = [shlex.split(l[3:])[0] if l[3:].strip().startswith('"') else l[3:].strip()
                for l in text.splitlines() if l.startswith(".SH ")]
    for s in REQUIRED_SECTIONS:
        if s not in sections:
            errors.append(f"{name}: no .SH {s} section")
    th = [l for l in text.splitlines() if l.startswith(".TH ")]
    if len(th) != 1:
        errors.append(f"{name}: expected one .TH line, found {len(th)}")
    else:
        fields = shlex.split(th[0][4:])
        if len(fields) < 4 or fields[3] != version:
            got = fields[3] if len(fields) >= 4 else "(none)"
            errors.append(f"{name}: .TH source field is '{got}', the binaries say '{version}'")

    # 3. every long flag of every help text, and a subsection per command
    prog = os.path.basename(binary)
    rc, top, err = run([binary, "--help"])
    if rc != 0 or not top.strip():
        errors.append(f"{name}: '{prog} --help' exited {rc} (stderr: {err.strip()})")
    helps = [(f"{prog} --help", top)]
    subsections = [re.sub(r"\s+", " ", l[4:].strip().strip('"'))
                   for l in text.splitlines() if l.startswith(".SS ")]
    for cmd in commands(top):
        rc, out, err = run([binary, cmd, "--help"])
        if rc != 0 or not out.strip():
            errors.append(f"{name}: '{prog} {cmd} --help' exited {rc} (stderr: {err.strip()})")
        helps.append((f"{prog} {cmd} --help", out))
        if not any(s == f"{prog} {cmd}" or s.startswith(f"{prog} {cmd} ") for s in subsections):
            errors.append(f"{name}: no .SS subsection for the command '{prog} {cmd}'")
    seen = set()
    for where, out in helps:
        for flag in FLAG_RE.findall(out):
            flag = flag.rstrip("-_")
            if flag in seen:
                continue
            seen.add(flag)
            if not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", text):
                errors.append(f"{name}: {flag} (printed by '{where}') is not documented")
    if not seen:
        errors.append(f"{name}: found no long flags in the help texts of {prog}")

    # 4. no path of this machine's source tree
    if source_root and source_root in roff:
        errors.append(f"{name}: names the source tree's path {source_root}")

    return errors, len(seen), len(helps)


def main(argv):
    if len(argv) < 5 or argv[1] != "--version-of" or (len(argv) - 3) % 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    groff = shutil.which("groff")
    if not groff:
        print("check_man: groff not found; install it (Debian: apt-get install groff-base, "
              "as scripts/install-deps.sh does)", file=sys.stderr)
        return 1
    rc, out, err = run([argv[2], "--version"])
    version = out.strip()
    if rc != 0 or not version:
        print(f"check_man: '{argv[2]} --version' exited {rc}: {err.strip()}", file=sys.stderr)
        return 1
    pairs = list(zip(argv[3::2], argv[4::2]))
    failures = []
    for page, binary in pairs:
        source_root = os.path.dirname(os.path.dirname(os.path.abspath(page)))
        errors, n_flags, n_helps = check_page(page, binary, version, groff, source_root)
        failures += errors
        status = "FAIL" if errors else "ok"
        print(f"{status}: {os.path.basename(page)}: {n_flags} long flags from {n_helps} help "
              f"texts of {os.path.basename(binary)}")
    for e in failures:
        print("error: " + e, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
