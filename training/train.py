"""Trains training/model.py's Chessformer on `cformer pack-data` records (CPU).

    /usr/bin/python3 training/train.py --data DIR --run RUN_DIR [options]
    /usr/bin/python3 training/train.py --run RUN_DIR --resume

DIR holds train.cfpack and val.cfpack. RUN_DIR receives config.json (the
arguments and the model's shape), checkpoints (latest.pt, replaced
atomically every --checkpoint-minutes, plus step-N.pt every
--keep-every steps) and log.jsonl (one JSON object per progress or
validation line; training/plot_curve.py draws it).

Losses: policy = cross-entropy between the legal-move-masked softmax and the
MultiPV soft target (mixed with --best-weight of the best move); value =
cross-entropy between the WDL head and (1 - r) Stockfish WDL + r game result
(r = --result-weight), weighted by --value-weight; with --moves-left-cm,
moves left = lczero-training's Huber loss (delta 0.5) between the head's
plies / 20 and the chunks' plies_left / 20, weighted by --moves-left-weight
(positions from --data have no such target and add nothing). AdamW with linear warmup
then cosine decay to --min-lr-ratio over --steps. When pack-data replaces
DIR/train.cfpack (a repack of a growing data set), the run picks up the new
file at its next checkpoint.
"""

import argparse
import json
import math
import os
import sys
import time

# OpenMP threads that spin while waiting starve each other on a shared
# machine: with other jobs running, 2 spinning threads trained at 11-15
# positions/s where passive waiting gave 150-200 (4x64, 2 cores). Must be set
# before torch loads its OpenMP runtime; an explicit setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import deps  # noqa: E402

# Run as a script, main() parses the arguments before it needs these, so
# --help works without numpy/torch and a real run names the missing package
# (deps.py); imported as a module, a missing one raises here as usual.
with deps.deferred(__name__):
    import numpy as np
    import torch
    import torch.nn.functional as F
    from model import Chessformer
    import export
    import fast_attention
    import packed
    import chunks

MODEL_KEYS = ("layers", "d", "heads", "dff", "value_cv", "moves_left_cm", "pos_encoding")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", help="folder with train.cfpack and val.cfpack (pack-data --out)")
    p.add_argument("--chunks", action="append", metavar="DIR",
                   help="Lc0 V6 training chunks (`cformer selfplay --training DIR`, or Lc0's): "
                        "a folder of *.gz or a file; repeatable. Alone, the last tenth of the "
                        "records validates; with --data, val.cfpack does")
    p.add_argument("--chunk-share", type=float, default=0.5,
                   help="share of each batch drawn from --chunks when --data is given too")
    p.add_argument("--q-ratio", type=float, default=0.25,
                   help="chunk value target: (1 - Q) x game result + Q x the search's value")
    p.add_argument("--run", required=True, help="run folder (created; holds config, checkpoints, log)")
    p.add_argument("--init", metavar="WEIGHTS.safetensors",
                   help="start a new run from these weights (model.py names, float32: export.py "
                        "or `netconv export NET.pb.gz`), e.g. to continue the shipped network")
    p.add_argument("--resume", action="store_true",
                   help="continue RUN from its latest.pt with its saved config")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--d", type=int, default=64, help="embedding size")
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--dff", type=int, default=0, help="FFN width (default 2 d)")
    p.add_argument("--value-cv", type=int, default=32, help="value head channels per square")
    p.add_argument("--moves-left-cm", type=int, default=0,
                   help="add a moves-left head with this many channels per square (Lc0's "
                        "attention nets have 8), trained on the chunks' plies_left; 0 = none")
    p.add_argument("--pos-encoding", choices=("rpe", "lc0-map"), default="rpe",
                   help="rpe: Chessformer's relative-position attention and RMSNorm (the "
                        "default); lc0-map: the layout Lc0 runs itself (Lc0's fixed positional "
                        "table in a 176-wide embedding, no RPE, q/k/v biases, LayerNorm 1e-6)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--steps", type=int, default=20000, help="total optimizer steps")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--min-lr-ratio", type=float, default=0.05)
    p.add_argument("--warmup", type=int, default=500, help="warmup steps")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--clip", type=float, default=1.0, help="gradient norm clip (0 = none)")
    p.add_argument("--value-weight", type=float, default=1.5)
    p.add_argument("--moves-left-weight", type=float, default=1.0,
                   help="weight of the moves-left loss (with --moves-left-cm)")
    p.add_argument("--result-weight", type=float, default=0.2)
    p.add_argument("--best-weight", type=float, default=0.25)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reference-attention", action="store_true",
                   help="model.py's own attention code instead of fast_attention.py's "
                        "(same results, slower)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--log-every", type=int, default=50, help="steps between progress lines")
    p.add_argument("--val-every", type=int, default=500, help="steps between validations")
    p.add_argument("--val-positions", type=int, default=4096,
                   help="validation positions (the first N of val.cfpack)")
    p.add_argument("--checkpoint-minutes", type=float, default=5.0)
    p.add_argument("--keep-every", type=int, default=2000,
                   help="also keep step-N.pt every this many steps (0 = never)")
    return p.parse_args(argv)


def model_config(args):
    cfg = dict(layers=args.layers, d=args.d, heads=args.heads, dff=args.dff or 2 * args.d,
               value_cv=args.value_cv, pos_encoding=args.pos_encoding)
    if args.moves_left_cm:
        cfg["moves_left_cm"] = args.moves_left_cm
    return cfg


def lr_at(step, cfg):
    if step < cfg["warmup"]:
        return cfg["lr"] * (step + 1) / cfg["warmup"]
    t = min(1.0, (step - cfg["warmup"]) / max(1, cfg["steps"] - cfg["warmup"]))
    lo = cfg["lr"] * cfg["min_lr_ratio"]
    return lo + 0.5 * (cfg["lr"] - lo) * (1.0 + math.cos(math.pi * t))


def to_torch(batch):
    return {k: torch.from_numpy(v) for k, v in batch.items()}


def moves_left_loss(plies, target):
    """lczero-training's moves-left loss: Huber (delta 10 / 20) between the
    head's plies and the target's, both divided by 20, over the positions
    that have a target (NaN: none, as pack-data records); 0 when none has."""
    has = ~torch.isnan(target)
    if not has.any():
        return plies.sum() * 0.0
    return F.huber_loss(plies[has] / 20.0, target[has] / 20.0, delta=10.0 / 20.0)


def losses(model, b):
    """(policy loss, value loss, outputs, moves-left loss or None) for a
    decoded torch batch; the last only when the model has the head and the
    batch plies_left."""
    out = model(b["planes"])
    logits = out["policy"].masked_fill(~b["legal"], -1e9)
    logp = F.log_softmax(logits, dim=1)
    policy_loss = -(b["policy"] * logp).sum(1).mean()
    value_loss = -(b["wdl"] * F.log_softmax(out["wdl"], dim=1)).sum(1).mean()
    ml = (moves_left_loss(out["moves_left"], b["plies_left"])
          if "moves_left" in out and "plies_left" in b else None)
    return policy_loss, value_loss, logits, out["wdl"], ml


def decode_any(data, idx, cfg):
    """Records idx of a pack file or a chunk set, decoded to one batch."""
    if isinstance(data, chunks.ChunkSet):
        return chunks.decode([data.records[i] for i in idx], cfg.get("q_ratio", 0.25))
    b = packed.decode(data.records[idx], cfg["best_weight"], cfg["result_weight"])
    # pack-data records know no game length: no moves-left target
    b["plies_left"] = np.full(len(idx), np.nan, np.float32)
    return b


def sample_batch(train, step, cfg, extra=None):
    """Batch `step`'s records: drawn from a generator seeded by (seed, step),
    so a resumed run draws what the interrupted one would have; with extra
    (chunks mixed into pack data) --chunk-share of them come from it."""
    rng = np.random.default_rng([cfg["seed"], step])
    k = int(round(cfg["batch"] * cfg.get("chunk_share", 0))) if extra is not None else 0
    idx = np.sort(rng.integers(0, len(train), size=cfg["batch"] - k))
    b = decode_any(train, idx, cfg)
    if k:
        more = decode_any(extra, np.sort(rng.integers(0, len(extra), size=k)), cfg)
        b = {key: np.concatenate([b[key], more[key]]) for key in b}
    return b


def metric_sums(model, recs, best_weight, result_weight, chunk=512):
    """Over records recs (eval mode, no gradients): sums of policy loss, top-1
    agreement with Stockfish's best move, value loss (against the WDL target
    for result_weight) and WDL-argmax agreement with Stockfish's, and the
    count. validate() and evaluate.py share it."""
    # torch.no_grad() as a block, not a decorator: a decorator would need
    # torch when the module loads, before main() can report it missing.
    with torch.no_grad():
        was_training = model.training
        model.eval()
        tot = np.zeros(5)
        for start in range(0, len(recs), chunk):
            part = recs[start:start + chunk]
            b = to_torch(chunks.decode(part, result_weight) if isinstance(part, list)
                         else packed.decode(part, best_weight, result_weight))
            b.pop("plies_left", None)
            pl, vl, logits, wdl, _ = losses(model, b)
            k = len(part)
            tot += [pl.item() * k, (logits.argmax(1) == b["best"]).sum().item(), vl.item() * k,
                    (wdl.argmax(1) == b["sf_wdl"].argmax(1)).sum().item(), k]
        model.train(was_training)
        return tot


def validate(model, val, cfg):
    """Mean policy loss, top-1 agreement with Stockfish's best move, value
    loss (against the training WDL target) and WDL accuracy (argmax vs
    argmax of Stockfish's WDL) on the first --val-positions records."""
    n = min(len(val), cfg["val_positions"])
    weight = cfg.get("q_ratio", 0.25) if isinstance(val, chunks.ChunkSet) else cfg["result_weight"]
    pl, top1, vl, acc, _ = metric_sums(model, val.records[:n], cfg["best_weight"], weight)
    m = max(1, n)
    return dict(val_policy_loss=pl / m, val_top1=top1 / m, val_value_loss=vl / m,
                val_wdl_acc=acc / m, val_positions=n)


def save_checkpoint(path, model, opt, state):
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "state": state}, tmp)
    os.replace(tmp, path)


def fmt_duration(s):
    s = int(max(0, s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def load_init(model, path):
    """Copies a safetensors file's tensors into model; every name and shape
    must match (a different --layers/--d/--heads/--dff/--value-cv/--moves-left-cm is an error
    naming the first differences)."""
    try:
        tensors, _ = export.read_safetensors(path)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        sys.exit(f"train.py: --init {path}: {e}")
    sd = model.state_dict()
    missing = sorted(set(sd) - set(tensors))
    unknown = sorted(set(tensors) - set(sd))
    wrong = [f"{k} {tuple(tensors[k].shape)} vs {tuple(sd[k].shape)}"
             for k in sorted(set(sd) & set(tensors)) if tuple(tensors[k].shape) != tuple(sd[k].shape)]
    if missing or unknown or wrong:
        sys.exit(f"train.py: --init {path} does not fit this model (check --layers, --d, --heads, "
                 f"--dff, --value-cv, --moves-left-cm): missing {missing[:3]}, unknown {unknown[:3]}, "
                 f"shape {wrong[:3]}")
    model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in tensors.items()})


def open_data(cfg):
    """(train, val, chunks to mix in or None)."""
    if not cfg.get("data"):
        train, val = chunks.ChunkSet(cfg["chunks"]).split(0.1)
        return train, val, None
    extra = chunks.ChunkSet(cfg["chunks"]) if cfg.get("chunks") else None
    train = packed.PackFile(os.path.join(cfg["data"], "train.cfpack"))
    val = packed.PackFile(os.path.join(cfg["data"], "val.cfpack"))
    if len(train) == 0:
        raise packed.PackError(f"{train.path} holds no records")
    if extra is not None and extra.input_format != train.input_format:
        raise packed.PackError(f"--chunks are input format {extra.input_format}, "
                               f"{train.path} {train.input_format}")
    return train, val, extra


def main(argv=None):
    args = parse_args(argv)
    deps.check()  # numpy/torch missing: one line naming the package, exit 1
    os.makedirs(args.run, exist_ok=True)
    config_path = os.path.join(args.run, "config.json")
    latest = os.path.join(args.run, "latest.pt")
    if args.resume:
        if not os.path.exists(latest):
            sys.exit(f"train.py: --resume: no checkpoint {latest}")
        with open(config_path) as f:
            cfg = json.load(f)
        if args.data:
            cfg["data"] = args.data
    else:
        if not args.data and not args.chunks:
            sys.exit("train.py: --data DIR or --chunks DIR is required (or --resume)")
        if os.path.exists(latest):
            sys.exit(f"train.py: {latest} exists: use --resume, or another --run folder")
        cfg = {k: v for k, v in vars(args).items() if k not in ("resume", "run", "threads")}
        cfg["model"] = model_config(args)
    threads = args.threads
    torch.set_num_threads(threads)
    fast_attention.install(not args.reference_attention)
    torch.manual_seed(cfg["seed"])
    try:
        train, val, extra = open_data(cfg)
    except (OSError, packed.PackError, chunks.ChunkError) as e:
        sys.exit(f"train.py: {e}")
    cfg["input_format"] = train.input_format
    model = Chessformer(**cfg["model"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    state = {"step": 0, "positions": 0, "train_seconds": 0.0}
    if args.resume and args.init:
        sys.exit("train.py: --init starts a new run; --resume continues one (not both)")
    if args.init:
        load_init(model, args.init)
    if args.resume:
        ck = torch.load(latest, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        state = ck["state"]
    else:
        with open(config_path + ".tmp", "w") as f:
            json.dump(cfg, f, indent=2)
        os.replace(config_path + ".tmp", config_path)
    params = sum(p.numel() for p in model.parameters())
    if extra is not None:
        print(f"train.py: {len(extra)} chunk positions mixed in, {cfg['chunk_share']:g} of "
              f"each batch", flush=True)
    print(f"train.py: model {cfg['model']} ({params} parameters), input format "
          f"{cfg['input_format']}, {len(train)} train / {len(val)} val positions, "
          f"step {state['step']}/{cfg['steps']}, {threads} threads", flush=True)

    log = open(os.path.join(args.run, "log.jsonl"), "a")

    def emit(entry):
        log.write(json.dumps(entry) + "\n")
        log.flush()

    model.train()
    t_last_ck = time.monotonic()
    window_t, window_pos = time.monotonic(), 0
    acc = {"policy": 0.0, "value": 0.0, "moves_left": 0.0, "n": 0}
    while state["step"] < cfg["steps"]:
        step = state["step"]
        t0 = time.monotonic()
        lr = lr_at(step, cfg)
        for g in opt.param_groups:
            g["lr"] = lr
        b = to_torch(sample_batch(train, step, cfg, extra))
        pl, vl, _, _, ml = losses(model, b)
        loss = pl + cfg["value_weight"] * vl
        if ml is not None:
            loss = loss + cfg.get("moves_left_weight", 1.0) * ml
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if cfg["clip"]:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
        opt.step()
        if not math.isfinite(loss.item()):
            sys.exit(f"train.py: loss is {loss.item()} at step {step}; stopping (last "
                     f"checkpoint is intact)")
        state["step"] += 1
        state["positions"] += cfg["batch"]
        state["train_seconds"] += time.monotonic() - t0
        window_pos += cfg["batch"]
        acc["policy"] += pl.item()
        acc["value"] += vl.item()
        acc["moves_left"] += ml.item() if ml is not None else 0.0
        acc["n"] += 1
        step = state["step"]
        if step % cfg["log_every"] == 0 or step == cfg["steps"]:
            now = time.monotonic()
            rate = window_pos / max(1e-9, now - window_t)
            eta = (cfg["steps"] - step) * cfg["batch"] / max(1e-9, rate)
            entry = {"step": step, "positions": state["positions"], "lr": lr,
                     "policy_loss": acc["policy"] / acc["n"], "value_loss": acc["value"] / acc["n"],
                     "pos_per_s": rate, "time": time.time()}
            ml_text = ""
            if model.moves_left_cm:
                entry["moves_left_loss"] = acc["moves_left"] / acc["n"]
                ml_text = f"  moves left {entry['moves_left_loss']:.4f}"
            emit(entry)
            print(f"step {step}/{cfg['steps']}  pos {state['positions']}  policy "
                  f"{entry['policy_loss']:.4f}  value {entry['value_loss']:.4f}{ml_text}  "
                  f"lr {lr:.2e}  {rate:.0f} pos/s  ETA {fmt_duration(eta)}", flush=True)
            window_t, window_pos = now, 0
            acc = {"policy": 0.0, "value": 0.0, "moves_left": 0.0, "n": 0}
        if step % cfg["val_every"] == 0 or step == cfg["steps"]:
            if len(val):
                v = validate(model, val, cfg)
                emit({"step": step, "positions": state["positions"], "time": time.time()} | v)
                print(f"val step {step}: policy {v['val_policy_loss']:.4f}  top-1 "
                      f"{v['val_top1']:.3f}  value {v['val_value_loss']:.4f}  WDL acc "
                      f"{v['val_wdl_acc']:.3f}  ({v['val_positions']} positions)", flush=True)
            window_t = time.monotonic()  # validation time is not training throughput
        done = step == cfg["steps"]
        if done or time.monotonic() - t_last_ck >= 60 * cfg["checkpoint_minutes"]:
            save_checkpoint(latest, model, opt, state)
            t_last_ck = time.monotonic()
            print(f"checkpoint {latest} at step {step}", flush=True)
            if train.changed_on_disk():
                try:
                    train, val, extra = open_data(cfg)
                    print(f"data reloaded: {len(train)} train / {len(val)} val positions",
                          flush=True)
                except (OSError, packed.PackError, chunks.ChunkError) as e:
                    print(f"data reload failed, keeping the old data: {e}", flush=True)
        if cfg["keep_every"] and step % cfg["keep_every"] == 0:
            save_checkpoint(os.path.join(args.run, f"step-{step}.pt"), model, opt, state)
    log.close()
    print(f"train.py: done, {state['step']} steps, {state['positions']} positions, "
          f"{fmt_duration(state['train_seconds'])} training time", flush=True)


if __name__ == "__main__":
    main()
