#!/usr/bin/python3
"""What newer_verbs.sh saw on each kernel with FLUSH, against what
docs/rxe-results.md says of it.

usage: newer_verbs_check.py RUN-DIR...
  each RUN-DIR holds the run's lint.txt (roce-tester lint of its capture),
  results.json and kernel ("kernel RELEASE").

- rxe's own FLUSH on the wire (tester/tests/services/placement-dut.case):
  its ICRC covers the headers twice (R13, libroce's headers-twice); its
  ATOMIC WRITE's ICRC is right.
- The suite's requester cases (conformance-cases/placement/*-requester*):
  each FLUSH case fails under CA17-22 alone, R13 as the sender, its
  completion not reached (the tester drops the FLUSH, as every receiver
  must); the ATOMIC WRITE case passes.
"""
import json
import os
import re
import sys

HEADERS_TWICE = "the headers were covered again after the BTH as payload"
REQUESTER_CASES = 4


def wire(d, kernel, fail):
    frames = {}  # frame number -> (description, [findings])
    cur = None
    for line in open(os.path.join(d, "lint.txt")).read().splitlines():
        m = re.match(r"  frame (\d+): (.*)", line)
        if m:
            cur = int(m.group(1))
            frames[cur] = (m.group(2), [])
        elif cur is not None and re.match(r"    (error|warning|note|info) ", line):
            frames[cur][1].append(line.strip())
    flush = {n: f for n, f in frames.items() if " FLUSH " in f[0] + " "}
    aw = {n: f for n, f in frames.items() if " ATOMIC WRITE " in f[0] + " "}
    bad = {n: f for n, f in flush.items() if any("CA17-22" in x for x in f[1])}
    if not aw:
        fail.append(f"{kernel}: no ATOMIC WRITE from the DUT was captured")
    for n, (desc, fs) in aw.items():
        if any("CA17-22" in x for x in fs):
            fail.append(f"{kernel}: frame {n} ({desc}): ATOMIC WRITE with a wrong ICRC: {fs}")
    if not bad:
        fail.append(f"no FLUSH with a wrong ICRC on {kernel}: rxe's own FLUSH is now right, and R13 of "
                    "docs/rxe-results.md (the headers covered twice) no longer holds there; update it")
    for n, (desc, fs) in bad.items():
        icrc = [x for x in fs if "CA17-22" in x]
        if not all(f"(likely cause: {HEADERS_TWICE})" in x for x in icrc):
            fail.append(f"{kernel}: frame {n} ({desc}): the wrong ICRC is not (only) the headers covered twice: {icrc}")
    print(f"newer_verbs: {kernel}: {len(flush)} FLUSH frames, {len(bad)} from rxe with its ICRC over the headers "
          f"twice (headers-twice), {len(aw)} ATOMIC WRITE with a right ICRC")


def requester_cases(d, kernel, fail):
    runs = [c for c in json.load(open(os.path.join(d, "results.json")))["cases"] if "-REQ-" in c["id"]]
    ids = sorted({c["id"] for c in runs})
    if len(ids) != REQUESTER_CASES:
        fail.append(f"{kernel}: the requester cases that ran: {ids}, expected the {REQUESTER_CASES} of "
                    "conformance-cases/placement")
    for c in runs:
        what = f"{kernel}: {c['id']} IPv{c['ip_version']}: {c['verdict']} {c['failed_rules']} ({c['reason']})"
        print("newer_verbs: " + what)
        if c["id"].startswith("FLUSH-"):
            unreached = [f for f in c["findings"] if f["severity"] == "info" and "not reached" in f["message"]]
            if not (c["verdict"] == "fail" and c["failed_rules"] == ["CA17-22"] and HEADERS_TWICE in c["reason"]
                    and unreached):
                fail.append(what + ": expected fail under CA17-22 alone (R13, headers-twice), the completion not "
                            "reached; if rxe changed, update docs/rxe-results.md")
        elif c["verdict"] != "pass":
            fail.append(what + ": expected pass")


def main():
    fail = []
    for d in sys.argv[1:]:
        kernel = open(os.path.join(d, "kernel")).read().split()[1]
        wire(d, kernel, fail)
        requester_cases(d, kernel, fail)
    for f in fail:
        print("FAIL:", f)
    return 1 if fail or not sys.argv[1:] else 0


if __name__ == "__main__":
    sys.exit(main())
