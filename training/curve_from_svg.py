"""Recovers a training curve's data from an SVG that plot_curve.py drew
before it used matplotlib, for runs whose log.jsonl is gone.

    /usr/bin/python3 training/curve_from_svg.py OLD.svg -o CURVE.json [--title T]

That drawer placed every point at a computed pixel and labelled the axes'
ticks with their values, so each panel's pixel-to-value map is a straight
line through its tick labels (least squares; ticks were written to 0.1 px,
so a value comes back within about 0.1 px of its axis range: a few parts
in 10,000). The output is the curve-data JSON that plot_curve.py --data
draws: {"title", "panels": [{"title", "series": [{"label", "colour",
"dots", "points": [[positions, value], ...]}]}]}.
"""

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
X_AXIS_Y = 235.0  # the y of plot_curve.py's x tick labels in a panel


def count_value(label):
    """'200k' -> 200000.0, '1.5M' -> 1500000.0, '0' -> 0.0"""
    mult = {"k": 1e3, "M": 1e6}.get(label[-1:], 1.0)
    return float(label[:-1] if mult != 1.0 else label) * mult


def fit(pairs):
    """The straight line value = a + b * pixel through (pixel, value) pairs."""
    n = len(pairs)
    if n < 2:
        raise ValueError("fewer than two tick labels on an axis")
    mx = sum(p for p, _ in pairs) / n
    mv = sum(v for _, v in pairs) / n
    b = sum((p - mx) * (v - mv) for p, v in pairs) / sum((p - mx) ** 2 for p, _ in pairs)
    return lambda px: mv + b * (px - mx)


def recover_panel(g):
    children = list(g)
    title = children[0].text
    yticks, xticks, series = [], [], []
    for i, el in enumerate(children):
        tag = el.tag.replace(NS, "")
        if tag == "line":
            yticks.append((float(el.get("y1")), float(children[i + 1].text)))
        elif tag == "text" and float(el.get("y")) == X_AXIS_Y:
            xticks.append((float(el.get("x")), count_value(el.text)))
        elif tag in ("polyline", "circle"):
            if tag == "polyline":
                pts = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
                colour = el.get("stroke")
            else:
                pts = [(float(el.get("cx")), float(el.get("cy")))]
                colour = el.get("fill")
            if series and series[-1]["colour"] == colour and series[-1]["dots"] == (tag == "circle"):
                series[-1]["px"] += pts
            else:
                series.append({"colour": colour, "dots": tag == "circle", "px": pts})
        elif tag == "text" and el.get("fill"):
            for s in series:
                if s["colour"] == el.get("fill") and "label" not in s:
                    s["label"] = el.text
    fx, fy = fit(xticks), fit(yticks)
    out = []
    for s in series:
        out.append({"label": s.get("label", ""), "colour": s["colour"], "dots": s["dots"],
                    "points": [[round(fx(x)), round(fy(y), 5)] for x, y in s.pop("px")]})
    return {"title": title, "series": out}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("svg", help="an SVG drawn by the old plot_curve.py")
    p.add_argument("-o", "--out", required=True, help="curve-data JSON to write")
    p.add_argument("--title", required=True, help="the chart's title (the old one may be a path)")
    args = p.parse_args(argv)
    try:
        root = ET.parse(args.svg).getroot()
    except (OSError, ET.ParseError) as e:
        sys.exit(f"curve_from_svg.py: {args.svg}: {e}")
    outer = [g for g in root if g.tag == NS + "g"][0]
    panels = [recover_panel(g) for g in outer if g.tag == NS + "g"]
    if len(panels) != 4 or not all(re.match(r"\w", pn["title"] or "") for pn in panels):
        sys.exit(f"curve_from_svg.py: {args.svg}: not a plot_curve.py chart of four panels")
    with open(args.out, "w") as f:
        json.dump({"title": args.title, "panels": panels}, f, indent=1)
        f.write("\n")
    n = sum(len(s["points"]) for pn in panels for s in pn["series"])
    print(f"curve_from_svg.py: {args.out} ({n} points)")


if __name__ == "__main__":
    main()
