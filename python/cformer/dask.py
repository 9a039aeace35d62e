"""cformer.dask: ``cformer analyse`` spread over a Dask cluster.

    from distributed import Client
    import cformer.dask
    with Client("tcp://scheduler:8786") as client:
        cformer.dask.analyse(client, "games.pgn.zst", "games.jsonl",
                             serve_args=["--nodes=100"])

Design (docs/ANALYSE.md): the driver runs ``cformer analyse INPUT
--emit-units``, the same reader as the plain command, and cuts its stream of
units (games or positions, already parsed, bad ones reported and dropped)
into shards of ``shard_size`` units. Each worker holds one resident
``cformer analyse --serve`` process (a worker plugin starts it, so the
network is loaded once per worker) and analyses whole shards through it. A
shard's records come back to the driver, which writes them to
``OUTPUT.shards/NNNNNNNN`` atomically (a temporary file, then rename): a
worker killed mid-shard leaves nothing behind, Dask runs the shard again
elsewhere, and no shard is ever written twice. At the end the shards are
joined in order into OUTPUT (again through a rename), so the output is the
single-process command's, record for record. ``resume=True`` keeps the
shards already written. Workers need the ``cformer`` binary (same path, or
``binary=``) and the network file; the input and output stay with the
driver.

The binary is used rather than libcformer through Python because the
analysis (readers, batching, search, writers) lives in C once; workers
running it give the same records as the plain command by construction.
"""

import argparse
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

PLUGIN_NAME = "cformer-analyse"
DEFAULT_SHARD_SIZE = 1000
CONNECT_TIMEOUT_S = 5


class AnalyseError(RuntimeError):
    """The run failed: a worker's error, the reader's, or the output's."""


def _die_with_parent():
    """In the serve process, before exec: be killed when the worker dies,
    so a killed worker leaves no process analysing a shard nobody wants."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class _Server:
    """One resident ``cformer analyse --serve`` process."""

    def __init__(self, binary, serve_args, workdir):
        self.workdir = workdir
        self.error = None
        self.lock = threading.Lock()
        self.stderr = tempfile.TemporaryFile(dir=workdir)
        try:
            self.proc = subprocess.Popen(
                [binary, "analyse", "--serve", *serve_args],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                text=True, preexec_fn=_die_with_parent)
        except OSError as e:
            self.proc = None
            self.error = "cannot run %s: %s" % (binary, e)
            return
        first = self.proc.stdout.readline().strip()
        if first != "ready":
            self.error = first[len("error: "):] if first.startswith("error: ") else (
                "the serve process ended before it was ready" + self._stderr_tail())

    def _stderr_tail(self):
        try:
            self.stderr.seek(0)
            tail = self.stderr.read()[-2000:].decode("utf-8", "replace").strip()
        except OSError:
            tail = ""
        return (": " + tail) if tail else ""

    def run(self, units, source):
        if self.error:
            raise AnalyseError(self.error)
        with self.lock:
            fd, path_in = tempfile.mkstemp(dir=self.workdir, suffix=".units")
            path_out = path_in + ".out"
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(units)
                request = {"input": path_in, "output": path_out, "source": source}
                self.proc.stdin.write(json.dumps(request) + "\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
                if not line:
                    raise AnalyseError("the serve process died" + self._stderr_tail())
                reply = json.loads(line)
                if "error" in reply:
                    raise AnalyseError(reply["error"])
                with open(path_out, "rb") as f:
                    return f.read(), reply["positions"]
            finally:
                for p in (path_in, path_out):
                    try:
                        os.unlink(p)
                    except OSError:
                        pass

    def close(self):
        if self.proc:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        self.stderr.close()


try:
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # the module still imports; analyse() says what is missing
    _WorkerPlugin = object


class AnalysePlugin(_WorkerPlugin):
    """The worker plugin: one serve process per worker, started at setup
    (the network is loaded then), stopped at teardown. A network that fails
    to load is remembered and raised by every shard sent to that worker, so
    the run stops with this worker's error."""

    name = PLUGIN_NAME

    def __init__(self, binary, serve_args):
        self.binary = binary
        self.serve_args = list(serve_args)
        self.server = None

    def setup(self, worker):
        self.worker_address = worker.address
        self.server = _Server(self.binary, self.serve_args, worker.local_directory)

    def teardown(self, worker):
        if self.server:
            self.server.close()


def _analyse_shard(units, source):
    """The task: one shard through this worker's serve process."""
    from distributed import get_worker
    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN_NAME)
    if plugin is None or plugin.server is None:
        raise AnalyseError("worker %s: the cformer plugin is not set up" % worker.address)
    try:
        return plugin.server.run(units, source)
    except AnalyseError as e:
        raise AnalyseError("worker %s: %s" % (worker.address, e)) from None


def _write_atomic(path, chunks):
    tmp = "%s.tmp-%d-%s" % (path, os.getpid(), uuid.uuid4().hex[:8])
    with open(tmp, "wb") as f:
        for c in chunks:
            f.write(c)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _shards(emitter, shard_size, summary):
    """(index, bytes) of each shard of the emitter's units; its closing
    line ({"end": true, "bad_units": N}) goes into ``summary``."""
    batch, index = [], 0
    for line in emitter.stdout:
        if line.startswith(b'{"end":'):
            summary.update(json.loads(line))
            continue
        batch.append(line)
        if len(batch) == shard_size:
            yield index, b"".join(batch)
            batch, index = [], index + 1
    if batch:
        yield index, b"".join(batch)


def _csv_header(binary):
    """The CSV header, from the binary (one source of truth)."""
    with tempfile.TemporaryDirectory() as d:
        empty = os.path.join(d, "empty.fen")
        open(empty, "w").close()
        out = subprocess.run([binary, "analyse", empty, "--quiet", "--output-format=csv"],
                             capture_output=True, check=True)
        return out.stdout


def analyse(client, input, output=None, *, binary=None, source_name=None, format="auto",
            output_format="jsonl", shard_size=DEFAULT_SHARD_SIZE, serve_args=(), resume=False,
            quiet=False):
    """Analyses ``input`` on the cluster of ``client`` into ``output`` (a
    path; None: the records are returned as bytes). ``serve_args`` are
    ``cformer analyse`` flags for the workers (--weights, --nodes, ...).
    Returns the number of positions written (or the bytes, without output).
    Raises AnalyseError, naming the worker, when a shard fails."""
    binary = binary or shutil.which("cformer")
    if not binary:
        raise AnalyseError("no cformer binary: pass binary= or put cformer on PATH")
    source_name = source_name or input
    if format == "auto":
        format = _format_of_name(input)
    serve_args = list(serve_args) + ["--output-format=" + output_format]
    client.register_worker_plugin(AnalysePlugin(binary, serve_args), name=PLUGIN_NAME)

    own_dir = None
    if output:
        shard_dir = output + ".shards"
        if not resume and os.path.isdir(shard_dir):
            shutil.rmtree(shard_dir)
    else:
        shard_dir = own_dir = tempfile.mkdtemp(prefix="cformer-analyse-")
    os.makedirs(shard_dir, exist_ok=True)

    emitter = subprocess.Popen(
        [binary, "analyse", input, "--emit-units", "--format=" + format,
         "--source-name=" + source_name], stdout=subprocess.PIPE)
    from distributed import as_completed
    n_workers = max(1, len(client.scheduler_info().get("workers", {})))
    in_flight_max = 2 * n_workers + 2
    futures = as_completed()
    pending = {}
    positions, done_shards, total_shards = 0, 0, None
    t0 = last = time.monotonic()
    run_id = uuid.uuid4().hex[:12]

    def collect(future):
        nonlocal positions, done_shards
        index = pending.pop(future)
        data, n = future.result()  # a worker's error stops the run here
        _write_atomic(os.path.join(shard_dir, "%08d" % index), [data])
        positions += n
        done_shards += 1

    summary = {}
    try:
        count = 0
        for index, units in _shards(emitter, shard_size, summary):
            count += 1
            if os.path.exists(os.path.join(shard_dir, "%08d" % index)):
                done_shards += 1
                continue
            f = client.submit(_analyse_shard, units, source_name, pure=False,
                              key="cformer-analyse-%s-%d" % (run_id, index))
            pending[f] = index
            futures.add(f)
            while len(pending) >= in_flight_max:
                collect(next(futures))
            if not quiet and time.monotonic() - last > 2:
                last = _progress(t0, positions, done_shards, None)
        if emitter.wait() != 0:
            raise AnalyseError("reading %s failed (see above)" % input)
        total_shards = count
        for f in futures:
            collect(f)
            if not quiet and time.monotonic() - last > 2:
                last = _progress(t0, positions, done_shards, total_shards)
    except BaseException:
        for f in pending:
            f.cancel()
        emitter.kill()
        emitter.wait()
        raise
    finally:
        if emitter.stdout:
            emitter.stdout.close()

    names = ["%08d" % i for i in range(total_shards)]
    header = [_csv_header(binary)] if output_format == "csv" else []

    def chunks():
        yield from header
        for n in names:
            with open(os.path.join(shard_dir, n), "rb") as f:
                yield from iter(lambda: f.read(1 << 20), b"")

    if not quiet:
        _progress(t0, positions, done_shards, total_shards)
        if summary.get("bad_units"):  # as the plain command ends
            sys.stderr.write("cformer analyse: %d unreadable %s skipped\n" % (
                summary["bad_units"], "game(s)" if format == "pgn" else "record(s)"))
    if output:
        _write_atomic(output, chunks())
        shutil.rmtree(shard_dir)
        return positions
    data = b"".join(chunks())
    shutil.rmtree(own_dir)
    return data


def _progress(t0, positions, done, total):
    now = time.monotonic()
    rate = positions / (now - t0) if now > t0 else 0.0
    eta = "?"
    if total and done:
        left = (now - t0) / done * (total - done)
        eta = "%dm%02ds" % (left // 60, left % 60)
    sys.stderr.write("cformer analyse: %d/%s shards, %d positions, %.1f positions/s, ETA %s\n"
                     % (done, total if total is not None else "?", positions, rate, eta))
    sys.stderr.flush()
    return now


def _format_of_name(path):
    name = path
    for suffix in (".gz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for ext, fmt in ((".pgn", "pgn"), (".epd", "epd"), (".fen", "fen"), (".txt", "fen"),
                     (".csv", "puzzles")):
        if name.endswith(ext):
            return fmt
    raise AnalyseError("cannot tell the format of %r from its name: give format=" % path)


def main(argv=None):
    """``python3 -m cformer.dask``: what ``cformer analyse --workers N`` and
    ``--scheduler ADDR`` run (the flags after ``--`` go to the workers)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    serve_args = []
    if "--" in argv:
        cut = argv.index("--")
        argv, serve_args = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(prog="cformer analyse (Dask)")
    p.add_argument("--binary", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--source-name")
    p.add_argument("--format", default="auto")
    p.add_argument("--output")
    p.add_argument("--output-format", default="jsonl")
    p.add_argument("--shard-size", type=int, default=DEFAULT_SHARD_SIZE)
    p.add_argument("--workers", type=int)
    p.add_argument("--scheduler")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    prog = "cformer analyse"
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        sys.stderr.write("%s: Dask is not installed (Debian: python3-distributed): %s\n" % (prog, e))
        return 1
    cluster = None
    try:
        if a.scheduler:
            try:
                client = Client(a.scheduler, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as e:
                sys.stderr.write("%s: cannot reach the Dask scheduler at %s: %s\n"
                                 % (prog, a.scheduler, e))
                return 1
        else:
            cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        with client:
            if a.output:
                out_dir = os.path.dirname(os.path.abspath(a.output))
                if not os.access(out_dir, os.W_OK):
                    sys.stderr.write("%s: cannot write '%s': the folder is not writable\n"
                                     % (prog, a.output))
                    return 1
            result = analyse(client, a.input, a.output, binary=a.binary,
                             source_name=a.source_name, format=a.format,
                             output_format=a.output_format, shard_size=a.shard_size,
                             serve_args=serve_args, resume=a.resume, quiet=a.quiet)
            if not a.output:
                sys.stdout.buffer.write(result)
                sys.stdout.flush()
        return 0
    except AnalyseError as e:
        sys.stderr.write("%s: %s\n" % (prog, e))
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("%s: interrupted; run again with --resume to go on\n" % prog)
        return 130
    finally:
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
