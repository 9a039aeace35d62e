"""Lc0 V6 training chunks (`cformer selfplay --training`, Lc0's selfplay) for
the trainer: read, checked and turned into training targets.

The parsing is plain Python (gzip and struct), so it works, and is tested,
without numpy or torch; decode() builds the trainer's numpy batch from it,
with the keys packed.decode gives (planes, legal, policy, best, wdl,
sf_wdl) and plies_left for a moves-left head. The selfplay targets, as
lczero-training takes them:

  policy      the root's visit shares (V6 `probabilities`; -1 marks the
              moves that are not legal, read as 0 and as not legal);
  wdl         (1 - q_ratio) x the game's result + q_ratio x the best move's
              search value (best_q, best_d as W/D/L), from the side to move;
  plies_left  the moves-left target Lc0 fills at the game's end.

The 112 planes are rebuilt as cformer's encoder makes them (NETWORK.md
section 3): the 104 history planes from the record (each byte's bits
reversed back), the 8 auxiliary ones from its castling, en-passant, side to
move and rule-50 bytes for its input format.
"""

import gzip
import struct
import zlib

RECORD_BYTES = 8356
POLICY = 1858
VERSION = 6
_HEAD = struct.Struct("<II")
_PROBS = struct.Struct("<%df" % POLICY)
_PLANES = struct.Struct("<104Q")
_TAIL = struct.Struct("<8B15fI2H2f")
assert _HEAD.size + _PROBS.size + _PLANES.size + _TAIL.size == RECORD_BYTES
_TAIL_NAMES = ("castling_us_ooo", "castling_us_oo", "castling_them_ooo", "castling_them_oo",
               "side_to_move_or_enpassant", "rule50_count", "invariance_info", "dummy",
               "root_q", "best_q", "root_d", "best_d", "root_m", "best_m", "plies_left",
               "result_q", "result_d", "played_q", "played_d", "played_m", "orig_q", "orig_d",
               "orig_m", "visits", "played_idx", "best_idx", "policy_kld", "q_st")
CANONICAL = (3, 4, 5, 132, 133)
HECTOPLIES = (4, 5, 132, 133)
ARMAGEDDON = (132, 133)
ALL = (1 << 64) - 1


class ChunkError(Exception):
    pass


def parse_record(buf, offset=0):
    """One record's fields as a dict (probabilities a tuple, planes a tuple)."""
    version, input_format = _HEAD.unpack_from(buf, offset)
    at = offset + _HEAD.size
    r = {"version": version, "input_format": input_format,
         "probabilities": _PROBS.unpack_from(buf, at)}
    at += _PROBS.size
    r["planes"] = _PLANES.unpack_from(buf, at)
    r.update(zip(_TAIL_NAMES, _TAIL.unpack_from(buf, at + _PLANES.size)))
    return r


def read_chunk(path):
    """Every record of a chunk file; ChunkError naming the file when it is not
    gzip, is cut short, or holds a record that is not V6."""
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except (gzip.BadGzipFile, OSError, EOFError, zlib.error) as e:
        if isinstance(e, EOFError) or "end-of-stream" in str(e):
            raise ChunkError(f"{path}: truncated (the gzip stream ends early)") from None
        if isinstance(e, gzip.BadGzipFile):
            raise ChunkError(f"{path}: not a training chunk (not gzip)") from None
        raise ChunkError(f"{path}: {e}") from None
    if not data:
        raise ChunkError(f"{path}: empty: no training records")
    if len(data) % RECORD_BYTES:
        raise ChunkError(f"{path}: truncated: {len(data) % RECORD_BYTES} bytes after record "
                         f"{len(data) // RECORD_BYTES}, not a whole {RECORD_BYTES}-byte V6 record")
    out = []
    for i in range(len(data) // RECORD_BYTES):
        r = parse_record(data, i * RECORD_BYTES)
        if r["version"] != VERSION:
            raise ChunkError(f"{path}: record {i} has version {r['version']}: not a V6 "
                             f"training chunk")
        out.append(r)
    return out


def black_to_move(r):
    if r["input_format"] in CANONICAL:
        return bool(r["invariance_info"] & 0x80)
    return bool(r["side_to_move_or_enpassant"])


def white_result(r):
    """+1, 0, -1: the game's result for White."""
    sign = -1 if black_to_move(r) else 1
    if r["result_q"] == 1.0:
        return sign
    if r["result_q"] == -1.0:
        return -sign
    return 0


def _reverse_bits_in_bytes(v):
    out = 0
    for b in range(8):
        byte = (v >> (8 * b)) & 0xFF
        out |= int("{:08b}".format(byte)[::-1], 2) << (8 * b)
    return out


def planes(r):
    """[(mask, value)] * 112: bit s of mask is square s of the plane (the
    mover's frame after the canonical transform), value its value there."""
    out = [(_reverse_bits_in_bytes(m), 1.0) for m in r["planes"]]
    fmt = r["input_format"]
    aux = [(0, 1.0)] * 8
    if fmt == 1:
        for k, name in enumerate(("castling_us_ooo", "castling_us_oo", "castling_them_ooo",
                                  "castling_them_oo")):
            aux[k] = (ALL if r[name] else 0, 1.0)
    else:  # the castling rooks' files: ours on rank 1, theirs on rank 8
        aux[0] = (r["castling_us_ooo"] | r["castling_them_ooo"] << 56, 1.0)
        aux[1] = (r["castling_us_oo"] | r["castling_them_oo"] << 56, 1.0)
    if fmt in CANONICAL:
        aux[4] = (r["side_to_move_or_enpassant"] << 56, 1.0)
    elif r["side_to_move_or_enpassant"]:
        aux[4] = (ALL, 1.0)
    rule50 = r["rule50_count"] / 100.0 if fmt in HECTOPLIES else float(r["rule50_count"])
    aux[5] = (ALL if rule50 else 0, rule50)
    if fmt in ARMAGEDDON and black_to_move(r):
        aux[6] = (ALL, 1.0)
    aux[7] = (ALL, 1.0)
    return out + aux


def targets(r, q_ratio=0.0):
    """(policy [1858] floats, legal [1858] bools, wdl [3] from the side to
    move, best move index, plies_left) of one record."""
    probs = r["probabilities"]
    legal = [p >= 0 for p in probs]
    policy = [p if p > 0 else 0.0 for p in probs]
    total = sum(policy)
    if total > 0:
        policy = [p / total for p in policy]

    def wdl(q, d):
        w = (1.0 - d + q) / 2.0
        return [w, d, w - q]

    res = wdl(r["result_q"], r["result_d"])
    best = wdl(r["best_q"], r["best_d"]) if r["best_q"] == r["best_q"] else res  # NaN: no search value
    blend = [(1.0 - q_ratio) * a + q_ratio * b for a, b in zip(res, best)]
    return policy, legal, blend, r["best_idx"], r["plies_left"]


class ChunkSet:
    """The records of chunk files (or of every training.*.gz / *.gz in a
    folder), in file order, with the input format they share."""

    def __init__(self, paths):
        import glob
        import os
        files = []
        for p in paths:
            files += sorted(glob.glob(os.path.join(p, "*.gz"))) if os.path.isdir(p) else [p]
        if not files:
            raise ChunkError(f"{', '.join(paths)}: no chunk files (*.gz)")
        self.records = []
        for f in files:
            self.records += read_chunk(f)
        formats = {r["input_format"] for r in self.records}
        if len(formats) != 1:
            raise ChunkError(f"chunks of several input formats: {sorted(formats)}")
        self.input_format = formats.pop()

    def __len__(self):
        return len(self.records)

    def changed_on_disk(self):
        """Chunks are never rewritten in place (train.py asks PackFile the same)."""
        return False

    def split(self, val_share):
        """(train, val): the last val_share of the records (at least one when
        there are two) held out for validation."""
        k = min(len(self.records) - 1, max(1, int(len(self.records) * val_share)))
        val = object.__new__(ChunkSet)
        val.records, val.input_format = self.records[len(self.records) - k:], self.input_format
        self.records = self.records[:len(self.records) - k]
        return self, val


def decode(records, q_ratio=0.0):
    """The trainer's batch (numpy arrays) of a list of records, with the
    keys of packed.decode plus plies_left [B]; sf_wdl holds the search's
    own W/D/L (best_q, best_d) for the metrics that compare against it."""
    import numpy as np
    n = len(records)
    pl = np.zeros((n, 112, 64), np.float32)
    legal = np.zeros((n, POLICY), bool)
    policy = np.zeros((n, POLICY), np.float32)
    wdl = np.zeros((n, 3), np.float32)
    search = np.zeros((n, 3), np.float32)
    best = np.zeros(n, np.int64)
    left = np.zeros(n, np.float32)
    bits = np.arange(64, dtype=np.uint64)
    for i, r in enumerate(records):
        for j, (mask, value) in enumerate(planes(r)):
            if mask:
                pl[i, j] = ((np.uint64(mask) >> bits) & np.uint64(1)).astype(np.float32) * value
        p, lg, v, b, m = targets(r, q_ratio)
        policy[i], legal[i], wdl[i], best[i], left[i] = p, lg, v, b, m
        search[i] = targets(r, 1.0)[2]
    return {"planes": pl, "legal": legal, "policy": policy, "best": best, "wdl": wdl,
            "sf_wdl": search, "plies_left": left}
