#!/usr/bin/python3
"""Holds the charts test_report_charts wrote to the data written beside
them: each SVG parses as XML (xml.etree), has its title and description,
its plot area, tick labels at round values placed linearly, its axis
labels; every point of every line, segment, band and mark sits where the
data says on the axes the tick labels give; series differ in dash pattern
or marker as well as colour; rows are labelled and placed top down.

usage: check_charts.py DIR
"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

NS = {"s": "http://www.w3.org/2000/svg"}
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


def close(a, b, tol=0.11):
    return abs(a - b) <= tol


def load(d, name):
    tree = ET.parse(os.path.join(d, name + ".svg"))  # raises on XML that is not well formed
    return tree.getroot(), json.load(open(os.path.join(d, name + ".json")))


def plot_rect(root):
    r = root.find(".//s:rect[@class='plot']", NS)
    check(r is not None, "no plot area")
    return tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))


def ticks(root, cls):
    g = root.find(".//s:g[@class='%s']" % cls, NS)
    check(g is not None, "no %s" % cls)
    out = []
    for t in g.findall("s:text", NS):
        out.append((float(t.text), float(t.get("x")), float(t.get("y"))))
    return out


def axis_maps(root, data):
    """The mapping from data to SVG the tick labels state, checked linear
    and against the plot area."""
    px, py, pw, ph = plot_rect(root)
    xt = ticks(root, "xticks")
    yt = ticks(root, "yticks")
    check(len(xt) >= 3 and len(yt) >= 3, "too few ticks: %d x, %d y" % (len(xt), len(yt)))
    check(close(xt[0][0], data["x"][0]) and close(xt[-1][0], data["x"][1]),
          "x ticks run %g..%g, want %s" % (xt[0][0], xt[-1][0], data["x"]))
    check(close(yt[0][0], data["y"][0]) and close(yt[-1][0], data["y"][1]),
          "y ticks run %g..%g, want %s" % (yt[0][0], yt[-1][0], data["y"]))
    steps = {round(b[0] - a[0], 9) for a, b in zip(xt, xt[1:])}
    check(len(steps) == 1, "x ticks unevenly spaced: %s" % sorted(steps))
    step = steps.pop() if steps else 1
    mant = step / 10 ** math.floor(math.log10(step))
    check(any(close(mant, m, 1e-6) for m in (1, 2, 5)), "x tick step %g is not 1, 2 or 5 times a power of ten" % step)
    x0, x1 = xt[0][0], xt[-1][0]
    y0, y1 = yt[0][0], yt[-1][0]

    def mx(v):
        return px + (v - x0) / (x1 - x0) * pw

    def my(v):
        return py + ph - (v - y0) / (y1 - y0) * ph
    for v, x, _ in xt:
        check(close(x, mx(v)), "x tick %g at %g, want %g" % (v, x, mx(v)))
    for v, _, y in yt:
        check(close(y - 4, my(v)), "y tick %g at %g, want %g" % (v, y - 4, my(v)))
    return mx, my


def points(el):
    return [tuple(float(v) for v in p.split(",")) for p in el.get("points").split()]


def time_chart(d):
    root, data = load(d, "time")
    check(root.tag == "{http://www.w3.org/2000/svg}svg", "root is %s" % root.tag)
    check(root.get("viewBox") == "0 0 720 %s" % root.get("height"), "viewBox %s" % root.get("viewBox"))
    check(root.find("s:title", NS).text == data["title"], "title %r" % root.find("s:title", NS).text)
    check("<markup>" in root.find("s:desc", NS).text, "description lost its text")
    mx, my = axis_maps(root, data)
    check(root.find(".//s:text[@class='xlabel']", NS).text == data["xlabel"], "x axis label")
    check(root.find(".//s:text[@class='ylabel']", NS).text == data["ylabel"], "y axis label")
    dashes = {}
    for name, ln in data["lines"].items():
        g = root.find(".//s:g[@class='series %s']" % name, NS)
        check(g is not None, "no series %s" % name)
        if g is None:
            continue
        polys = g.findall("s:polyline", NS)
        dashes[name] = polys[0].get("stroke-dasharray") if polys else None
        want, run = [], []
        for i, (x, y) in enumerate(zip(ln["x"], ln["y"])):
            if y is None:
                if run:
                    want.append(run)
                run = []
                continue
            run.append((mx(x), my(y)))
            if ln["step"]:
                nx = ln["x"][i + 1] if i + 1 < len(ln["x"]) else x + (x - ln["x"][i - 1])
                run.append((mx(nx), my(y)))
        if run:
            want.append(run)
        got = [points(p) for p in polys]
        check(len(got) == len(want), "series %s: %d polylines, want %d (a missing value breaks it)" %
              (name, len(got), len(want)))
        for gp, wp in zip(got, want):
            check(len(gp) == len(wp) and all(close(a[0], b[0]) and close(a[1], b[1]) for a, b in zip(gp, wp)),
                  "series %s: points %s, want %s" % (name, gp, wp))
    check(dashes.get("s1") != dashes.get("s2"), "two series with the same dash pattern: %s" % dashes)
    marks = root.findall(".//s:g[@class='series s2']/s:g", NS)
    check(len(marks) == 3 and all(m.find("s:path", NS) is not None for m in marks),
          "series s2: want 3 triangle markers, got %d" % len(marks))
    for name, (x0, x1, y) in data["hseg"].items():
        ln = root.find(".//s:g[@class='hseg %s']/s:line" % name, NS)
        check(ln is not None and close(float(ln.get("x1")), mx(x0)) and close(float(ln.get("x2")), mx(x1)) and
              close(float(ln.get("y1")), my(y)), "segment %s misplaced" % name)
    for name, (x0, x1, y0, y1) in data["band"].items():
        r = root.find(".//s:rect[@class='band %s']" % name, NS)
        ok = r is not None and close(float(r.get("x")), mx(x0)) and close(float(r.get("width")), mx(x1) - mx(x0)) \
            and close(float(r.get("y")), my(y1)) and close(float(r.get("height")), my(y0) - my(y1))
        check(ok, "band %s misplaced" % name)
    rows = root.findall(".//s:g[@data-label]", NS)
    for label, xs in data["marks"].items():
        g = [r for r in rows if r.get("data-label") == label and "marks" in r.get("class")]
        check(len(g) == 1, "marks row %r: %d found" % (label, len(g)))
        if g:
            got = [float(t.get("x1")) for t in g[0].findall("s:line[@class='tickmark']", NS)]
            check(len(got) == len(xs) and all(close(a, mx(b)) for a, b in zip(got, xs)),
                  "marks %r at %s, want %s" % (label, got, [mx(x) for x in xs]))
            check(g[0].find("s:text", NS).text == label, "marks row %r has no name" % label)
    legend = [g.find("s:text", NS).text for g in root.findall(".//s:g", NS) if "legend" in (g.get("class") or "")]
    check(legend == data["legend"], "legend %s, want %s" % (legend, data["legend"]))


def rows_chart(d):
    root, data = load(d, "rows")
    px, py, pw, ph = plot_rect(root)
    check(close(px, data["left"]), "plot starts at %g, want %g" % (px, data["left"]))
    xt = ticks(root, "xticks")
    check(close(xt[0][0], data["x"][0]) and close(xt[-1][0], data["x"][1]), "x ticks %s" % [t[0] for t in xt])

    def mx(v):
        return px + (v - xt[0][0]) / (xt[-1][0] - xt[0][0]) * pw
    labels = root.findall(".//s:text[@class='row']", NS)
    check([t.text for t in labels] == data["rows"], "row labels %s" % [t.text for t in labels])
    n = len(data["rows"])
    centres = [py + (i + 0.5) / n * ph for i in range(n)]
    for t, c in zip(labels, centres):
        check(close(float(t.get("y")) - 4, c), "row %r at %s, want %g" % (t.text, t.get("y"), c))
    bands = root.findall(".//s:rect[@class='band good']", NS)
    check(len(bands) == n, "%d bands, want %d" % (len(bands), n))
    for b, c in zip(bands, centres):
        h = float(b.get("height"))
        check(h > 0 and close(float(b.get("y")) + h / 2, c) and close(float(b.get("x")), mx(data["band"][0])),
              "band at y %s height %s, want centred on %g" % (b.get("y"), b.get("height"), c))
    inside = root.findall(".//s:g[@class='mark s1']/s:circle", NS)
    outside = root.findall(".//s:g[@class='mark bad']/s:path", NS)
    check(len(inside) == 2 and len(outside) == 1, "%d points inside, %d outside; want 2 and 1" % (len(inside), len(outside)))
    for p, v, c in zip(inside, data["values"], centres):
        check(close(float(p.get("cx")), mx(v)) and close(float(p.get("cy")), c), "point %g misplaced" % v)


def main():
    d = sys.argv[1]
    for f in (time_chart, rows_chart):
        try:
            f(d)
        except ET.ParseError as e:
            fails.append("%s: not well-formed XML: %s" % (f.__name__, e))
    for m in fails:
        print("check_charts: FAIL: " + m)
    if not fails:
        print("check_charts: ok")
    return 1 if fails else 0


sys.exit(main())
