"""cformer_build: the PEP 517 build backend of pyproject.toml, in the tree
so that `pip install .` needs nothing from a package index (no setuptools,
no wheel package: it works offline with Debian's python3-pip).

A wheel holds the Python package (python/cformer) and a copy of
libcformer.so as cformer/libcformer.so.0, which the package loads before
any other (cformer/_lib.py). Where that library comes from, in order:

1. the config setting ``library=PATH`` (``pip install .
   --config-settings library=build/lib/libcformer.so``) or the environment
   variable CFORMER_WHEEL_LIBRARY: an already built libcformer.so;
2. the config setting ``builddir=DIR`` (or CFORMER_WHEEL_BUILDDIR): an
   existing meson build directory of this tree, brought up to date with
   ``ninja -C DIR lib/libcformer.so.VERSION`` (the library alone);
3. otherwise a fresh release build: ``meson setup`` in a temporary
   directory and the same ninja target (needs the build dependencies
   of scripts/install-deps.sh; takes minutes).

The wheel is tagged py3-none-PLATFORM: the package is pure Python over
ctypes, the library is for this machine's platform."""

import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

NAME = "cformer"
SUMMARY = "Run Lc0-format transformer chess networks (Chessformer-style) from Python"
REQUIRES_PYTHON = ">=3.8"
REQUIRES = ["numpy"]
LIBRARY = "libcformer.so.0"  # the name cformer/_lib.py looks for (BUNDLED)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "cformer")


def _version():
    """The project's version, from the top meson.build (one source)."""
    with open(os.path.join(ROOT, "meson.build"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("version") and ":" in line:
                return line.split(":", 1)[1].strip().strip(",").strip("'\"")
    raise RuntimeError("no version in meson.build")


def _tag():
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-" + platform


def _dist_info_name():
    return "%s-%s.dist-info" % (NAME, _version())


def _metadata():
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + _version(),
             "Summary: " + SUMMARY, "License: see LICENSE", "Requires-Python: " + REQUIRES_PYTHON]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    return "\n".join(lines) + "\n"


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: cformer_build\nRoot-Is-Purelib: false\n"
            "Tag: %s\n" % _tag())


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key) or os.environ.get(env)
    if isinstance(value, list):  # pip passes a repeated setting as a list
        value = value[-1]
    return value or None


def _run(cmd):
    """Runs meson or ninja outside pip's isolated environment: pip points
    PYTHONPATH at a site of its own that hides the system's packages, and
    meson is itself a Python program of the system (and runs python3)."""
    print("cformer_build: " + " ".join(cmd), file=sys.stderr)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    subprocess.run(cmd, check=True, stdout=sys.stderr, env=env)


def _built_library(config_settings, scratch):
    """The path of a libcformer.so to bundle, building it if need be."""
    library = _setting(config_settings, "library", "CFORMER_WHEEL_LIBRARY")
    if library:
        library = os.path.abspath(library)
        if not os.path.isfile(library):
            raise FileNotFoundError("library=%s: no such file" % library)
        return library
    builddir = _setting(config_settings, "builddir", "CFORMER_WHEEL_BUILDDIR")
    if builddir:
        builddir = os.path.abspath(builddir)
    else:
        builddir = os.path.join(scratch, "build")
        _run(["meson", "setup", builddir, ROOT, "--buildtype=release"])
    # The shared library's real file carries the full version (the .so and
    # .so.0 names are links to it).
    target = "lib/libcformer.so." + _version()
    _run(["ninja", "-C", builddir, target])
    return os.path.join(builddir, target)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


# ---- PEP 517 hooks -----------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, _dist_info_name())
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info_name()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory(prefix="cformer-wheel-") as scratch:
        library = _built_library(config_settings, scratch)
        files = []  # (arcname, bytes)
        for name in sorted(os.listdir(PACKAGE)):
            if name.endswith(".py") or name == "py.typed":  # PEP 561: typed
                with open(os.path.join(PACKAGE, name), "rb") as f:
                    files.append(("%s/%s" % (NAME, name), f.read()))
        with open(library, "rb") as f:
            files.append(("%s/%s" % (NAME, LIBRARY), f.read()))
        info = _dist_info_name()
        files.append((info + "/METADATA", _metadata().encode()))
        files.append((info + "/WHEEL", _wheel_file().encode()))
        with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
            files.append((info + "/LICENSE", f.read()))
        record = [_record_line(a, d) for a, d in files] + [info + "/RECORD,,"]
        files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
        wheel = "%s-%s-%s.whl" % (NAME, _version(), _tag())
        with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w",
                             zipfile.ZIP_DEFLATED) as z:
            for arcname, data in files:
                zi = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
                zi.external_attr = (0o755 if arcname.endswith(".so.0") else 0o644) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    """The source tree without build outputs (build*/ folders, .git)."""
    base = "%s-%s" % (NAME, _version())
    name = base + ".tar.gz"

    def keep(info):
        parts = info.name.split("/")[1:]
        if any(p == ".git" or p == "__pycache__" for p in parts):
            return None
        if parts and parts[0].startswith("build"):
            return None
        return info

    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        t.add(ROOT, arcname=base, filter=keep)
    return name


if __name__ == "__main__":
    # Manual use: python3 python/build_backend/cformer_build.py OUTDIR [library=PATH]
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    settings = dict(a.split("=", 1) for a in sys.argv[2:])
    print(build_wheel(out, settings))
