"""Draws a train.py run's log.jsonl as an SVG training curve (no matplotlib).

    /usr/bin/python3 training/plot_curve.py RUN_DIR/log.jsonl -o curve.svg

Four panels against positions seen: policy loss (training, and validation
dots), value loss (likewise), validation top-1 agreement with Stockfish's
best move, and validation WDL accuracy.
"""

import argparse
import json
import sys

W, H = 480, 260  # one panel
PAD_L, PAD_R, PAD_T, PAD_B = 60, 15, 30, 40


def nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** int(f"{raw:e}".split("e")[1])
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
    start = step * int(lo / step)
    ticks, t = [], start
    while t <= hi + 1e-12:
        if t >= lo - 1e-12:
            ticks.append(round(t, 10))
        t += step
    return ticks


def fmt_count(v):
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


def panel(ox, oy, title, series):
    """series: list of (label, colour, [(x, y)], dots?) -> SVG elements."""
    pts = [p for _, _, s, _ in series for p in s]
    out = [f'<g transform="translate({ox},{oy})">',
           f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">{title}</text>']
    if not pts:
        out.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no data yet</text></g>')
        return out
    x0, x1 = 0.0, max(p[0] for p in pts) or 1.0
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    margin = 0.05 * (y1 - y0 or 1.0)
    y0, y1 = y0 - margin, y1 + margin
    pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B

    def sx(x):
        return PAD_L + pw * (x - x0) / (x1 - x0)

    def sy(y):
        return PAD_T + ph * (1 - (y - y0) / (y1 - y0))

    out.append(f'<rect x="{PAD_L}" y="{PAD_T}" width="{pw}" height="{ph}" fill="none" '
               f'stroke="#888"/>')
    for t in nice_ticks(y0, y1):
        out.append(f'<line x1="{PAD_L}" x2="{PAD_L + pw}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" '
                   f'stroke="#eee"/><text x="{PAD_L - 5}" y="{sy(t) + 4:.1f}" '
                   f'text-anchor="end" font-size="11">{t:g}</text>')
    for t in nice_ticks(x0, x1):
        out.append(f'<text x="{sx(t):.1f}" y="{PAD_T + ph + 15}" text-anchor="middle" '
                   f'font-size="11">{fmt_count(t)}</text>')
    out.append(f'<text x="{PAD_L + pw / 2}" y="{H - 5}" text-anchor="middle" '
               f'font-size="11">positions</text>')
    for i, (label, colour, s, dots) in enumerate(series):
        if dots:
            out += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"/>'
                    for x, y in s]
        elif s:
            d = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in s)
            out.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="1.2"/>')
        out.append(f'<text x="{PAD_L + pw - 5}" y="{PAD_T + 14 + 14 * i}" text-anchor="end" '
                   f'font-size="11" fill="{colour}">{label}</text>')
    out.append("</g>")
    return out


def smooth(points, k=10):
    """Moving average over k log lines, so the curve shows the trend."""
    out = []
    for i in range(len(points)):
        win = points[max(0, i - k + 1):i + 1]
        out.append((points[i][0], sum(p[1] for p in win) / len(win)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log", help="a run's log.jsonl")
    p.add_argument("-o", "--out", required=True, help="SVG file to write")
    p.add_argument("--title", default=None)
    args = p.parse_args(argv)
    train, val = [], []
    try:
        with open(args.log) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    e = json.loads(line)
                except ValueError:
                    print(f"plot_curve.py: {args.log}:{n}: not JSON, skipped", file=sys.stderr)
                    continue
                (val if "val_top1" in e else train if "policy_loss" in e else []).append(e)
    except OSError as e:
        sys.exit(f"plot_curve.py: {e}")

    def xy(rows, key):
        return [(r["positions"], r[key]) for r in rows if key in r]

    parts = panel(0, 0, "policy loss", [
        ("train", "#1f77b4", smooth(xy(train, "policy_loss")), False),
        ("validation", "#d62728", xy(val, "val_policy_loss"), True)])
    parts += panel(W, 0, "value loss (WDL cross-entropy)", [
        ("train", "#1f77b4", smooth(xy(train, "value_loss")), False),
        ("validation", "#d62728", xy(val, "val_value_loss"), True)])
    parts += panel(0, H, "validation top-1 = Stockfish best move", [
        ("top-1", "#2ca02c", xy(val, "val_top1"), False)])
    parts += panel(W, H, "validation WDL accuracy", [
        ("argmax = Stockfish's", "#9467bd", xy(val, "val_wdl_acc"), False)])
    title = args.title or args.log
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W}" height="{2 * H + 30}" '
           f'font-family="sans-serif">', '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{W}" y="20" text-anchor="middle" font-size="15">{title}</text>',
           '<g transform="translate(0,30)">'] + parts + ["</g>", "</svg>"]
    with open(args.out, "w") as f:
        f.write("\n".join(svg) + "\n")
    print(f"plot_curve.py: {args.out} ({len(train)} training and {len(val)} validation points)")


if __name__ == "__main__":
    main()
