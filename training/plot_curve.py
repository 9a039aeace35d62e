"""Draws a train.py run's training curve as an SVG, with Debian's
python3-matplotlib.

    /usr/bin/python3 training/plot_curve.py RUN_DIR/log.jsonl -o curve.svg [--title T]
    /usr/bin/python3 training/plot_curve.py --data CURVE.json -o curve.svg

Four panels against positions seen: policy loss (training, smoothed, and
validation dots), value loss (likewise), validation top-1 agreement with
Stockfish's best move, and validation WDL accuracy. The title is --title,
else the run folder's name (never a path of the machine that trained it);
each panel's legend sits above its plot area, clear of the data.

--data draws a curve-data JSON instead of a log (the format
training/curve_from_svg.py writes; data/training-curves/ holds those of the
shipped networks' rounds, whose logs are not kept).
"""

import argparse
import json
import os
import sys

COLOURS = {"train": "#1f77b4", "validation": "#d62728", "top1": "#2ca02c", "wdl": "#9467bd"}


def smooth(points, k=10):
    """Moving average over k log lines, so the curve shows the trend."""
    out = []
    for i in range(len(points)):
        win = points[max(0, i - k + 1):i + 1]
        out.append([points[i][0], sum(p[1] for p in win) / len(win)])
    return out


def panels_from_log(path):
    """The four panels of a log.jsonl, and the counts of its lines."""
    train, val = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                e = json.loads(line)
            except ValueError:
                print(f"plot_curve.py: {path}:{n}: not JSON, skipped", file=sys.stderr)
                continue
            (val if "val_top1" in e else train if "policy_loss" in e else []).append(e)

    def xy(rows, key):
        return [[r["positions"], r[key]] for r in rows if key in r]

    def s(label, colour, points, dots):
        return {"label": label, "colour": colour, "points": points, "dots": dots}

    panels = [
        {"title": "policy loss", "series": [
            s("train", COLOURS["train"], smooth(xy(train, "policy_loss")), False),
            s("validation", COLOURS["validation"], xy(val, "val_policy_loss"), True)]},
        {"title": "value loss (WDL cross-entropy)", "series": [
            s("train", COLOURS["train"], smooth(xy(train, "value_loss")), False),
            s("validation", COLOURS["validation"], xy(val, "val_value_loss"), True)]},
        {"title": "validation top-1 = Stockfish best move", "series": [
            s("top-1", COLOURS["top1"], xy(val, "val_top1"), False)]},
        {"title": "validation WDL accuracy", "series": [
            s("argmax = Stockfish's", COLOURS["wdl"], xy(val, "val_wdl_acc"), False)]},
    ]
    return panels, len(train), len(val)


def count_label(v, _pos=None):
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


def draw(title, panels, out):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, checkable
    matplotlib.rcParams["svg.hashsalt"] = "cformer-training-curve"  # the same file every run
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, axes = plt.subplots(2, 2, figsize=(10, 6.6))
    fig.suptitle(title, fontsize=12)
    for ax, pn in zip(axes.flat, panels):
        drawn = False
        for s in pn["series"]:
            if not s["points"]:
                continue
            xs, ys = zip(*s["points"])
            if s["dots"]:
                ax.plot(xs, ys, "o", color=s["colour"], markersize=4, label=s["label"])
            else:
                # Few points (validation runs): mark each one on the line.
                ax.plot(xs, ys, "-", color=s["colour"], linewidth=1.2, label=s["label"],
                        marker="o" if len(xs) < 20 else None, markersize=3)
            drawn = True
        ax.set_title(pn["title"], fontsize=10, loc="left", pad=18)
        ax.set_xlabel("positions", fontsize=9)
        ax.set_xlim(left=0)
        ax.xaxis.set_major_formatter(FuncFormatter(count_label))
        ax.tick_params(labelsize=8)
        ax.grid(True, color="#eeeeee")
        if drawn:
            # Above the plot area, right of the panel title: never over a curve.
            ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, fontsize=8,
                      frameon=False, borderaxespad=0.2)
        else:
            ax.text(0.5, 0.5, "no data yet", ha="center", transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log", nargs="?", help="a run's log.jsonl")
    p.add_argument("--data", help="a curve-data JSON instead of a log")
    p.add_argument("-o", "--out", required=True, help="SVG file to write")
    p.add_argument("--title", default=None)
    args = p.parse_args(argv)
    if (args.log is None) == (args.data is None):
        p.error("give a log.jsonl or --data CURVE.json")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit("plot_curve.py: needs Debian's python3-matplotlib (scripts/install-deps.sh)")
    try:
        if args.data:
            with open(args.data) as f:
                data = json.load(f)
            panels, title = data["panels"], args.title or data["title"]
            note = f"{sum(len(s['points']) for pn in panels for s in pn['series'])} points"
        else:
            panels, ntrain, nval = panels_from_log(args.log)
            run = os.path.basename(os.path.dirname(os.path.abspath(args.log)))
            title = args.title or f"{run}: training curve"
            note = f"{ntrain} training and {nval} validation points"
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot_curve.py: {e}")
    draw(title, panels, args.out)
    print(f"plot_curve.py: {args.out} ({note})")


if __name__ == "__main__":
    main()
