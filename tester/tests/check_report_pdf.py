#!/usr/bin/env python3
"""Checks the PDFs `roce-tester report --pdf` and `--pdf-full` printed from
one run, with poppler's pdfinfo, pdftotext and pdftoppm, against the run's
results.json:
  - page counts: the print is short, the full print longer;
  - the cover: the DUT, the overall verdict, the counts, the fault profile,
    the run's start, the tester; no page number on it, "page N of M" on
    every other page; no navigation bar;
  - every verdict: each case run's row (ID, IP version, verdict), each
    rule of the run in the rule table, the broken rule with "fail";
  - the evidence of each failing case (expected and observed values, the
    rules, its agent exchanges), its ladder, and its section starting a
    page;
  - ladders: only the failing cases' in the print, every case's in the
    full print; packet and timing tables of more than 100 rows in part;
  - a chart page (the congestion rate chart of the informative case);
  - the cover and the chart page as PNG images in ARTIFACT-DIR, the cover
    with the red of FAIL and the chart page in colour (the print keeps
    the colours).
usage: check_report_pdf.py RESULTS.json PRINT.pdf FULL.pdf ARTIFACT-DIR
"""
import json
import os
import re
import subprocess
import sys

fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1
    return cond


def pages_of(pdf):
    out = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))


def text_of(pdf, mode="-layout"):
    """Per page: -layout keeps a table's row on a line; -raw keeps the
    order the page was written in, a cell's lines one after the other."""
    out = subprocess.run(["pdftotext", mode, pdf, "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\f")[:pages_of(pdf)]


def squeeze(s):
    return re.sub(r"\s+", "", s)


def ppm(pdf, page, res, out_base):
    """Page PAGE as a PPM image (width, height, RGB bytes)."""
    subprocess.run(["pdftoppm", "-r", str(res), "-f", str(page), "-l", str(page), "-singlefile", pdf, out_base],
                   check=True)
    data = open(out_base + ".ppm", "rb").read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
    w, h = int(m.group(1)), int(m.group(2))
    return w, h, data[m.end():]


def png(pdf, page, path_base):
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", str(page), "-l", str(page), "-singlefile", pdf, path_base],
                   check=True)
    return path_base + ".png"


def verdict_text(v):
    return v.replace("_", " ")


def main():
    results, brief_pdf, full_pdf, art = sys.argv[1:5]
    r = json.load(open(results))
    cases = r["cases"]
    dev = r["setup"]["dut"]["device"]
    dut = "%s (%s)" % (dev["name"], dev["fw_ver"]) if dev.get("fw_ver") else dev["name"]
    failing = [c for c in cases if c["verdict"] in ("fail", "error")]
    check(failing, "the run has a failing case (%d)" % len(failing))

    brief, full = text_of(brief_pdf), text_of(full_pdf)
    np_, nf = len(brief), len(full)
    print("print: %d pages, %d bytes; full print: %d pages, %d bytes"
          % (np_, os.path.getsize(brief_pdf), nf, os.path.getsize(full_pdf)))
    # Cover, a page or two per section, then each failing case (a failing
    # load step with its charts, ladder, steps and packets takes about 18);
    # the passing cases in full take many more.
    most = 10 + 15 * len(failing)
    check(6 <= np_ <= most, "the print has 6..%d pages (%d)" % (most, np_))
    check(nf >= np_ + 10, "the full print is longer (%d pages against %d)" % (nf, np_))
    # Nothing wider than the page: Chromium would shrink every page to fit
    # it. The heading "Ladder diagram" (14 px bold) is about 41 pt wide.
    widths = [float(m.group(2)) - float(m.group(1)) for pdf in (brief_pdf, full_pdf) for m in re.finditer(
        r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">Ladder</word>',
        subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True, check=True).stdout)]
    check(widths and min(widths) > 38 and max(widths) < 44,
          "no page shrunk to fit: every 'Ladder' heading 38..44 pt wide (%s)"
          % sorted(set(round(w, 1) for w in widths)))

    for name, pdf, text, n in (("print", brief_pdf, brief, np_), ("full print", full_pdf, full, nf)):
        cover = text[0]
        counts = {v: sum(c["verdict"] == v for c in cases) for v in
                  ("pass", "informative", "fail", "not_applicable", "error")}
        want = ["ROCEV2 CONFORMANCE TEST REPORT", dut, "FAIL", "seq-nak-wrong-psn", r["run"]["started"],
                "%d case run(s): %d pass, %d informative, %d fail, %d not applicable, %d error."
                % (len(cases), counts["pass"], counts["informative"], counts["fail"], counts["not_applicable"],
                   counts["error"]),
                "%s %s" % (r["tool"]["name"], r["tool"]["version"])]
        missing = [w for w in want if w not in cover]
        check(not missing, "%s: the cover gives the DUT, verdict, counts, fault, run and tester%s"
              % (name, " (missing: %s)" % missing if missing else ""))
        check("page 1 of" not in cover, "%s: no page number on the cover" % name)
        unnumbered = [i + 1 for i in range(1, n) if "page %d of %d" % (i + 1, n) not in text[i]]
        check(not unnumbered, "%s: 'page N of %d' on every page after the cover%s"
              % (name, n, " (not on %s)" % unnumbered[:10] if unnumbered else ""))
        # The text without the page footers (the page numbers are checked
        # above), so that what runs on over a page break reads on.
        whole = "\n".join(re.sub(r"^.*page \d+ of \d+\s*$", "", p, flags=re.M) for p in text)
        check("1. Device under test and set-up" in whole and "1 Device under test and set-up" not in whole,
              "%s: the sections, no navigation bar" % name)
        # Every case run's verdict in the case table (section 4 up to 5).
        sec4 = whole[whole.find("4. Case detail"):whole.find("5. About this report")]
        rows = [c for c in cases if not re.search(r"%s\s+IPv%d\s+%s\b" % (re.escape(c["id"]), c["ip_version"],
                                                                         re.escape(verdict_text(c["verdict"]))), sec4)]
        check(not rows, "%s: every case run's row with its verdict (%d)%s"
              % (name, len(cases), " (missing: %s)" % [(c["id"], c["ip_version"]) for c in rows] if rows else ""))
        # Every rule of the run in the rule table (those no case tested in one paragraph).
        flat = squeeze("".join(re.sub(r"^.*page \d+ of \d+\s*$", "", p, flags=re.M) for p in text_of(pdf, "-raw")))
        lost = [x["id"] for x in r["rules"] if squeeze(x["id"]) not in flat]
        check(not lost, "%s: every rule in the rule table (%d)%s" % (name, len(r["rules"]), " (missing: %s)" % lost[:5] if lost else ""))
        broken = [x["id"] for x in r["rules"] if x["verdict"] == "fail"]
        sec3 = whole[whole.find("3. Verdict per rule"):whole.find("4. Case detail")]
        # A row starts with the rule (or its start, when it wraps at a hyphen).
        starts = lambda b: "|".join(re.escape(b[:i + 1]) for i, ch in enumerate(b) if ch == "-") + "|" + re.escape(b)
        check(broken and all(re.search(r"^(%s)\s.*\bfail\b" % starts(b), sec3, re.M) for b in broken),
              "%s: the broken rule(s) %s with 'fail'" % (name, broken))
        # The failing cases: their section starts a page, with the evidence.
        for c in failing:
            head = re.compile(r"^\s*%s\s*%s IPv%d\b" % (verdict_text(c["verdict"]), re.escape(c["id"]), c["ip_version"]))
            starts = [i + 1 for i, p in enumerate(text) if head.search(p.lstrip("\n"))]
            check(starts, "%s: %s [IPv%d] starts a page (page %s)" % (name, c["id"], c["ip_version"], starts))
            calls = [a["request"] for st in c["steps"] for a in st.get("agent_calls", [])]
            gone = [q for q in calls if squeeze(q) not in flat]
            check(calls and not gone, "%s: %s [IPv%d]: its %d agent exchange(s)%s"
                  % (name, c["id"], c["ip_version"], len(calls), " (missing: %s)" % gone[:3] if gone else ""))
            for e in c.get("evidence", []):
                parts = [e["expected"], e["observed"]] + e["rules"]
                gone = [p for p in parts if squeeze(p) not in flat]
                check(not gone, "%s: %s [IPv%d] evidence of step %d: expected, observed, rules%s"
                      % (name, c["id"], c["ip_version"], e["step"], " (missing: %s)" % gone if gone else ""))
        # Long tables print their start and end (the capture and
        # results.json hold the rest): one elided row per long table.
        shown = failing if name == "print" else cases
        long_pk = sum(len(c.get("packets", [])) > 100 for c in shown)
        long_tm = sum(len(c.get("timings", [])) > 100 for c in shown)
        check(long_pk and whole.count("packets not listed here") >= long_pk,
              "%s: each of the %d packet table(s) of more than 100 rows printed in part (%d)"
              % (name, long_pk, whole.count("packets not listed here")))
        check(long_tm and whole.count("timings not printed") == long_tm,
              "%s: each of the %d timing table(s) of more than 100 rows printed in part (%d)"
              % (name, long_tm, whole.count("timings not printed")))
        ladders = whole.count("Ladder diagram")
        want_ladders = len(failing) if name == "print" else len(cases)
        check(ladders == want_ladders, "%s: %d ladder(s), one per %s (%d)"
              % (name, ladders, "failing case run" if name == "print" else "case run", want_ladders))

    check("holds every case in full" in full[0] and "--pdf-full" in brief[0],
          "the cover says what the print holds (and how to print everything)")
    # The chart page: the informative rate cut keeps its congestion chart.
    chart = [i + 1 for i, p in enumerate(brief) if "the DUT's send rate on QP" in p]
    check(chart, "the print holds the congestion chart (page %s)" % chart)

    os.makedirs(art, exist_ok=True)
    tmp = os.path.join(art, "tmp-page")
    w, h, px = ppm(brief_pdf, 1, 40, tmp)
    red = sum(1 for i in range(0, len(px), 3) if px[i] > 170 and px[i + 1] < 90 and px[i + 2] < 90)
    check(red > 200, "the cover shows FAIL in red (%d red pixels at 40 dpi)" % red)
    first = png(brief_pdf, 1, os.path.join(art, "first-page"))
    print("image: %s" % first)
    if chart:
        w, h, px = ppm(brief_pdf, chart[0], 40, tmp)
        colour = sum(1 for i in range(0, len(px), 3) if max(px[i:i + 3]) - min(px[i:i + 3]) > 60)
        check(colour > 300, "the chart page is in colour (%d coloured pixels at 40 dpi)" % colour)
        page = png(brief_pdf, chart[0], os.path.join(art, "chart-page"))
        print("image: %s" % page)
    os.remove(tmp + ".ppm")
    for f in ("first-page.png", "chart-page.png"):
        p = os.path.join(art, f)
        check(os.path.exists(p) and os.path.getsize(p) > 20000, "%s kept (%d bytes)"
              % (f, os.path.getsize(p) if os.path.exists(p) else 0))
    print("%d failure(s)" % fails if fails else "check_report_pdf: all ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
