"""python/site_dir.py, which meson asks where to install the package: a
folder the interpreter searches, under the prefix itself (not /usr/local
for /usr), or for a prefix it does not search the scheme's site-packages
folder under that prefix, marked off-path."""
import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import site_dir  # noqa: E402

search = [os.path.normpath(p) for p in sys.path if p]


@pytest.mark.parametrize("prefix", ["/usr", "/usr/local"])
def test_system_prefixes(prefix):
    path, where = site_dir.site_dir(prefix)
    assert path.startswith(prefix + "/lib")
    if where == "on-path":
        assert os.path.normpath(path) in search
    else:
        assert where == "off-path"


def test_usr_is_not_usr_local():
    path, _ = site_dir.site_dir("/usr")
    assert not path.startswith("/usr/local/")


def test_private_prefix(tmp_path):
    path, where = site_dir.site_dir(str(tmp_path))
    assert where == "off-path"
    assert path.startswith(str(tmp_path) + "/lib/python3")
    assert path.endswith("-packages")
