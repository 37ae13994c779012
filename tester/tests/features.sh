#!/bin/sh
# Runs inside scripts/netns-pair (tester namespace, soft DUT agent running):
# the runner's features that the conformance cases rely on, each shown on
# a small case of tester/tests/cases/features whose verdict and record are
# checked here (informative verdicts, ...).
# usage: features.sh ROCE-TESTER CASES-DIR CHECK-RESULTS
set -u
t=$1 cases=$2 check=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$out" \
  --ip 4 "$cases" >"$out/log" 2>&1
rc=$?
cat "$out/log"
# Some cases fail on purpose: exit 1.
[ $rc -eq 1 ] || { echo "features: FAIL: roce-tester run exited $rc, expected 1"; exit 1; }
/usr/bin/python3 "$check" "$out/results.json" "$out/capture.pcapng" --complete || exit 1
/usr/bin/python3 - "$out/results.json" "$out/log" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
cases = {c["id"]: c for c in r["cases"]}
rules = {x["id"]: x for x in r["rules"]}
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok

c = cases["FEATURE-INFORM-001"]
inf = [f for f in c["findings"] if f["source"] == "case"]
check(c["verdict"] == "informative", "inform: verdict informative (%s)" % c["verdict"])
check(len(inf) == 1 and inf[0]["rule"] == "A17.9.3-CNP-PACING" and inf[0]["severity"] == "info"
      and inf[0]["message"] == "a note with a value (msn = 1)", "inform: the finding shows the value: %s" % inf)
check(c["reason"].startswith("a note with a value"), "inform: the reason says what was informative")
check(rules["A17.9.3-CNP-PACING"]["verdict"] == "informative", "inform: the finding's rule is informative")
check(rules["IBA9.7-ACKREQ"]["verdict"] == "fail", "IBA9.7-ACKREQ: failed by FEATURE-INFORM-002")
check(r["summary"]["informative"] == 3 and r["summary"]["fail"] == 2, "summary counts: %s" % r["summary"])
check("3 informative, 2 fail" in log, "the summary line counts informative cases")

c = cases["FEATURE-INFORM-002"]
check(c["verdict"] == "fail" and c["failed_step"] == 6, "inform then a failed expectation: fail (%s)" % c["verdict"])
c = cases["FEATURE-CHECK-001"]
inf = [f for f in c["findings"] if f["source"] == "case"]
steps = {s["index"]: s for s in c["steps"]}
check(c["verdict"] == "informative", "check: a miss with 'else inform' is informative (%s)" % c["verdict"])
check(steps[6]["detail"].startswith("holds: $rtt = ") and steps[6]["detail"].endswith(", expected < 200.000 ms"),
      "check: the detail of a check that holds: %s" % steps[6]["detail"])
check(steps[7]["status"] == "ok", "check: products, quotients and durations")
check(len(inf) == 1 and inf[0]["rule"] == "IBA9.7-ACKREQ" and inf[0]["message"].startswith(
    "the ACK came sooner than 10 s ($rtt = ") and inf[0]["message"].endswith("expected > 10.000 s)"),
    "check: the informative finding shows the measured delay: %s" % inf)
check("rtt" in c["symbols"], "check: the bound delay is in the symbols")

c = cases["FEATURE-CHECK-002"]
ev = c["evidence"][0] if c["evidence"] else {}
check(c["verdict"] == "fail" and ev.get("expected") == "$rtt > 10.000 s" and ev.get("observed", "").startswith("$rtt = "),
      "check: a check that does not hold fails with both values: %s" % ev)
c = cases["FEATURE-MEASURE-001"]
steps = {s["index"]: s for s in c["steps"]}
tx = [p for p in c["packets"] if p["direction"] == "tx"]
psns = [int(p["summary"].split("PSN=")[1].split()[0]) for p in tx]
check(c["verdict"] == "informative", "measure: the case ran through (%s: %s)" % (c["verdict"], c["reason"]))
check(len(tx) == 5 and all(b - a == 1 for a, b in zip(psns, psns[1:])), "repeat: 5 copies, consecutive PSNs %s" % psns)
gaps = [(b["ts_ns"] - a["ts_ns"]) / 1e6 for a, b in zip(tx, tx[1:])]
check(abs((tx[-1]["ts_ns"] - tx[0]["ts_ns"]) / 1e6 - 8) < 4, "every=2ms: 5 copies over ~8 ms (gaps %s ms)" % gaps)
check(steps[4]["detail"].startswith("5 packet(s), 310 bytes in 200.000 ms"), "measure detail: %s" % steps[4]["detail"])
check(all("measured by step 4" in p.get("annotation", "") for p in c["packets"] if p["direction"] == "rx"),
      "measured packets are annotated as taken")
sys.exit(1 if fails else 0)
PY
