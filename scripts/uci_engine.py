"""One UCI engine process driven from a script: start it, set options, run
searches, read its `info` lines; what the benchmark scripts against Lc0
share (scripts/bench_play_vs_lc0.py, scripts/same_net_check.py)."""
import os
import queue
import subprocess
import tempfile
import threading
import time


class RunError(Exception):
    """A run of an engine or a tool failed; the message says which and why."""


INT_FIELDS = ("depth", "seldepth", "time", "nodes", "nps", "hashfull", "tbhits", "multipv")
READY_TIMEOUT = 300.0  # seconds for uciok / readyok (the net loads at isready)


def parse_info(line):
    """The fields of one UCI `info` line, or None when it is not one.

    Returns a dict with the integer fields present (depth, time, nodes, nps,
    ...) and, when a score is given, score_kind ('cp' or 'mate') and score."""
    tokens = line.split()
    if not tokens or tokens[0] != "info":
        return None
    out = {}
    i = 1
    while i < len(tokens):
        key = tokens[i]
        if key in ("pv", "string"):
            break  # the rest of the line is moves or text
        if key in INT_FIELDS and i + 1 < len(tokens):
            try:
                out[key] = int(tokens[i + 1])
            except ValueError:
                return None
            i += 2
        elif key == "score" and i + 2 < len(tokens) and tokens[i + 1] in ("cp", "mate"):
            try:
                out["score"] = int(tokens[i + 2])
            except ValueError:
                return None
            out["score_kind"] = tokens[i + 1]
            i += 3
        elif key == "wdl" and i + 3 < len(tokens):
            i += 4
        else:
            i += 1  # lowerbound, upperbound, currmove ... : skipped
    return out


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class UciEngine:
    """One engine process spoken to over UCI, its stdout read by a thread."""

    def __init__(self, label, argv, options, env=None):
        self.label, self.argv, self.options, self.env = label, argv, options, env
        self.proc, self.lines = None, queue.Queue()
        self.stderr = tempfile.TemporaryFile(mode="w+")

    def start(self):
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.stderr, text=True, bufsize=1, env=self.env)
        except OSError as e:
            raise RunError(f"{self.label}: cannot run {self.argv[0]}: {e}")
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self.wait_for("uciok", READY_TIMEOUT)
        for name, value in self.options:
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, text):
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except OSError as e:
            raise self.failure(f"cannot write '{text}': {e}")

    def failure(self, what, seen=()):
        self.stderr.seek(0)
        tail = "\n".join((list(seen) + self.stderr.read().splitlines())[-15:])
        return RunError(f"{self.label}: {what}: {' '.join(self.argv)}\n{tail}")

    def wait_for(self, prefix, timeout):
        """The lines up to and including the first that starts with prefix."""
        seen, deadline = [], time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise self.failure(f"no '{prefix}' within {timeout:g} s", seen)
            if line is None:
                raise self.failure(f"the engine exited before '{prefix}'", seen)
            seen.append(line)
            if line.startswith("error") or line.startswith("info string error"):
                raise self.failure(f"the engine reported an error: {line}", seen)
            if line.startswith(prefix):
                return seen

    def ready(self):
        self.send("isready")
        self.wait_for("readyok", READY_TIMEOUT)

    def go(self, position, go, timeout):
        """A fresh search (ucinewgame, position, go) -> (its lines up to bestmove,
        the CPU seconds per wall second it took, or None where unknown)."""
        self.send("ucinewgame")
        self.send(f"position {position}")
        self.ready()
        cpu0, t0 = cpu_seconds(self.proc.pid), time.monotonic()
        self.send(go)
        lines = self.wait_for("bestmove", timeout)
        cpu1, t1 = cpu_seconds(self.proc.pid), time.monotonic()
        use = (cpu1 - cpu0) / (t1 - t0) if cpu0 is not None and cpu1 is not None else None
        return lines, use

    def close(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=10)
            except (RunError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()
