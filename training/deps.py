"""numpy and torch for the training scripts, imported so --help works without them.

The scripts' --help and argument errors must work on a machine without
numpy or torch (Debian's python3-numpy and python3-torch; the `python3`
first on PATH may be another Python that has neither), and a real run there
should say what to install rather than end in a ModuleNotFoundError
traceback. So a script imports them inside deferred(__name__) and calls
check() as soon as its arguments are parsed:

    with deps.deferred(__name__):
        import numpy as np
        import torch

    def main(argv=None):
        args = parser.parse_args(argv)
        deps.check()
        ...

Run as a script (__name__ is "__main__"), a missing module is noted and the
rest of the block skipped; check() then exits 1 with one line naming the
package. Imported as a module (by another script or a test), the imports
raise as usual. require() is the same for an import inside a function.
"""

import importlib
import os
import sys
from contextlib import contextmanager

# Python module -> the Debian package that provides it.
DEBIAN_PACKAGES = {"numpy": "python3-numpy", "torch": "python3-torch"}

_missing = None  # the first module a deferred import could not find


def _message(module):
    prog = os.path.basename(sys.argv[0])
    package = DEBIAN_PACKAGES.get(module.split(".")[0])
    if package is None:  # e.g. a module numpy or torch themselves need
        return f"{prog}: Python module '{module}' not found"
    return (f"{prog}: Python module '{module}' not found: install Debian's {package} "
            f"(apt install {package}) and run with /usr/bin/python3")


@contextmanager
def deferred(module_name):
    """Imports in this block that find no module are reported by check()
    later, when module_name is "__main__"; otherwise they raise."""
    global _missing
    try:
        yield
    except ModuleNotFoundError as e:
        if module_name != "__main__":
            raise
        _missing = _missing or e.name or str(e)


def check():
    """Exits 1 naming the missing module and its package if a deferred import failed."""
    if _missing:
        sys.exit(_message(_missing))


def require(module):
    """import module (returned), or exit 1 naming its package."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        sys.exit(_message(e.name or module))
