#!/usr/bin/python3
"""Checks the records of a features.sh run over tester/tests/cases/features
(or features-rcm): each feature case's verdict and what its record must
show, for the cases the run holds.

usage: features_check.py RESULTS.json RUN-LOG EXIT-STATUS
"""
import json
import sys

r = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
rc = int(sys.argv[3])
cases = {c["id"]: c for c in r["cases"]}
rules = {x["id"]: x for x in r["rules"]}
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def case_findings(c):
    return [f for f in c["findings"] if f["source"] == "case"]


def steps(c):
    return {s["index"]: s for s in c["steps"]}


expected_fail = {"FEATURE-INFORM-002", "FEATURE-CHECK-002", "FEATURE-ROLES-002", "FEATURE-ROLES-003",
                 "FEATURE-ANSWERS-002"}
check(rc == (1 if expected_fail & set(cases) else 0), "exit status %d" % rc)
n_fail = len(expected_fail & set(cases))
check(r["summary"]["fail"] == n_fail and ("%d fail" % n_fail) in log, "fail count %s" % r["summary"])

if "FEATURE-INFORM-001" in cases:
    c = cases["FEATURE-INFORM-001"]
    inf = case_findings(c)
    check(c["verdict"] == "informative", "inform: verdict informative (%s)" % c["verdict"])
    check(len(inf) == 1 and inf[0]["rule"] == "A17.9.3-CNP-PACING" and inf[0]["severity"] == "info"
          and inf[0]["message"] == "a note with a value (msn = 1)", "inform: the finding shows the value: %s" % inf)
    check(c["reason"].startswith("a note with a value"), "inform: the reason says what was informative")
    check(rules["A17.9.3-CNP-PACING"]["verdict"] == "informative", "inform: the finding's rule is informative")
    check(rules["IBA9.7-ACKREQ"]["verdict"] == "fail", "IBA9.7-ACKREQ: failed by FEATURE-INFORM-002")
    n_inf = 3 + ("FEATURE-ROLES-001" in cases) + ("FEATURE-ANSWERS-001" in cases)
    check(r["summary"]["informative"] == n_inf and ("%d informative" % n_inf) in log, "informative count: %s" % r["summary"])

if "FEATURE-INFORM-002" in cases:
    c = cases["FEATURE-INFORM-002"]
    check(c["verdict"] == "fail" and c["failed_step"] == 6, "inform then a failed expectation: fail (%s)" % c["verdict"])

if "FEATURE-CHECK-001" in cases:
    c = cases["FEATURE-CHECK-001"]
    inf = case_findings(c)
    st = steps(c)
    check(c["verdict"] == "informative", "check: a miss with 'else inform' is informative (%s)" % c["verdict"])
    check(st[6]["detail"].startswith("holds: $rtt = ") and st[6]["detail"].endswith(", expected < 200.000 ms"),
          "check: the detail of a check that holds: %s" % st[6]["detail"])
    check(st[7]["status"] == "ok", "check: products, quotients and durations")
    check(len(inf) == 1 and inf[0]["rule"] == "IBA9.7-ACKREQ" and inf[0]["message"].startswith(
        "the ACK came sooner than 10 s ($rtt = ") and inf[0]["message"].endswith("expected > 10.000 s)"),
        "check: the informative finding shows the measured delay: %s" % inf)
    check("rtt" in c["symbols"], "check: the bound delay is in the symbols")

if "FEATURE-CHECK-002" in cases:
    c = cases["FEATURE-CHECK-002"]
    ev = c["evidence"][0] if c["evidence"] else {}
    check(c["verdict"] == "fail" and ev.get("expected") == "$rtt > 10.000 s" and ev.get("observed", "").startswith("$rtt = "),
          "check: a check that does not hold fails with both values: %s" % ev)

if "FEATURE-MEASURE-001" in cases:
    c = cases["FEATURE-MEASURE-001"]
    st = steps(c)
    tx = [p for p in c["packets"] if p["direction"] == "tx"]
    psns = [int(p["summary"].split("PSN=")[1].split()[0]) for p in tx]
    check(c["verdict"] == "informative", "measure: the case ran through (%s: %s)" % (c["verdict"], c["reason"]))
    check(len(tx) == 5 and all(b - a == 1 for a, b in zip(psns, psns[1:])), "repeat: 5 copies, consecutive PSNs %s" % psns)
    gaps = [(b["ts_ns"] - a["ts_ns"]) / 1e6 for a, b in zip(tx, tx[1:])]
    check(abs((tx[-1]["ts_ns"] - tx[0]["ts_ns"]) / 1e6 - 8) < 4, "every=2ms: 5 copies over ~8 ms (gaps %s ms)" % gaps)
    check(st[4]["detail"].startswith("5 packet(s), 310 bytes in 200.000 ms"), "measure detail: %s" % st[4]["detail"])
    check(all("measured by step 4" in p.get("annotation", "") for p in c["packets"] if p["direction"] == "rx"),
          "measured packets are annotated as taken")

if "FEATURE-CNP-STREAM-001" in cases:
    c = cases["FEATURE-CNP-STREAM-001"]
    rx = [p["summary"] for p in c["packets"] if p["direction"] == "rx" and "QP=" in p["summary"]]
    tx = [p for p in c["packets"] if p["direction"] == "tx"]
    check(c["verdict"] == "pass", "CNP stream: pass (%s: %s)" % (c["verdict"], c["reason"]))
    check(len(rx) == 2 and rx[0].startswith("CNP ") and rx[1].startswith("RC Acknowledge"),
          "CNP stream: the DUT sent its CNP first, the ACK was expected first: %s" % rx)
    qpn = c["symbols"]["q.qpn"]
    qpn = int(qpn, 0) if isinstance(qpn, str) else qpn
    check(tx[-1]["summary"] == "CNP QP=0x%06x" % qpn, "an injected CNP to the DUT's QP: %s" % tx[-1]["summary"])

if "FEATURE-ROLES-001" in cases:
    c = cases["FEATURE-ROLES-001"]
    inf = case_findings(c)
    st = steps(c)
    check(c["verdict"] == "informative" and c["failed_step"] is None and not c["failed_rules"],
          "roles: a miss no rule binds is informative (%s: %s)" % (c["verdict"], c["reason"]))
    msg = inf[0]["message"] if inf else ""
    check(len(inf) == 1 and inf[0]["rule"] == "CA17-7" and msg.startswith("step 5 (line 14) expect nothing q within 50ms: expected ")
          and "observed RC Acknowledge" in msg and
          msg.endswith("(not judged: CA17-7 binds the sender (must); the DUT is the receiver, responder here)"),
          "roles: the finding names the observation and why it is not judged: %s" % msg)
    check(st[5]["status"] == "ok" and st[5]["detail"].startswith("does not hold, informative (not judged:"),
          "roles: the step is recorded as not judged: %s" % st[5])
    check(6 not in st, "roles: the case ends where it reports")

if "FEATURE-ROLES-002" in cases:
    c = cases["FEATURE-ROLES-002"]
    check(c["verdict"] == "fail" and c["failed_rules"] == ["CA17-24"] and c["evidence"][0]["rules"] == ["CA17-24"],
          "roles: a miss a rule binds fails, against that rule only (%s %s)" % (c["verdict"], c["failed_rules"]))

if "FEATURE-ROLES-003" in cases:
    c = cases["FEATURE-ROLES-003"]
    check(c["verdict"] == "fail" and c["failed_rules"] == ["CA17-7"],
          "roles: 'as sender' makes the sender's rule judge the step (%s %s)" % (c["verdict"], c["failed_rules"]))

if "FEATURE-ANSWERS-001" in cases:
    c = cases["FEATURE-ANSWERS-001"]
    st = steps(c)
    inf = case_findings(c)
    check(c["verdict"] == "informative", "answers: ran through, informative (%s: %s)" % (c["verdict"], c["reason"]))
    check("AETH NAK Remote Access Error (one of NAK_INVALID or NAK_ACCESS)" in st[4].get("observed", ""),
          "answers: the AETH kind seen among those allowed is reported: %s" % st[4])
    check(len(inf) == 1 and inf[0]["message"] == "the route's hop limit (64 = 64, expected = 17)",
          "answers: else inform ... if, when the condition holds: %s" % inf)
    done = [s for s in c["steps"] if s["text"].startswith("expect completion r")]
    check(done and "status REM_ACCESS_ERR (not SUCCESS)" in done[0].get("observed", ""),
          "answers: status!=SUCCESS reports the status seen: %s" % done)

if "FEATURE-ANSWERS-002" in cases:
    c = cases["FEATURE-ANSWERS-002"]
    check(c["verdict"] == "fail", "answers: else inform ... if fails when the condition does not hold (%s)" % c["verdict"])

check(len(cases) > 0, "%d feature cases ran" % len(cases))
sys.exit(1 if fails else 0)
