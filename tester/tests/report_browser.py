#!/usr/bin/python3
"""Checks roce-tester's HTML reports in headless Chromium, through
chromedriver's WebDriver protocol (plain HTTP on loopback, standard library
only).

For each report it loads report.html from disk and checks, against the
results.json it was built from:
  - nothing is fetched: no resource entries, no src attributes, no links out
    other than the capture beside it;
  - the sections come in the lab order (set-up, issues, rules, cases) on the
    rendered page, and the overall verdict is the one the results give;
  - every rule has a row with its verdict, every case record an article with
    its verdict, every failing rule an issue;
  - every in-page link lands on an element, every frame of every case has
    its row;
  - each failed case's ladder is rendered with a size, holds one failing-step
    band, and every frame its evidence cites is an arrow drawn inside that
    band (or, with no frame, a dashed "expected" arrow is); clicking a frame
    number in the ladder scrolls to that frame's row and highlights it;
  - laid out for print at A4's printable width, every verdict badge of the
    rule and case tables stays inside its cell;
and keeps screenshots (the top of the report, each failed case's ladder)
in the artifacts directory, checked for size and for not being blank; the
ladder screenshot must show the red of the highlighted failure.

usage: report_browser.py ARTIFACT-DIR REPORT-DIR [REPORT-DIR...]
Exit status 0 all checks passed, 1 a check failed, 77 Chromium or
chromedriver is not installed (skipped).
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1"]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
failures = []


def check(cond, what):
    if cond:
        print("ok:", what)
    else:
        print("FAIL:", what)
        failures.append(what)
    return cond


class WebDriver:
    def __init__(self, profile):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = open(os.path.join(profile, "chromedriver.log"), "w")
        self.proc = subprocess.Popen(["chromedriver", "--port=%d" % self.port, "--allowed-ips=127.0.0.1"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 20
        while True:
            try:
                self.call("GET", "/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("chromedriver did not start")
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": shutil.which("chromium"),
                                   "args": CHROMIUM_FLAGS + ["--user-data-dir=" + os.path.join(profile, "profile")]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]
        self.call("POST", "/session/%s/window/rect" % self.session, {"width": 1280, "height": 1400})

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("WebDriver %s %s: %s" % (method, path, e.read().decode(errors="replace")))

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.session, path), body)

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def close(self):
        try:
            self.s("DELETE", "")
        except Exception:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def png_pixels(data):
    """Decodes an 8-bit RGB or RGBA PNG: (width, height, rows of bytes, bytes per pixel)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "PNG type %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows, bpp


def image_stats(png):
    w, h, rows, bpp = png_pixels(png)
    colours, reds, dark = set(), 0, 0
    total = 0
    for y in range(0, h, 2):
        row = rows[y]
        for x in range(0, w, 2):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            colours.add((r >> 3, g >> 3, b >> 3))
            total += 1
            if r > 150 and g < 90 and b < 90:
                reds += 1
            if r + g + b < 300:
                dark += 1
    return {"width": w, "height": h, "colours": len(colours), "red": reds / total, "dark": dark / total}


def xml_text(s):
    """What a report shows of a string: characters XML cannot hold become U+FFFD."""
    ok = lambda c: c in "\t\n\r" or 0x20 <= ord(c) <= 0xD7FF or 0xE000 <= ord(c) <= 0xFFFD or ord(c) >= 0x10000
    return "".join(c if ok(c) else "\ufffd" for c in s)


def save_png(path, b64):
    png = base64.b64decode(b64)
    with open(path, "wb") as f:
        f.write(png)
    return png


# Runs in the page: everything the DOM and the layout say.
PAGE_FACTS = r"""
const facts = {};
const top = id => { const e = document.getElementById(id); return e ? e.getBoundingClientRect().top + window.scrollY : null; };
facts.order = ["setup", "issues", "rules", "cases"].map(top);
facts.overall = (document.getElementById("overall") || {}).textContent;
facts.resources = performance.getEntriesByType("resource").map(e => e.name);
facts.src = Array.from(document.querySelectorAll("[src]")).map(e => e.getAttribute("src"));
facts.stylesheets = document.querySelectorAll("link").length;
facts.hrefs = Array.from(document.querySelectorAll("[href]")).map(e => e.getAttribute("href"));
facts.dangling = facts.hrefs.filter(h => h.startsWith("#") && h.length > 1 && !document.getElementById(h.slice(1)));
facts.rules = {};
document.querySelectorAll("#rule-table tr[data-verdict]").forEach(r => {
  facts.rules[r.id.slice(5)] = [r.dataset.verdict, r.querySelector(".v").textContent]; });
facts.cases = Array.from(document.querySelectorAll("article.case")).map(a => a.dataset.verdict);
facts.issues = Array.from(document.querySelectorAll("#issues .issue[data-rule]")).map(i => i.dataset.rule);
facts.frames = Array.from(document.querySelectorAll("tr[id^=f]")).map(r => [r.id.slice(1), r.textContent]);
facts.elided = Array.from(document.querySelectorAll("table.packets tr.elided")).map(r => [+r.dataset.first, +r.dataset.last]);
facts.dut = (document.getElementById("dut-table") || {}).textContent || "";
facts.ladders = {};
document.querySelectorAll("article.case").forEach(a => {
  const svg = a.querySelector("svg.ladder");
  if (!svg) return;
  const box = svg.getBoundingClientRect();
  const bands = Array.from(svg.querySelectorAll("rect.fail-step"));
  const within = (g, band) => { const r = g.getBoundingClientRect(), b = band.getBoundingClientRect();
    return r.top >= b.top - 1 && r.bottom <= b.bottom + 1; };
  const ev = Array.from(svg.querySelectorAll("g.pkt.evidence"));
  const missing = Array.from(svg.querySelectorAll("g.pkt.missing"));
  facts.ladders[a.id] = {
    width: box.width, height: box.height, bands: bands.length,
    bandFill: bands.length ? getComputedStyle(bands[0]).fill : null,
    evidence: ev.map(g => [g.dataset.frame, bands.length ? within(g, bands[0]) : false,
                           getComputedStyle(g.querySelector("line")).stroke]),
    missing: missing.map(g => bands.length ? within(g, bands[0]) : false),
    arrows: svg.querySelectorAll("g.pkt").length,
  };
});
return facts;
"""


# Runs in the page laid out for print: every verdict badge of the rule and
# case tables stays inside its cell (a fixed-layout column narrower than
# "not applicable" let it run over the case name beside it).
PRINT_BADGES = r"""
const out = [];
let n = 0;
document.querySelectorAll("#rule-table td .v, #case-table td .v").forEach(b => {
  const cell = b.closest("td"), r = b.getBoundingClientRect(), c = cell.getBoundingClientRect();
  if (!r.width) return;
  n++;
  if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.bottom > c.bottom + 0.5)
    out.push([cell.closest("tr").id || cell.closest("table").id, b.textContent, Math.round(r.right - c.right)]);
});
return [n, out];
"""
# A4 less the report's @page margins of 13 mm on either side, in CSS px.
PRINT_WIDTH_PX = round((210 - 2 * 13) / 25.4 * 96)


def check_print_layout(wd, tag):
    cdp = lambda cmd, params: wd.s("POST", "/goog/cdp/execute", {"cmd": cmd, "params": params})
    cdp("Emulation.setDeviceMetricsOverride", {"width": PRINT_WIDTH_PX, "height": 1000, "deviceScaleFactor": 1,
                                                 "mobile": False})
    cdp("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        n, over = wd.js(PRINT_BADGES)
    finally:
        cdp("Emulation.setEmulatedMedia", {"media": ""})
        cdp("Emulation.clearDeviceMetricsOverride", {})
    check(n > 0 and not over, "%s: printed, each of the %d verdict badges of the rule and case tables stays in its "
          "cell (%s)" % (tag, n, over[:4]))


def check_report(wd, report_dir, artifacts, tag):
    html = os.path.abspath(os.path.join(report_dir, "report.html"))
    with open(os.path.join(report_dir, "results.json")) as f:
        res = json.load(f)
    with open(html, encoding="utf-8") as f:
        text = f.read()
    print("== %s (%d bytes, %d case records)" % (html, len(text), len(res["cases"])))
    stripped = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    outside = [w for w in ("http://", "https://", "ftp://", "file:") if w in stripped]
    check(not outside, "%s: no URL in the file other than the SVG namespace" % tag)
    wd.s("POST", "/url", {"url": "file://" + html})
    f = wd.js(PAGE_FACTS)
    capture = res["run"]["capture"]
    check(f["resources"] == [] and f["src"] == [] and f["stylesheets"] == 0,
          "%s: self-contained: nothing fetched (%s)" % (tag, f["resources"] + f["src"]))
    check(all(h.startswith("#") or h == capture for h in f["hrefs"]),
          "%s: links stay in the page or name the capture" % tag)
    check(not f["dangling"], "%s: every in-page link lands (%s)" % (tag, f["dangling"][:5]))
    o = f["order"]
    check(None not in o and o == sorted(o), "%s: sections in lab order set-up < issues < rules < cases %s" % (tag, o))
    counts = {v: sum(c["verdict"] == v for c in res["cases"]) for v in ("pass", "fail", "not_applicable", "error")}
    want = ("NO RESULTS" if not res["cases"] else "FAIL" if counts["fail"] else
            "INCOMPLETE" if counts["error"] or not res["run"]["complete"] else "PASS")
    check(f["overall"] == want, "%s: overall verdict %s (page says %s)" % (tag, want, f["overall"]))
    dev = ((res.get("setup") or {}).get("dut") or {}).get("device") or {}
    if dev:
        check(xml_text(dev["name"]) in f["dut"] and str(dev.get("fw_ver", "")) in f["dut"],
              "%s: the DUT table names the device" % tag)
    rules = {r["id"]: r["verdict"] for r in res["rules"]}
    check(set(f["rules"]) == set(rules) and all(f["rules"][k][0] == v for k, v in rules.items()),
          "%s: one row per rule (%d) with its verdict" % (tag, len(rules)))
    check(all(f["rules"][k][1] == v.replace("_", " ") for k, v in rules.items()), "%s: verdict badges read right" % tag)
    check(f["cases"] == [c["verdict"] for c in res["cases"]], "%s: one article per case record, with its verdict" % tag)
    broken = [r for r, v in rules.items() if v == "fail"]
    check(all(r in f["issues"] for r in broken) and len(f["issues"]) >= len(broken),
          "%s: an issue for every broken rule %s" % (tag, broken))
    rows = dict(f["frames"])
    elided = lambda fr: any(a <= fr <= b for a, b in f["elided"])
    missing_rows = [(c["id"], p["frame"]) for c in res["cases"] for p in c["packets"]
                    if p["frame"] and not elided(p["frame"]) and
                    (str(p["frame"]) not in rows or p["summary"] not in rows[str(p["frame"])])]
    check(not missing_rows, "%s: every frame has its row naming the packet, or a row saying it is left out (%s)" %
          (tag, missing_rows[:3]))
    cited = {fr for c in res["cases"] for e in c["evidence"] for fr in e["frames"] if fr} | \
            {x["frame"] for c in res["cases"] for x in c["findings"] if x.get("frame")}
    check(all(str(fr) in rows for fr in cited), "%s: every frame of the evidence and findings has its row" % tag)

    for i, c in enumerate(res["cases"]):
        if c["verdict"] != "fail":
            continue
        cid = "case-%d" % i
        lad = f["ladders"].get(cid)
        label = "%s %s [IPv%d]" % (tag, c["id"], c["ip_version"])
        if not check(lad is not None, "%s: ladder drawn" % label):
            continue
        check(lad["width"] > 600 and lad["height"] > 100, "%s: ladder rendered %dx%d" % (label, lad["width"], lad["height"]))
        ev_frames = sorted({fr for e in c["evidence"] for fr in e["frames"] if fr})
        if c["evidence"]:
            check(lad["bands"] == 1 and lad["bandFill"] == "rgb(253, 228, 228)",
                  "%s: one failing-step band, tinted red (%s)" % (label, lad["bandFill"]))
            drawn = sorted(int(x[0]) for x in lad["evidence"])
            check(drawn == ev_frames, "%s: evidence frames %s drawn as red arrows (%s)" % (label, ev_frames, drawn))
            check(all(x[1] and x[2] == "rgb(198, 40, 40)" for x in lad["evidence"]),
                  "%s: the evidence arrows lie inside the band, in red" % label)
            if not ev_frames:
                check(lad["missing"] and all(lad["missing"]),
                      "%s: the packet that never came is a dashed arrow inside the band" % label)
        # The case as a reader sees it: its head, evidence and ladder.
        art = wd.find("#%s" % cid)
        wd.js("arguments[0].scrollIntoView({block:'start'})", {ELEMENT: art})
        save_png(os.path.join(artifacts, "%s-case-%s-ipv%d.png" % (tag, c["id"], c["ip_version"])),
                 wd.s("GET", "/screenshot"))
        # The screenshot of the ladder (or of its failing step, when the
        # ladder is taller than the window), with the failure in red.
        eid = wd.find("#%s svg.ladder" % cid)
        name = os.path.join(artifacts, "%s-ladder-%s-ipv%d.png" % (tag, c["id"], c["ip_version"]))
        if lad["height"] < 1200:
            wd.js("arguments[0].scrollIntoView({block:'start'})", {ELEMENT: eid})
            png = save_png(name, wd.s("GET", "/element/%s/screenshot" % eid))
        else:
            wd.js("arguments[0].querySelector('rect.fail-step').scrollIntoView({block:'center'})", {ELEMENT: eid})
            png = save_png(name, wd.s("GET", "/screenshot"))
        st = image_stats(png)
        check(st["width"] > 600 and st["height"] > 100 and st["colours"] > 8 and st["dark"] > 0.005 and st["red"] > 0.001,
              "%s: ladder screenshot %dx%d, %d colours, %.1f%% dark, %.2f%% red" %
              (label, st["width"], st["height"], st["colours"], 100 * st["dark"], 100 * st["red"]))
        if ev_frames:
            # A click on the frame number in the ladder lands on its row.
            link = wd.find('#%s g.pkt.evidence[data-frame="%d"] a' % (cid, ev_frames[0]))
            wd.s("POST", "/element/%s/click" % link, {})
            for _ in range(20):  # the scroll to a fragment may land a moment after the click
                got = wd.js("const r=document.getElementById(location.hash.slice(1)); if(!r) return null;"
                            "const b=r.getBoundingClientRect(); return [location.hash,"
                            "getComputedStyle(r.cells[0]).backgroundColor, b.top >= -2 && b.bottom <= innerHeight + 2];")
                if got and got[2]:
                    break
                time.sleep(0.1)
            check(got == ["#f%d" % ev_frames[0], "rgb(255, 241, 184)", True],
                  "%s: clicking frame #%d in the ladder shows its highlighted row (%s)" % (label, ev_frames[0], got))
    check_print_layout(wd, tag)
    wd.js("window.scrollTo(0,0)")
    png = save_png(os.path.join(artifacts, "%s-top.png" % tag), wd.s("GET", "/screenshot"))
    st = image_stats(png)
    check(st["width"] == 1280 and st["height"] > 600 and st["colours"] > 12 and st["dark"] > 0.02,
          "%s: page screenshot %dx%d, %d colours, %.1f%% dark" % (tag, st["width"], st["height"], st["colours"],
                                                                  100 * st["dark"]))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        print("report_browser: SKIP: chromium and chromedriver are not installed (Debian packages chromium, chromium-driver)")
        return 77
    artifacts = sys.argv[1]
    os.makedirs(artifacts, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="roce-chromium-")
    wd = None
    try:
        wd = WebDriver(profile)
        for n, d in enumerate(sys.argv[2:]):
            check_report(wd, d, artifacts, os.path.basename(os.path.normpath(d)) or "report%d" % n)
    finally:
        if wd:
            wd.close()
        shutil.rmtree(profile, ignore_errors=True)
    print("report_browser: screenshots in %s" % artifacts)
    if failures:
        print("report_browser: %d check(s) failed" % len(failures))
        return 1
    print("report_browser: all passed")
    return 0


sys.exit(main())
