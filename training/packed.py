"""Reading `cformer pack-data` files (tools/pack_data/cf_pack_format.h) with numpy.

The records are memory-mapped, so a training run touches only the batches it
draws; decode() turns a slice of records into the float tensors the model
and the losses need.
"""

import os

import numpy as np

MAGIC = b"CFPACK01"
VERSION = 1
HEADER_SIZE = 64
POLICY = 1858
NO_MOVE = 0xFFFF
RESULT_UNKNOWN = -128

RECORD = np.dtype([
    ("planes", "<u8", (112,)),
    ("legal", "<u8", (30,)),
    ("aux_value", "<f4", (8,)),
    ("policy_prob", "<f4", (4,)),
    ("sf_wdl", "<f4", (3,)),
    ("policy_cp", "<i4", (4,)),
    ("game_id", "<u4"),
    ("policy_index", "<u2", (4,)),
    ("best_index", "<u2"),
    ("ply", "<u2"),
    ("result", "i1"),
    ("transform", "u1"),
    ("black_to_move", "u1"),
    ("n_pv", "u1"),
])
assert RECORD.itemsize == 1232, RECORD.itemsize


class PackError(Exception):
    pass


def read_header(path):
    """(input_format, count) of a pack file; PackError if it is not one."""
    with open(path, "rb") as f:
        h = f.read(HEADER_SIZE)
    if len(h) < HEADER_SIZE or h[:8] != MAGIC:
        raise PackError(f"{path}: not a cformer pack file (bad magic)")
    version, size, input_format, _ = np.frombuffer(h[8:24], "<u4")
    count = int(np.frombuffer(h[24:32], "<u8")[0])
    if version != VERSION or size != RECORD.itemsize:
        raise PackError(f"{path}: pack version {version} record size {size}, "
                        f"expected {VERSION} / {RECORD.itemsize}")
    if os.path.getsize(path) < HEADER_SIZE + count * RECORD.itemsize:
        raise PackError(f"{path}: truncated ({count} records announced)")
    return int(input_format), count


class PackFile:
    """A pack file's records as a read-only memmap (records[i] is one position)."""

    def __init__(self, path):
        self.path = path
        self.input_format, self.count = read_header(path)
        st = os.stat(path)
        self.identity = (st.st_ino, st.st_mtime_ns)
        self.records = (np.memmap(path, RECORD, "r", offset=HEADER_SIZE, shape=(self.count,))
                        if self.count else np.zeros(0, RECORD))

    def changed_on_disk(self):
        """True when the file was replaced (pack-data renames a new one into place)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        return (st.st_ino, st.st_mtime_ns) != self.identity

    def __len__(self):
        return self.count


def _unpack_bits(words, nbits):
    """uint64 [B][W] -> bool-like uint8 [B][nbits], bit i of word w at w*64 + i."""
    b = np.ascontiguousarray(words).view(np.uint8).reshape(words.shape[0], -1)
    return np.unpackbits(b, axis=1, bitorder="little")[:, :nbits]


def decode(recs, best_weight=0.0, result_weight=0.2):
    """A numpy record slice -> dict of numpy arrays:

    planes [B][112][64] float32 (aux planes scaled by their values),
    legal [B][1858] bool, policy [B][1858] float32 (MultiPV soft target mixed
    with best_weight of the best move one-hot), best [B] int64, wdl [B][3]
    float32 target ((1 - result_weight) Stockfish + result_weight game result
    when the result is known, Stockfish alone otherwise), sf_wdl [B][3].
    """
    n = recs.shape[0]
    planes = _unpack_bits(recs["planes"].reshape(n * 112, 1), 64).reshape(n, 112, 64)
    planes = planes.astype(np.float32)
    planes[:, 104:, :] *= recs["aux_value"][:, :, None]
    legal = _unpack_bits(recs["legal"], POLICY).astype(bool)
    policy = np.zeros((n, POLICY), np.float32)
    idx = recs["policy_index"].astype(np.int64)
    valid = idx != NO_MOVE
    rows = np.repeat(np.arange(n), idx.shape[1]).reshape(n, -1)
    policy[rows[valid], idx[valid]] = recs["policy_prob"][valid]
    best = recs["best_index"].astype(np.int64)
    if best_weight:
        policy *= 1.0 - best_weight
        policy[np.arange(n), best] += best_weight
    sf = recs["sf_wdl"].astype(np.float32)
    res = recs["result"].astype(np.int64)
    known = res != RESULT_UNKNOWN
    onehot = np.zeros((n, 3), np.float32)
    onehot[known, 1 - np.clip(res[known], -1, 1)] = 1.0  # 1 win -> 0, 0 draw -> 1, -1 loss -> 2
    w = np.where(known, result_weight, 0.0).astype(np.float32)[:, None]
    wdl = (1.0 - w) * sf + w * onehot
    return {"planes": planes, "legal": legal, "policy": policy, "best": best, "wdl": wdl,
            "sf_wdl": sf}
