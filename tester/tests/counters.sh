#!/bin/sh
# The DUT's counters in every case, against the soft DUT (whose counters
# are exact): the deltas of a known exchange in results.json, the HTML
# report and the JUnit properties.
# A load (2000 WRITEs, two packets lost): its record, and the DUT's
# counters agree with the wire.
# A known sequence moves every meaning the soft DUT's counters have, each
# by a number known in advance (with congestion management, for CNPs).
# The deltas held against the wire: none disagrees on the healthy soft DUT;
# under the counters-lie profile (counters that under-report) the
# conformance case with a counter check ends informative, and the
# cross-check names each counter that lies, its delta and the wire's count.
# usage: counters.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER CASES-DIR RCM-AGENT-ARGS CONFORMANCE-CASES
set -u
netns=$1 agent=$2 t=$3 dir=$4 rcmfile=$5 suite=$6
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
runtester='"$0" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$1" "$2"'
"$netns" --agent "$agent" --timeout 120 -- sh -c "$runtester" "$t" "$out/plain" "$dir/deltas.case" >"$out/plain.log" 2>&1
"$netns" --agent "$agent" --timeout 120 -- sh -c "$runtester" "$t" "$out/load" "$suite/rc-responder/load-go-back-n.case" \
  >"$out/load.log" 2>&1
rc=$?
[ $rc -eq 77 ] && { tail -1 "$out/plain.log"; exit 77; }
rcm=$(grep -v '^#' "$rcmfile" | sed 's/^/--agent-arg /' | tr '\n' ' ')
# shellcheck disable=SC2086
"$netns" --agent "$agent" $rcm --timeout 120 -- sh -c "$runtester" "$t" "$out/every" "$dir/every-meaning.case" \
  >"$out/every.log" 2>&1
"$netns" --agent "$agent" --agent-arg --fault --agent-arg counters-lie --timeout 120 -- sh -c "$runtester" "$t" \
  "$out/lie" "$suite/encapsulation/drop-bad-icrc.case" >"$out/lie.log" 2>&1
"$netns" --agent "$agent" --timeout 120 -- sh -c "$runtester" "$t" "$out/honest" "$suite/encapsulation/drop-bad-icrc.case" \
  >"$out/honest.log" 2>&1
/usr/bin/python3 - "$out" <<'PY'
import json, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
fails = 0
def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += not cond
r = json.load(open(out + "/plain/results.json"))
c = {x["id"]: x for x in r["cases"]}["T-COUNTERS-DELTAS"]
print("  %s %s" % (c["verdict"], c["reason"]))
check(c["verdict"] == "pass", "the exchange passes")
k = c["counters"]
check(k["available"] and k["driver"] == "soft" and len(k["ports"]) == 1, "one port of the soft DUT, snapshot before and after")
p = k["ports"][0]
d = {x["name"]: x for x in p["deltas"]}
want = {"rx_frames": 4, "rx_packets": 3, "tx_packets": 3, "rx_drop_icrc": 1, "resp_duplicates": 1,
        "tx_nak_psn_seq": 1, "tx_acks": 2}
for name, n in want.items():
    check(name in d and d[name]["delta"] == n, "%s moved by %d (got %s)" % (name, n, d.get(name, {}).get("delta")))
check(d["rx_drop_icrc"]["meaning"] == "bad_icrc_dropped" and d["rx_drop_icrc"]["checked"]
      and "bad ICRC" in d["rx_drop_icrc"]["meaning_text"], "rx_drop_icrc carries its meaning from the table")
check("meaning" not in d["tx_acks"], "a counter the table gives no meaning has none")
m = p["meanings"]
wantm = {"packets_received": 4, "packets_sent": 3, "bad_icrc_dropped": 1, "duplicate_requests": 1,
         "seq_err_naks_sent": 1, "seq_err_naks_received": 0, "cnps_sent": 0, "rnr_naks_sent": 0}
for name, n in wantm.items():
    check(m.get(name) == n, "meaning %s = %d (got %s)" % (name, n, m.get(name)))
check(all(x["delta"] != 0 for x in p["deltas"]), "only counters that moved are listed")
html = open(out + "/plain/report.html").read()
check("<h4>DUT counters</h4>" in html and "<code>rx_drop_icrc</code></td><td>+1</td><td>packets dropped for a bad ICRC" in html,
      "the HTML report shows the deltas with their meaning")
props = {p.get("name"): p.get("value") for p in ET.parse(out + "/plain/junit.xml").iter("property")}
key = "counters.T-COUNTERS-DELTAS [IPv4].port1.resp_duplicates"
check(props.get(key) == "+1 resp_duplicates (duplicate requests received (PSN behind the expected one))",
      "JUnit property %s = %s" % (key, props.get(key)))

# The clocks: the case says which timed its frames (a veth: the kernel's for
# received frames, the host's for sent ones), and each timed step its own.
ck = c["clocks"]
nrx = sum(1 for p in c["packets"] if p["direction"] == "rx")
ntx = sum(1 for p in c["packets"] if p["direction"] == "tx")
# (the counts also hold the neighbour resolution's frames, not recorded)
check(ck["rx"] == "kernel" and ck["tx"] == "host" and list(ck["rx_frames"]) == ["kernel"] and
      ck["rx_frames"]["kernel"] >= nrx and list(ck["tx_frames"]) == ["host"] and ck["tx_frames"]["host"] >= ntx,
      "clocks: received by kernel (%d+), sent by host (%d+): %s" % (nrx, ntx, ck))
timed = [(s["text"], s.get("clocks")) for s in c["steps"]]
check(timed[4][1] == {"start": "host", "end": "kernel"} and timed[6][1] == {"start": "host", "end": "kernel"} and
      timed[8][1] == {"start": "host", "end": "host"} and timed[11][1] == {"start": "kernel", "end": "host"} and
      timed[2][1] is None, "steps: the clocks of each timed interval: %s" % timed)
check("timed from the host clock to the kernel clock" in html and "received frames: kernel, sent frames: host" in html,
      "the HTML report names the clocks")

# Every meaning the table gives the soft DUT's counters, exact.
c = json.load(open(out + "/every/results.json"))["cases"][0]
print("  %s %s" % (c["verdict"], c["reason"]))
check(c["verdict"] == "pass", "the known sequence passes")
m = c["counters"]["ports"][0]["meanings"]
tx = sum(1 for p in c["packets"] if p["direction"] == "tx")
# (the DUT host's IGMP and MLD reports are recorded too, not RoCE packets)
rx = sum(1 for p in c["packets"] if p["direction"] == "rx" and not p["summary"].startswith("non-RoCEv2")
         and not p["summary"].startswith(("IGMP", "MLD")))
wantm = {"packets_received": tx, "packets_sent": rx, "bad_icrc_dropped": 1, "duplicate_requests": 1,
         "seq_err_naks_sent": 1, "seq_err_naks_received": 1, "implied_naks": 1, "cnps_sent": 1, "cnps_received": 1,
         "ecn_ce_received": 1, "rnr_naks_sent": 1, "rnr_naks_received": 1, "ack_timeouts": 1,
         "retransmissions": 4}
check(set(wantm) == set(m), "the sequence covers every meaning the soft DUT has counters of: %s" % sorted(set(m) ^ set(wantm)))
for name, n in sorted(wantm.items()):
    check(m.get(name) == n, "meaning %s = %d (got %s)" % (name, n, m.get(name)))

# The load step's record.
for c in json.load(open(out + "/load/results.json"))["cases"]:
    ld = [s for s in c["steps"] if s["kind"] == "load"][0]
    L = ld["load"]
    print("  %s IPv%d %s: %s" % (c["id"], c["ip_version"], c["verdict"], ld["detail"]))
    check(c["verdict"] == "pass" and L["posted"] == 2000 and L["completed"] == 2000 and L["lost"] == 0 and
          L["errors"] == 0 and L["naks"] >= 2 and L["retransmissions"] >= 2 and L["achieved"] > 0 and
          L["operation"] == "write" and not L["cut_short"], "load: 2000 WRITEs completed after go-back-N: %s" % L)
    k = c["counters"]
    m = k["ports"][0]["meanings"]
    check(m["seq_err_naks_sent"] == L["naks"] and m["packets_received"] >= 2000 and
          not [x for x in k["cross_checks"] if not x["agrees"]],
          "load: the DUT's counters agree with the wire (%d NAKs)" % m["seq_err_naks_sent"])
# Held against the wire: the healthy soft DUT agrees everywhere.
for rd in ("plain", "every", "honest"):
    for c in json.load(open(out + "/" + rd + "/results.json"))["cases"]:
        ks = c["counters"].get("cross_checks", [])
        bad = [k for k in ks if not k["agrees"]]
        check(len(ks) >= 12 and not bad and not [f for f in c["findings"] if f["source"] == "counter check"],
              "%s IPv%d: %d comparisons with the wire, none disagrees %s" % (c["id"], c["ip_version"], len(ks), bad))
        chk = [s for s in c["steps"] if s["kind"] == "check"]
        check(all(s["detail"].startswith("holds: $counters.bad_icrc_dropped = 1") for s in chk),
              "%s: check $counters.bad_icrc_dropped holds: %s" % (c["id"], [s["detail"] for s in chk]))
# counters-lie: the check and the cross-check say so, informative, never a failure.
for c in json.load(open(out + "/lie/results.json"))["cases"]:
    print("  %s IPv%d %s %s" % (c["id"], c["ip_version"], c["verdict"], c["reason"][:150]))
    check(c["verdict"] == "informative", "counters-lie: informative, not a failure")
    msgs = [f["message"] for f in c["findings"] if f["source"] == "counter check" and f["severity"] == "info"]
    check(any("counter rx_drop_icrc (packets dropped for a bad ICRC) moved by 0 in the case, less than the wire shows: "
              "the tester sent the DUT 2 packets addressed to it whose only fault was a bad ICRC" in m for m in msgs),
          "the finding names rx_drop_icrc, its delta 0 and the 2 bad-ICRC packets: %s" % msgs)
    check(any("counter tx_packets (packets sent) moved by 1 in the case, less than the wire shows: the tester received "
              "2 RoCE packets from the DUT" in m for m in msgs), "the finding names tx_packets (half of 2)")
    check(any(f["source"] == "case" and "did not count it ($counters.bad_icrc_dropped = 0" in f["message"]
              for f in c["findings"]), "check $counters.bad_icrc_dropped >= 1 else inform: informative")
    check(not c["failed_rules"], "no rule failed")
html = open(out + "/lie/report.html").read()
check("moved by 0 in the case, less than the wire shows" in html and "<b>no</b>" in html,
      "the HTML report shows the disagreement")
sys.exit(1 if fails else 0)
PY
rc=$?
[ $rc -eq 0 ] || for f in "$out"/*.log; do echo "--- $f"; tail -30 "$f"; done
exit $rc
