"""test_onnx_errors: `netconv export --onnx` on bad input.

* a feature the exporter cannot express (an FFN activation of softmax; a
  policy head with its own embedding): exit 1, a message naming it, no file;
* a precision the weights cannot hold (float16 with a weight of 70000): exit
  1 naming the tensor; float32 of the same net works;
* an output in a missing directory, under a regular file, or where nothing
  can be created: exit 1 naming the path, nothing written;
* bad command lines (an unknown precision, -o with --onnx, --precision
  without --onnx, --naming with --onnx): exit 2, nothing written;
* a missing NumPy or ONNX module on the exporter's python3: exit 1, one line
  naming the Debian package, no traceback, nothing written;
* atomic replace: a failing export leaves an existing OUT byte for byte; a
  successful one replaces it with a new file (a new inode: written beside it
  and renamed); no temporary file is left behind in either case.

usage: test_onnx_errors.py NETCONV SOURCE_ROOT   (exit 77: no python3-onnx)
"""

import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_util as u  # noqa: E402

u.need_onnx()
import onnx  # noqa: E402

NETCONV, ROOT = sys.argv[1:3]
NET = u.parity_net(ROOT, "lc0-smolgen-relu2")


def read_st(path):
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__")
    out = {}
    for name, info in header.items():
        lo, hi = info["data_offsets"]
        out[name] = np.frombuffer(data[lo:hi], "<f4").reshape(info["shape"]).copy()
    return out, meta


def write_st(path, tensors, meta):
    header, blobs, off = {"__metadata__": meta}, [], 0
    for name, a in tensors.items():
        b = np.ascontiguousarray(a, "<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little") + h + b"".join(blobs))


def variant(tmp, label, edit=None, config=None):
    """NET through export -> (edit the tensors) -> import with config."""
    st = os.path.join(tmp, label + ".safetensors")
    r = u.run([NETCONV, "export", NET, "-o", st])
    assert r.returncode == 0, r.stderr
    if edit:
        tensors, meta = read_st(st)
        edit(tensors)
        write_st(st, tensors, meta)
    cmd = [NETCONV, "import", st, "-o", os.path.join(tmp, label + ".pb.gz"), "--encoding", "float32"]
    if config:
        cfg = os.path.join(tmp, label + ".yaml")
        with open(cfg, "w") as f:
            f.write(config)
        cmd += ["--config", cfg]
    r = u.run(cmd)
    assert r.returncode == 0, f"{label}: import failed: {r.stderr}"
    return cmd[4]


def leftovers(folder):
    return [f for f in os.listdir(folder) if ".tmp." in f]


def fails(cmd, code, *words, out=None):
    r = u.run(cmd)
    assert r.returncode == code, f"{cmd}: exit {r.returncode}, wanted {code}: {r.stderr}"
    for w in words:
        assert w in r.stderr, f"{cmd}: '{w}' not in: {r.stderr}"
    if out:
        assert not os.path.exists(out), f"{out} was written"
        assert not leftovers(os.path.dirname(out)), leftovers(os.path.dirname(out))
    print(f"ok: exit {code}: {r.stderr.strip().splitlines()[-1]}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.onnx")
        softmax = variant(tmp, "softmax", config="ffn_activation: softmax\n")
        fails([NETCONV, "export", softmax, "--onnx", out], 1, "ffn_activation 'softmax'",
              "not supported", out=out)

        def own_embedding(t):
            de = t["policy_embedding.weight"].shape[0]
            t["policy_head_embedding.weight"] = np.eye(de, dtype=np.float32)
        own = variant(tmp, "own", edit=own_embedding)
        fails([NETCONV, "export", own, "--onnx", out], 1, "policy head 'vanilla'",
              "own embedding", out=out)

        def huge(t):
            t["value_dense2.bias"][0] = 70000.0
        big = variant(tmp, "big", edit=huge)
        fails([NETCONV, "export", big, "--onnx", out, "--precision", "float16"], 1,
              "/value/dense2/b", "float16", out=out)
        u.export(NETCONV, big, out, "float32")
        os.remove(out)

        missing = os.path.join(tmp, "no-such-dir", "x.onnx")
        fails([NETCONV, "export", NET, "--onnx", missing], 1, missing, "No such file")
        assert not os.path.exists(os.path.dirname(missing))
        under_file = os.path.join(tmp, "big.yaml.d", "x.onnx")
        open(os.path.join(tmp, "big.yaml.d"), "w").close()
        fails([NETCONV, "export", NET, "--onnx", under_file], 1, under_file, "not a directory")
        if os.geteuid() != 0:
            ro = os.path.join(tmp, "ro")
            os.mkdir(ro, 0o555)
            fails([NETCONV, "export", NET, "--onnx", os.path.join(ro, "x.onnx")], 1,
                  "not writable", out=os.path.join(ro, "x.onnx"))
        else:  # root writes anywhere the permissions say; /proc takes no new files
            fails([NETCONV, "export", NET, "--onnx", "/proc/cformer-test.onnx"], 1,
                  "/proc/cformer-test.onnx")
            assert not os.path.exists("/proc/cformer-test.onnx")

        fails([NETCONV, "export", NET, "--onnx", out, "--precision", "int8"], 2, "precision",
              out=out)
        fails([NETCONV, "export", NET, "--onnx", out, "-o", out + ".st"], 2, "not both", out=out)
        fails([NETCONV, "export", NET, "-o", out, "--precision", "float16"], 2, "--precision",
              out=out)
        fails([NETCONV, "export", NET, "--onnx", out, "--naming", "ours"], 2, "--naming", out=out)

        # A missing module: a stand-in that fails to import, first on the path.
        for module, package in (("numpy", "python3-numpy"), ("onnx", "python3-onnx")):
            fake = os.path.join(tmp, "no-" + module, module)
            os.makedirs(fake)
            with open(os.path.join(fake, "__init__.py"), "w") as f:
                f.write("raise ImportError('No module named %s')\n" % module)
            env = dict(os.environ, PYTHONPATH=os.path.dirname(fake))
            r = u.run([NETCONV, "export", NET, "--onnx", out], env=env)
            assert r.returncode == 1, (module, r.returncode, r.stderr)
            assert r.stderr.count("\n") == 1 and package in r.stderr, (module, r.stderr)
            assert "Traceback" not in r.stderr and not os.path.exists(out), r.stderr
            assert not leftovers(tmp), leftovers(tmp)
            print(f"ok: without {module}: {r.stderr.strip()}")

        # Atomic replace.
        with open(out, "wb") as f:
            f.write(b"the previous file")
        before = os.stat(out).st_ino
        fails([NETCONV, "export", softmax, "--onnx", out], 1, "softmax")
        assert open(out, "rb").read() == b"the previous file", "a failed export touched OUT"
        assert not leftovers(tmp), leftovers(tmp)
        u.export(NETCONV, NET, out)
        onnx.checker.check_model(onnx.load(out))
        assert os.stat(out).st_ino != before, "OUT was rewritten in place, not renamed"
        assert not leftovers(tmp), leftovers(tmp)
        print("ok: atomic replace")


main()
