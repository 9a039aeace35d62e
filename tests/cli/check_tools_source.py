#!/usr/bin/env python3
"""check_tools_source.py ROOT: the tools' sources keep the house rules that
a compiler does not check.

* Each `cformer` subcommand lives in a folder of its own: at the top of
  tools/ only the binary itself (cformer.c, cf_commands.h) and its
  start-up helper (cf_startup_env.*).
* One error exit, cf_cli_fail (tools/cli/cf_cli.h): no tool defines a
  fail() of its own.
* Agents are told apart by capability (cf_agent_has) or name, never by
  comparing descriptor pointers (== &cf_agent_search_desc).
* No bare strdup() whose result goes unchecked: each is followed, within
  three lines, by a test of the variable it was stored in.

Prints each finding as FILE:LINE: what; exit 1 when there is any."""
import os
import re
import sys

TOP_ALLOWED = {"cformer.c", "cf_commands.h", "cf_startup_env.c", "cf_startup_env.h",
               "meson.build"}
OWN_FAIL = re.compile(r"^static\s+int\s*\n?\s*fail\s*\(", re.M)
AGENT_POINTER = re.compile(r"[!=]=\s*&cf_agent_\w+_desc|&cf_agent_\w+_desc\s*[!=]=")
STRDUP = re.compile(r"\b(\w+(?:->\w+|\.\w+|\[[^]]*\])*)\s*=\s*strdup\(")


def main(root):
    tools = os.path.join(root, "tools")
    found = []
    for name in sorted(os.listdir(tools)):
        if os.path.isfile(os.path.join(tools, name)) and name not in TOP_ALLOWED:
            found.append("tools/%s: a file at the top of tools/ (a subcommand goes in a "
                         "folder of its own)" % name)
    n = 0
    for folder in ("tools", "lib"):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8", errors="replace").read()
                lines = text.split("\n")
                n += 1
                for m in OWN_FAIL.finditer(text):
                    found.append("%s:%d: a fail() of its own (use cf_cli_fail)"
                                 % (rel, text.count("\n", 0, m.start()) + 1))
                for i, line in enumerate(lines):
                    if AGENT_POINTER.search(line):
                        found.append("%s:%d: an agent compared by pointer" % (rel, i + 1))
                    m = STRDUP.search(line)
                    if m:
                        var = re.escape(m.group(1))
                        after = "\n".join(lines[i:i + 4])
                        if not re.search(r"!\s*\(?\s*%s\b|%s\s*==\s*NULL|if\s*\(\s*%s\s*\)|"
                                         r"\b%s\s*\?" % (var, var, var, var), after):
                            found.append("%s:%d: strdup() into %s, not checked"
                                         % (rel, i + 1, m.group(1)))
    for f in found:
        print(f)
    print("%d source files checked, %d findings" % (n, len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
