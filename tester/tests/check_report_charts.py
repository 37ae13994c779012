#!/usr/bin/python3
"""Checks the charted series of a real run's results.json against the
run's own packet records and symbols, and the charts of its report.html
(each SVG parsed as XML) against the series.

usage: check_report_charts.py REPORT-DIR clean|ignore-cnp|compare
  clean       CONG-RATE-CUT-001, CONG-CNP-PACING-001, RC-RESP-LOAD-GBN-001,
              RC-REQ-TIMEOUT-001 and RC-REQ-RNR-WAIT-001 against a soft DUT
              with congestion management
  ignore-cnp  CONG-RATE-CUT-001 against a DUT that ignores CNPs
  compare     REPORT-DIR/compare.html of report --compare -o REPORT-DIR
              from the clean run to the ignore-cnp run
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = {"s": "http://www.w3.org/2000/svg"}
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
    return cond


def cases(r, cid):
    out = [c for c in r["cases"] if c["id"] == cid]
    check(len(out) == 2, "%s: %d records, want IPv4 and IPv6" % (cid, len(out)))
    return out


def sym(c, name):
    return int(str(c["symbols"][name]), 0)


def figures(html):
    """(class, caption, parsed SVG) of every chart figure."""
    out = []
    for m in re.finditer(r'<figure class="chart ([\w-]+)"[^>]*><figcaption[^>]*>(.*?)</figcaption>\n(<svg.*?</svg>)',
                         html, re.S):
        try:
            out.append((m.group(1), m.group(2), ET.fromstring(m.group(3))))
        except ET.ParseError as e:
            fails.append("a %s chart is not well-formed XML: %s" % (m.group(1), e))
    return out


def y_map(svg):
    """Value -> SVG y, from the y tick labels."""
    t = [(float(e.text), float(e.get("y")) - 4) for e in svg.findall(".//s:g[@class='yticks']/s:text", NS)]
    (v0, y0), (v1, y1) = t[0], t[-1]
    return lambda v: y0 + (v - v0) / (v1 - v0) * (y1 - y0)


def rate_cut(r, figs, fault):
    for c in cases(r, "CONG-RATE-CUT-001"):
        w = "CONG-RATE-CUT-001 IPv%d" % c["ip_version"]
        cg = c["series"].get("congestion")
        if not check(cg is not None, "%s: no congestion series" % w):
            continue
        rate = [x for x in cg["rate"] if x["qp"] == "q"]
        if not check(len(rate) == 1, "%s: no rate series for QP q" % w):
            continue
        rate = rate[0]
        dut_writes = [p for p in c["packets"] if p["direction"] == "rx" and p.get("qp") == "q" and "WRITE" in p["summary"]]
        check(sum(rate["packets"]) == len(dut_writes), "%s: %d packets binned, the record has %d DUT WRITE packets" %
              (w, sum(rate["packets"]), len(dut_writes)))
        check(sum(rate["bytes"]) == sum(p["length"] for p in dut_writes), "%s: bytes binned differ from the packets'" % w)
        cnps = [p for p in c["packets"] if p["direction"] == "tx" and p["summary"].startswith("CNP")]
        marks = [m for m in cg["cnp"] if m["from"] == "tester"]
        check(len(cnps) == 50 and len(marks) == 50, "%s: %d CNPs sent, %d marked; want 50" % (w, len(cnps), len(marks)))
        ms = {m.get("rate_symbol"): m for m in c["series"]["measurements"]}
        for name in ("before", "during"):
            check(name in ms and ms[name]["rate"] == sym(c, name), "%s: measurement of $%s is not the symbol's" % (w, name))
        ck = [k for k in c["series"]["checks"] if k["symbol"] == "during"]
        if check(len(ck) == 1, "%s: no check on $during" % w):
            k = ck[0]
            check(k["cmp"] == "<" and abs(k["bound"] - sym(c, "before") / 2) <= 1 and k["must"],
                  "%s: check on $during: %s" % (w, k))
            check(k["holds"] == (fault is None), "%s: the check holds=%s, the DUT %s" %
                  (w, k["holds"], "ignores CNPs" if fault else "reacts"))
        label = "CONG-RATE-CUT-001 [IPv%d]" % c["ip_version"]
        f = [svg for cls, cap, svg in figs if cls == "congestion-rate" and cap.startswith(label)]
        if not check(len(f) == 1, "%s: %d rate charts in the report" % (w, len(f))):
            continue
        svg = f[0]
        check("(ms)" in svg.find(".//s:text[@class='xlabel']", NS).text and
              "(Mb/s)" in svg.find(".//s:text[@class='ylabel']", NS).text, "%s: axis labels without units" % w)
        row = [g for g in svg.findall(".//s:g", NS) if g.get("data-label") == "CNP to DUT"]
        check(row and len(row[0].findall("s:line[@class='tickmark']", NS)) == 50, "%s: the CNP row has not 50 marks" % w)
        my = y_map(svg)
        segs = svg.findall(".//s:g[@class='hseg s4']/s:line", NS)
        want = sorted(my(ms[n]["rate"] * 8 / 1e6) for n in ("before", "during") if n in ms)
        got = sorted(float(s.get("y1")) for s in segs)
        check(len(got) == len(want) and all(abs(a - b) < 0.6 for a, b in zip(got, want)),
              "%s: measured rates drawn at y %s, want %s" % (w, got, want))
        bound = svg.findall(".//s:g[@class='hseg %s']/s:line" % ("bad" if fault else "good"), NS)
        check(len(bound) == 1, "%s: the check's bound is not drawn as %s" % (w, "failing" if fault else "holding"))


def pacing(r, figs):
    for c in cases(r, "CONG-CNP-PACING-001"):
        w = "CONG-CNP-PACING-001 IPv%d" % c["ip_version"]
        cg = c["series"].get("congestion") or {}
        dut_cnps = [p for p in c["packets"] if p["direction"] == "rx" and p["summary"].startswith("CNP")]
        check(cg.get("ce_count") == 200, "%s: %s CE-marked packets in the series, want 200" % (w, cg.get("ce_count")))
        causes = cg.get("cnp_causes", [])
        check(len(causes) == len(dut_cnps) >= 1, "%s: %d causes for %d CNPs" % (w, len(causes), len(dut_cnps)))
        check(1 <= sum(k["ce_packets"] for k in causes) <= 200, "%s: the causes cover %d CE-marked packets" %
              (w, sum(k["ce_packets"] for k in causes)))
        label = "CONG-CNP-PACING-001 [IPv%d]" % c["ip_version"]
        f = [svg for cls, cap, svg in figs if cls == "congestion-np" and cap.startswith(label)]
        if check(len(f) == 1, "%s: %d notification point charts" % (w, len(f))):
            pts = f[0].findall(".//s:g[@class='mark s1']", NS)
            check(len(pts) >= len(causes), "%s: %d CNPs drawn, %d in the series" % (w, len(pts), len(causes)))


def load(r, figs):
    for c in cases(r, "RC-RESP-LOAD-GBN-001"):
        w = "RC-RESP-LOAD-GBN-001 IPv%d" % c["ip_version"]
        ls = c["series"]["load"]
        if not check(len(ls) == 1, "%s: %d load series" % (w, len(ls))):
            continue
        l = ls[0]
        rec = [s["load"] for s in c["steps"] if "load" in s][0]
        pc = l["latency_percentiles"]
        check(pc["samples"] == rec["completed"] == 2000, "%s: %d latency samples, %d completed" %
              (w, pc["samples"], rec["completed"]))
        check(sum(l["sent_requests"]) == rec["request_packets"], "%s: %d requests binned, the engine sent %d" %
              (w, sum(l["sent_requests"]), rec["request_packets"]))
        check(0 < pc["p50"] <= pc["p90"] <= pc["p99"] <= pc["p999"] <= pc["max"], "%s: percentiles out of order %s" % (w, pc))
        label = "RC-RESP-LOAD-GBN-001 [IPv%d]" % c["ip_version"]
        for cls in ("load-throughput", "load-latency"):
            f = [svg for k, cap, svg in figs if k == cls and cap.startswith(label)]
            if check(len(f) == 1, "%s: %d %s charts" % (w, len(f), cls)):
                check(len(f[0].findall(".//s:g[@class='series s1']/s:polyline", NS)) >= 1, "%s: %s draws nothing" % (w, cls))


def timers(r, html, figs):
    for c in cases(r, "RC-REQ-TIMEOUT-001"):
        w = "RC-REQ-TIMEOUT-001 IPv%d" % c["ip_version"]
        t = c["series"]["timers"]
        if not check(len(t) == 1 and t[0]["what"] == "retransmission", "%s: timers %s" % (w, t)):
            continue
        sends = sorted(p["ts_ns"] for p in c["packets"] if p["direction"] == "rx" and "SEND Only" in p["summary"])
        check(len(sends) == 2 and sends[1] - sends[0] == t[0]["value_ns"], "%s: timer %d ns, the DUT's SENDs at %s" %
              (w, t[0]["value_ns"], sends))
        check(60e6 <= t[0]["value_ns"] <= t[0]["window_max_ns"] == 290e6, "%s: %s" % (w, t[0]))
    for c in cases(r, "RC-REQ-RNR-WAIT-001"):
        w = "RC-REQ-RNR-WAIT-001 IPv%d" % c["ip_version"]
        t = {x.get("symbol"): x for x in c["series"]["timers"]}
        for s in ("wait1", "wait2"):
            ok = s in t and t[s]["value_ns"] == sym(c, s) and any(
                k["must"] and k["cmp"] == ">=" and k["bound"] == 19200000 for k in t[s]["checks"])
            check(ok, "%s: $%s not charted with its bound of 19.2 ms" % (w, s))
    sec = re.search(r'<section id="timers".*?</section>', html, re.S)
    if check(sec is not None, "report.html has no timers section"):
        rows = [e.text for _, _, svg in figures(sec.group(0)) for e in svg.findall(".//s:text[@class='row']", NS)]
        for ipv in (4, 6):
            check(any(x.startswith("IPv%d $rto, retransmission 1" % ipv) for x in rows), "no IPv%d timeout row in %s" % (ipv, rows))
            check(any(x.startswith("IPv%d $wait1" % ipv) for x in rows), "no IPv%d $wait1 row" % ipv)


def compare(d):
    """compare.html of report --compare -o D CLEAN IGNORE-CNP."""
    html = open(d + "/compare.html").read()
    figs = figures(html)
    rules = [svg for cls, _, svg in figs if cls == "compare-rules"]
    if check(len(rules) == 1, "compare.html: %d rule charts" % len(rules)):
        rows = [e.text for e in rules[0].findall(".//s:text[@class='row']", NS)]
        check("CA17-45" in rows, "compare.html: CA17-45 (broken by ignore-cnp) not among the rules changed: %s" % rows)
        cats = [e.text for e in rules[0].findall(".//s:text[@class='cat']", NS)]
        check(cats[0] == "fail" and cats[-1] == "pass", "compare.html: verdict axis %s" % cats)
        bad = rules[0].findall(".//s:g[@class='mark bad']", NS)
        check(len(bad) >= 1, "compare.html: no arrow towards fail")
    vals = [svg for cls, _, svg in figs if cls == "compare-values"]
    if check(len(vals) == 1, "compare.html: %d value charts" % len(vals)):
        rows = [e.text for e in vals[0].findall(".//s:text[@class='row']", NS)]
        for ipv in (4, 6):
            check("CONG-RATE-CUT-001 [IPv%d] $during (line 25)" % ipv in rows,
                  "compare.html: the rate during the CNPs (up without a reaction) did not move: %s" % rows)


def main():
    d, mode = sys.argv[1], sys.argv[2]
    if mode == "compare":
        compare(d)
        for m in fails:
            print("check_report_charts: FAIL: " + m)
        if not fails:
            print("check_report_charts: ok: %s/compare.html" % d)
        return 1 if fails else 0
    r = json.load(open(d + "/results.json"))
    html = open(d + "/report.html").read()
    figs = figures(html)
    for c in r["cases"]:
        check("series" in c, "%s IPv%d: no series" % (c["id"], c["ip_version"]))
    # A Charts heading always has a chart under it (a congestion case whose
    # series holds nothing to draw, as CNP-INVALID's, gets none).
    for block in html.split("<h4>Charts</h4>")[1:]:
        check("<svg" in block.split("</div>", 1)[0], "a Charts heading without a chart")
    if mode == "clean":
        rate_cut(r, figs, None)
        pacing(r, figs)
        load(r, figs)
        timers(r, html, figs)
    else:
        rate_cut(r, figs, mode)
    for m in fails:
        print("check_report_charts: FAIL: " + m)
    if not fails:
        print("check_report_charts: ok: %s (%d charts)" % (d, len(figs)))
    return 1 if fails else 0


sys.exit(main())
