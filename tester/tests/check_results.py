#!/usr/bin/python3
"""Checks a roce-tester results.json against docs/results-schema.md and
against its capture: every frame number it cites exists, every frame of
the capture carries a comment naming its case, and the verdicts are the
expected ones.

usage: check_results.py RESULTS.json CAPTURE.pcapng [--verdict V] [--complete|--interrupted]
"""
import json
import re
import subprocess
import sys


def fail(msg):
    print("check_results: FAIL:", msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        fail("usage")
    res_path, cap_path = args[0], args[1]
    want_verdicts = None
    state = None
    i = 2
    while i < len(args):
        if args[i] == "--verdict":
            want_verdicts = args[i + 1].split(",")
            i += 2
        else:
            state = args[i]
            i += 1
    with open(res_path) as f:
        r = json.load(f)
    for key in ("schema", "schema_version", "tool", "run", "setup", "summary", "cases", "rules"):
        if key not in r:
            fail("top-level member %s missing" % key)
    if r["schema"] != "roce-tester-results" or r["schema_version"] != 1:
        fail("wrong schema %s %s" % (r["schema"], r["schema_version"]))
    run = r["run"]
    if state == "--complete" and not (run["complete"] and not run["interrupted"] and run["finished"]):
        fail("run not marked complete: %s" % run)
    if state == "--interrupted" and not (run["interrupted"] and not run["complete"]):
        fail("run not marked interrupted: %s" % run)
    setup = r["setup"]
    for key in ("interface", "agent", "dut"):
        if key not in setup:
            fail("setup.%s missing" % key)
    # Every frame of the capture, with its comment.
    out = subprocess.run(["tshark", "-r", cap_path, "-T", "fields", "-e", "frame.number", "-e", "frame.comment"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        fail("tshark cannot read %s: %s" % (cap_path, out.stderr))
    frames = {}
    for line in out.stdout.splitlines():
        num, _, comment = line.partition("\t")
        frames[int(num)] = comment
    total_packets = 0
    counts = {}
    for c in r["cases"]:
        for key in ("id", "title", "file", "ip_version", "rules", "requires", "verdict", "reason", "steps",
                    "packets", "evidence", "findings", "timings", "failed_rules", "failed_step", "events",
                    "engine", "symbols", "duration_ns"):
            if key not in c:
                fail("case %s lacks %s" % (c.get("id"), key))
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
        if c["verdict"] not in ("pass", "fail", "not_applicable", "error", "informative"):
            fail("case %s: verdict %s" % (c["id"], c["verdict"]))
        if c["verdict"] != "pass" and not c["reason"]:
            fail("case %s: %s without a reason" % (c["id"], c["verdict"]))
        informative = [f for f in c["findings"] if f.get("source") in ("case", "counter check")]
        if (c["verdict"] == "informative") != (bool(informative) and c["verdict"] in ("pass", "informative")):
            fail("case %s: verdict %s with %d informative findings of its own" % (c["id"], c["verdict"], len(informative)))
        if any(f["severity"] != "info" or not f["message"] for f in informative):
            fail("case %s: an informative finding without severity info or a message" % c["id"])
        if c["verdict"] == "fail" and not c["failed_rules"]:
            fail("case %s failed without naming a rule" % c["id"])
        label = "%s [IPv%d]" % (c["id"], c["ip_version"])
        for p in c["packets"]:
            total_packets += 1
            fr = p["frame"]
            if fr is None or fr not in frames:
                fail("case %s packet %s cites frame %s, not in the capture" % (c["id"], p["index"], fr))
            if not frames[fr].startswith(label):
                fail("frame %d's comment '%s' does not name %s" % (fr, frames[fr], label))
            for key in ("ts_ns", "direction", "summary", "step"):
                if key not in p:
                    fail("packet record lacks %s" % key)
        # A frame a message names is a frame of the capture, and of this
        # case: the number a reader looks up (not the packet's place in
        # the case).
        texts = [c["reason"]] + [f["message"] for f in c["findings"]]
        for fr in (int(m) for t in texts for m in re.findall(r"\bframe (\d+)", t)):
            if fr not in frames or not frames[fr].startswith(label):
                fail("case %s names frame %d in a message, which is not one of its frames in the capture ('%s')"
                     % (label, fr, frames.get(fr, "no such frame")))
        for s in c["steps"]:
            for fr in s.get("frames", []):
                if fr not in frames:
                    fail("case %s step %d cites frame %d, not in the capture" % (c["id"], s["index"], fr))
        for e in c["evidence"]:
            for key in ("rules", "step", "line", "statement", "expected", "observed", "frames"):
                if key not in e:
                    fail("evidence lacks %s" % key)
            for fr in e["frames"]:
                if fr not in frames:
                    fail("evidence cites frame %d, not in the capture" % fr)
        if c["verdict"] == "fail" and not c["evidence"] and not any(
                f["severity"] == "error" for f in c["findings"]):
            fail("case %s failed without evidence or an error finding" % c["id"])
    if total_packets != len(frames):
        fail("the capture holds %d frames, the results list %d packets" % (len(frames), total_packets))
    if want_verdicts is not None:
        got = [c["verdict"] for c in r["cases"]]
        if got != want_verdicts:
            fail("verdicts %s, expected %s" % (got, want_verdicts))
    s = r["summary"]
    for v in ("pass", "fail", "not_applicable", "error", "informative"):
        if s[v] != counts.get(v, 0):
            fail("summary.%s is %d, the cases say %d" % (v, s[v], counts.get(v, 0)))
    ids = {x["id"] for x in r["rules"]}
    if len(ids) != len(r["rules"]) or not all("verdict" in x for x in r["rules"]):
        fail("rule records malformed")
    print("check_results: ok: %d cases, %d frames" % (len(r["cases"]), len(frames)))


main()
