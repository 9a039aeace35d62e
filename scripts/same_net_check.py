"""Do cformer and Lc0 compute the same network? A check the benchmark scripts
against Lc0 run on every net before timing anything.

A speed ratio means something only when both engines compute the same
function. Lc0 loads some files that it then misreads without a word: its
blas backend takes the attention width from the q bias's length (a net
without q/k/v biases runs every head at depth 0, skipping most of the work)
and reads 176 embedding inputs a square (a 112-input embedding is read past
its end). So each engine searches one visit (`go nodes 1`) from a few
positions with VerboseMoveStats, and the check compares every root move's
prior (P, printed with two decimals in percent) and the root's W/D/L
(UCI_ShowWDL, in permille). cformer runs in float32 for it, whatever
precision is being timed. A difference beyond the printing's rounding is an
error that names the position, the move and both values.
"""
import re

from uci_engine import RunError, UciEngine

POSITIONS = [
    ("start", "startpos"),
    ("Kiwipete", "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("1.e4 e5 2.Nf3 Nc6", "startpos moves e2e4 e7e5 g1f3 b8c6"),
]
# Both print P with two decimals: half a unit of rounding each, plus float
# noise. A misread net moves priors by tenths of a percent or more.
P_TOLERANCE = 0.03    # percentage points
WDL_TOLERANCE = 3     # permille (each engine rounds its own W/D/L)
SEARCH_TIMEOUT = 120.0  # seconds for one visit (the net is already loaded)

# "info string e2e4  (322 ) N: ... (P:  4.80%) ...": Lc0 pads the index
# after it, cformer before it; Lc0 adds a line for the node itself.
MOVE_STATS = re.compile(r"^info string (\S+)\s+\(\s*\d+\s*\)\s+N:.*?\(P:\s*(-?[\d.]+)%\)")
WDL = re.compile(r"\swdl (\d+) (\d+) (\d+)(?:\s|$)")

# UCI_Chess960: both write castling as king takes rook (Lc0's VerboseMoveStats
# does so whatever the option, cformer only in Chess960 mode).
OPTIONS = [("Threads", 1), ("VerboseMoveStats", "true"), ("UCI_ShowWDL", "true"),
           ("PolicyTemperature", 1), ("SmartPruningFactor", 0), ("UCI_Chess960", "true")]


def move_priors(lines):
    """{move: P in percent} of a search's VerboseMoveStats lines."""
    out = {}
    for line in lines:
        m = MOVE_STATS.match(line)
        if m and m.group(1) != "node":
            out[m.group(1)] = float(m.group(2))
    return out


def root_wdl(lines):
    """(W, D, L) in permille of the last info line that gives them, or None."""
    found = None
    for line in lines:
        if line.startswith("info ") and not line.startswith("info string"):
            m = WDL.search(line)
            if m:
                found = tuple(int(v) for v in m.groups())
    return found


def differences(mine, theirs):
    """What differs between two searches' outputs, as readable lines ([] when
    they agree). mine, theirs: (priors, wdl)."""
    (p_mine, wdl_mine), (p_theirs, wdl_theirs) = mine, theirs
    out = []
    if not p_mine or not p_theirs:
        out.append("no VerboseMoveStats lines from " +
                   ("cformer" if not p_mine else "Lc0"))
    elif set(p_mine) != set(p_theirs):
        out.append(f"different root moves: only cformer {sorted(set(p_mine) - set(p_theirs))}, "
                   f"only Lc0 {sorted(set(p_theirs) - set(p_mine))}")
    else:
        worst = max(p_mine, key=lambda mv: abs(p_mine[mv] - p_theirs[mv]))
        if abs(p_mine[worst] - p_theirs[worst]) > P_TOLERANCE:
            out.append(f"prior of {worst}: cformer {p_mine[worst]:.2f}%, "
                       f"Lc0 {p_theirs[worst]:.2f}%")
    if wdl_mine is None or wdl_theirs is None:
        out.append("no wdl on the info line of " + ("cformer" if wdl_mine is None else "Lc0"))
    elif max(abs(a - b) for a, b in zip(wdl_mine, wdl_theirs)) > WDL_TOLERANCE:
        out.append(f"W/D/L (permille): cformer {wdl_mine}, Lc0 {wdl_theirs}")
    return out


def outputs(engine):
    """{position name: (priors, wdl)} of one visit from each position."""
    out = {}
    for name, spec in POSITIONS:
        lines, _ = engine.go(spec, "go nodes 1", SEARCH_TIMEOUT)
        out[name] = (move_priors(lines), root_wdl(lines))
    return out


def check(net_label, net, cformer, cformer_backend, cformer_backend_opts, lc0_label, lc0,
          lc0_backend, lc0_backend_opts, lc0_env, log):
    """Raises RunError unless cformer (float32) and this Lc0 give the same
    priors and W/D/L on net from every position of POSITIONS."""
    opts = ",".join([o for o in cformer_backend_opts.split(",")
                     if o.strip() and not o.strip().startswith("precision=")] + ["precision=f32"])
    mine_engine = UciEngine("cformer", [cformer, "uci"],
                            [("WeightsFile", net), ("Backend", cformer_backend),
                             ("BackendOptions", opts)] + OPTIONS)
    lc0_opts = [("WeightsFile", net), ("Backend", lc0_backend)] + OPTIONS
    if lc0_backend_opts:
        lc0_opts.append(("BackendOptions", lc0_backend_opts))
    theirs_engine = UciEngine(lc0_label, [lc0], lc0_opts, lc0_env)
    log(f"{net_label}: checking that {lc0_label} and cformer compute the same network")
    results = []
    for engine in (mine_engine, theirs_engine):
        try:
            engine.start()
            results.append(outputs(engine))
        finally:
            engine.close()
    for name, _ in POSITIONS:
        found = differences(results[0][name], results[1][name])
        if found:
            raise RunError(
                f"{net_label}: {lc0_label} and cformer disagree on the network's outputs "
                f"({name}: {'; '.join(found)}). {lc0_label} does not compute this network as "
                f"cformer does, so their speeds would not be comparable. Lc0's blas backend "
                f"misreads a net without q/k/v biases or with a 112-input embedding: use one in "
                f"the layout it runs (netconv random --no-rpe --layernorm --qkv-bias "
                f"--pos-table, as --shapes makes them).")
