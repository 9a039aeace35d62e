"""Shaw relative-position attention terms as plain ONNX ops (NETWORK.md
section 5): p(q, k) = 15 (rank q - rank k + 7) + (file q - file k + 7).

Each term is one MatMul against the 225-offset table plus a change between
"relative" [.., 64 squares, 225 offsets] and "absolute" [.., 64, 64]
indexing. That change is the skewing trick of relative attention, once per
board axis: pad, reshape and slice shift row r of a [8][15] block by r, so
every step is a block copy (Slice, Pad, Reshape, Transpose). A Gather with a
64x64 index does the same with one node but copies element by element;
onnxruntime spent about 60% of its time in those Gathers.

rel_to_abs(x)[a][b] = x[a][15 (rank b - rank a + 7) + (file b - file a + 7)]
abs_to_rel(A)[a][15 (rank b - rank a + 7) + (file b - file a + 7)] = A[a][b],
  0 at the offsets no square b reaches.
Offsets measured from a to b are the reverse (224 - p) of p(q, k) measured
from q to k, so the q and v tables are stored reversed along the 225 axis.
"""


def rel_to_abs(b, name, x, H, kq=False):
    """[N][H][64][225] -> [N][H][64][64]; kq: transposed, out[b][a]."""
    x = b.reshape(name + "/r2a/view", x, [-1, H, 8, 8, 15, 15])  # ra fa dr df
    x = b.transpose(name + "/r2a/t1", x, [0, 1, 2, 4, 3, 5])     # ra dr fa df
    x = b.reshape(name + "/r2a/files", x, [-1, H, 8, 15, 120])
    x = b.slice(name + "/r2a/fshift", x, [7], [119], [4])
    x = b.reshape(name + "/r2a/frows", x, [-1, H, 8, 15, 8, 14])
    x = b.slice(name + "/r2a/fcut", x, [0], [8], [5])            # ra dr fa fb
    x = b.reshape(name + "/r2a/ranks", x, [-1, H, 120, 64])
    x = b.slice(name + "/r2a/rshift", x, [7], [119], [2])
    x = b.reshape(name + "/r2a/rrows", x, [-1, H, 8, 14, 64])
    x = b.slice(name + "/r2a/rcut", x, [0], [8], [3])            # ra rb (fa fb)
    x = b.reshape(name + "/r2a/split", x, [-1, H, 8, 8, 8, 8])   # ra rb fa fb
    perm = [0, 1, 3, 5, 2, 4] if kq else [0, 1, 2, 4, 3, 5]
    x = b.transpose(name + "/r2a/t2", x, perm)
    return b.reshape(name + "/r2a", x, [-1, H, 64, 64])


def abs_to_rel(b, name, a, H):
    """[N][H][64][64] -> [N][H][64][225]."""
    a = b.reshape(name + "/a2r/view", a, [-1, H, 8, 8, 8, 8])    # ra fa rb fb
    a = b.transpose(name + "/a2r/t1", a, [0, 1, 2, 4, 3, 5])     # ra rb fa fb
    a = pad(b, name + "/a2r/fpad", a, after=[0] * 5 + [6])
    a = b.reshape(name + "/a2r/files", a, [-1, H, 8, 8, 112])
    a = pad(b, name + "/a2r/fshift", a, before=[0, 0, 0, 0, 7], after=[0, 0, 0, 0, 1])
    a = b.reshape(name + "/a2r/blocks", a, [-1, H, 8, 8, 120])   # ra rb (fa df)
    a = pad(b, name + "/a2r/rpad", a, after=[0, 0, 0, 6, 0])
    a = b.reshape(name + "/a2r/ranks", a, [-1, H, 112, 120])
    a = pad(b, name + "/a2r/rshift", a, before=[0, 0, 7, 0], after=[0, 0, 1, 0])
    a = b.reshape(name + "/a2r/split", a, [-1, H, 8, 15, 8, 15])  # ra dr fa df
    a = b.transpose(name + "/a2r/t2", a, [0, 1, 2, 4, 3, 5])
    return b.reshape(name + "/a2r", a, [-1, H, 64, 225])


def pad(b, name, x, after, before=None):
    """Zeros before/after each axis (lists of the tensor's rank)."""
    before = before or [0] * len(after)
    return b.node("Pad", [x, b.ints(name + "/pads", list(before) + list(after))], name)


def heads_table(table, H, dh, reverse):
    """rpe [225][dh*H] (p, i*H + h) -> [H][225][dh], the 225 axis reversed if asked."""
    t = table.reshape(225, dh, H).transpose(2, 0, 1)
    return t[:, ::-1, :] if reverse else t


def score_terms(b, name, net, pre, q, k, H, dh):
    """The rpe_q and rpe_k score terms [N][H][64 q][64 k] that are present."""
    terms = []
    for c, src, reverse in (("q", q, True), ("k", k, False)):
        e = net.get(f"{pre}rpe_{c}")
        if e is None:
            continue
        w = b.weight(f"{name}/rpe_{c}", heads_table(e, H, dh, reverse).transpose(0, 2, 1))
        r = b.node("MatMul", [src, w], f"{name}/rpe_{c}/matmul")  # [N][H][64][225]
        terms.append(rel_to_abs(b, f"{name}/rpe_{c}", r, H, kq=(c == "k")))
    return terms


def value_term(b, name, net, pre, att, H, dh):
    """sum_k A[q][k] E_v[p(q, k)] as [N][H][64][dh], or None without rpe_v."""
    e = net.get(pre + "rpe_v")
    if e is None:
        return None
    ap = abs_to_rel(b, name + "/rpe_v", att, H)
    w = b.weight(name + "/rpe_v", heads_table(e, H, dh, True))
    return b.node("MatMul", [ap, w], name + "/rpe_v/matmul")
