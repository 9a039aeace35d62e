"""Prints where this Python interpreter imports packages from under a
prefix: meson (python/meson.build) installs the cformer package there.

    site_dir.py PREFIX

Line 1: the directory. Line 2: "on-path" when the interpreter searches it
by default, "off-path" when no folder of its search path lies under PREFIX
(a private prefix such as /opt/cformer: then the scheme's site-packages
folder is printed, and users set PYTHONPATH).

The interpreter is asked rather than a path guessed: Debian's python3
searches PREFIX/lib/python3/dist-packages for /usr but
PREFIX/lib/python3.X/dist-packages for /usr/local, and a virtual
environment or another distribution differs again."""
import os
import sys
import sysconfig


def site_dir(prefix):
    prefix = os.path.normpath(os.path.abspath(prefix))
    for entry in sys.path:
        if not entry or not entry.endswith(("-packages", "-packages/")):
            continue
        entry = os.path.normpath(entry)
        try:
            rel = os.path.relpath(entry, prefix)
        except ValueError:
            continue
        # Under the prefix itself (PREFIX/lib/...), not a deeper prefix such
        # as /usr/local when PREFIX is /usr.
        if rel.split(os.sep)[0] in ("lib", "lib64"):
            return entry, "on-path"
    scheme = "posix_prefix" if "posix_prefix" in sysconfig.get_scheme_names() else None
    path = sysconfig.get_path("purelib", scheme, vars={"base": prefix, "platbase": prefix})
    return path, "off-path"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: site_dir.py PREFIX")
    path, where = site_dir(sys.argv[1])
    print(path)
    print(where)
