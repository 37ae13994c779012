#!/bin/sh
# The runner's features that the conformance cases lean on, against the
# soft DUT: 'unless', per-QP IP versions, partial bring-up completed by
# dut modify, not applicable above the port MTU, $port.mtu, rules limited
# to an IP version, the address check of every DUT packet (under the
# wrong-sgid and wrong-dgid faults), a step that a DUT packet with a
# wrong ICRC kept from its rule reported not reached (under bad-icrc), and
# which warnings a case provoked on purpose (under bth-resv-set too).
# usage: runner_features.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER FEATURES-DIR
set -u
netns=$1 agent=$2 t=$3 dir=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # report-dir fault-or-empty cases...
  rd=$1 fault=$2
  shift 2
  if [ -n "$fault" ]; then
    set -- --agent-arg --fault --agent-arg "$fault" -- "$@"
  else
    set -- -- "$@"
  fi
  "$netns" --agent "$agent" --timeout 120 "$@" >"$out/$rd.log" 2>&1
}
runtester='"$0" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$1" "$2"'
run plain "" sh -c "$runtester" "$t" "$out/plain" "$dir"
rc=$?
[ $rc -eq 77 ] && { tail -1 "$out/plain.log"; exit 77; }
run sgid wrong-sgid sh -c "$runtester" "$t" "$out/sgid" "$dir/rule-ip.case"
run dgid wrong-dgid sh -c "$runtester" "$t" "$out/dgid" "$dir/rule-ip.case"
run icrc bad-icrc sh -c '"$0" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$1" "$2" "$3"' \
  "$t" "$out/icrc" "$dir/unreached.case" "$dir/unreached-own.case"
run resv bth-resv-set sh -c "$runtester" "$t" "$out/resv" "$dir/provoked.case"
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
fails = 0
def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += not cond
def cases(rd):
    return {(c["id"], c["ip_version"]): c for c in json.load(open(out + "/" + rd + "/results.json"))["cases"]}
p = cases("plain")
for key, c in sorted(p.items()):
    print("  %s IPv%d %s %s" % (key[0], key[1], c["verdict"], c["reason"]))
u = p[("F-UNLESS", 4)]
check(u["verdict"] == "not_applicable" and "excludes" in u["reason"] and "RC" in u["reason"], "unless RC: not applicable, says why")
check(p[("F-QP-IP", 4)]["verdict"] == "pass", "QPs of both IP versions in one IPv4 run")
check(("F-QP-IP", 6) not in p, "ip 4 runs once")
check(p[("F-BRINGUP", 4)]["verdict"] == "pass" and p[("F-BRINGUP", 6)]["verdict"] == "pass", "state=INIT, then dut modify to RTR and RTS")
n = p[("F-PMTU-NA", 4)]
check(n["verdict"] == "not_applicable" and "active MTU is 1024" in n["reason"], "PMTU 4096 on a 1024 port: not applicable")
check(p[("F-PORT-MTU", 4)]["verdict"] == "pass" and p[("F-PORT-MTU", 4)]["symbols"]["port.mtu"] in ("0x400", 1024), "$port.mtu = 1024")
r4, r6 = p[("F-RULE-IP", 4)], p[("F-RULE-IP", 6)]
check(r4["rules"] == ["CA17-4", "CA17-25"] and r6["rules"] == ["CA17-13", "CA17-25"], "rules per IP version: %s / %s" % (r4["rules"], r6["rules"]))
rules = {x["id"]: x for x in json.load(open(out + "/plain/results.json"))["rules"]}
check([c["ip_version"] for c in rules["CA17-4"]["cases"] if c["id"] == "F-RULE-IP"] == [4], "CA17-4 judged on IPv4 only")
for rd, r4id, r6id in (("sgid", "CA17-11", "CA17-18"), ("dgid", "CA17-12", "CA17-19")):
    s = cases(rd)
    a, b = s[("F-RULE-IP", 4)], s[("F-RULE-IP", 6)]
    check(a["verdict"] == "fail" and r4id in a["failed_rules"] and r6id not in a["failed_rules"],
          "wrong-%s: IPv4 fails %s (%s)" % (rd, r4id, a["reason"]))
    check(b["verdict"] == "fail" and r6id in b["failed_rules"] and r4id not in b["failed_rules"],
          "wrong-%s: IPv6 fails %s (%s)" % (rd, r6id, b["reason"]))
    check(any(f["rule"] == r4id and f["source"] == "packet check" and f.get("frame") for f in a["findings"]),
          "wrong-%s: the finding names its frame" % rd)
check(p[("F-UNREACHED", 4)]["verdict"] == "pass" and p[("F-UNREACHED-OWN", 4)]["verdict"] == "pass",
      "the unreached cases pass against the fault-free DUT")
i = cases("icrc")
u, o = i[("F-UNREACHED", 4)], i[("F-UNREACHED-OWN", 4)]
unreached = lambda c: [f for f in c["findings"] if f["severity"] == "info" and "not reached" in f["message"]]
check(u["verdict"] == "fail" and u["failed_rules"] == ["CA17-22"] and not u["evidence"] and unreached(u),
      "bad-icrc: the completion after the dropped WRITE is not reached, the case fails under CA17-22 alone (%s %s)"
      % (u["failed_rules"], u["reason"]))
bad = [f["frame"] for f in u["findings"] if f["rule"] == "CA17-22" and f["source"] == "packet check"]
check(bad and [f.get("frame") for f in unreached(u)] == bad[:1],
      "bad-icrc: the step not reached names the dropped packet by its capture frame (%s; CA17-22 on %s)"
      % ([f.get("frame") for f in unreached(u)], bad))
check(o["verdict"] == "fail" and [e["rules"] for e in o["evidence"]] == [["CA17-22"]] and not unreached(o),
      "bad-icrc: the expectation of the dropped WRITE itself is judged (%s)" % o["reason"])
# Provoked findings: the flow analysis' warning on the DUT's ACK to the
# WRITE the case injected is the case's evidence; a warning about the same
# ACK's own header (bth-resv-set) is the DUT's issue.
import html, re
def issues(rd):
    h = open(out + "/" + rd + "/report.html", encoding="utf-8").read()
    sec = h[h.index('<section id="issues">'):h.index('<section id="rules">')]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", sec)))
for rd in ("plain", "resv"):
    pv = cases(rd)[("F-PROVOKED", 4)]
    mw = [f for f in pv["findings"] if f["rule"] == "IBA10.6.7-MW-INVALID" and f["severity"] == "warning"]
    check(pv["verdict"] == "pass" or rd == "resv", "%s: F-PROVOKED passes against the clean soft DUT (%s)" % (rd, pv["reason"]))
    check(len(mw) == 1 and "injected in step" in mw[0].get("provoked", "") and not mw[0]["message"].startswith(mw[0]["rule"]),
          "%s: the warning on the ACK of the injected WRITE is provoked, its message without the rule ID: %s" % (rd, mw))
    text = issues(rd)
    check("key stayed valid" not in text and "F-PROVOKED [IPv4]" in text.split("Not issues of the DUT")[-1],
          "%s: Issues observed leaves it to its case and names the case" % rd)
    # The frame the warning names is the capture's (the frame its record
    # and the report link to): the SEND with Invalidate the case sent, not
    # the packet's place in the case (a capture holds many cases' frames).
    page = html.unescape(open(out + "/" + rd + "/report.html", encoding="utf-8").read())
    for ipv in (4, 6):
        c = cases(rd).get(("F-PROVOKED", ipv))
        if not c:
            continue
        named = [int(m) for f in c["findings"] if f["rule"] == "IBA10.6.7-MW-INVALID"
                 for m in re.findall(r"in frame (\d+)", f["message"])]
        sends = [p["frame"] for p in c["packets"]
                 if p["direction"] == "tx" and "SEND Only with Invalidate" in p["summary"]]
        check(len(named) == 1 and named == sends and re.search(r"in frame %d\b" % named[0], page),
              "%s IPv%d: the warning names the SEND with Invalidate by its capture frame, in results.json and "
              "report.html (names %s; the capture has it as %s)" % (rd, ipv, named, sends))
resv = cases("resv")[("F-PROVOKED", 4)]
own = [f for f in resv["findings"] if f["rule"] == "IBA9.2-RESV" and f["severity"] == "warning"]
check(own and not any("provoked" in f for f in own) and "BTH reserved bits" in issues("resv"),
      "bth-resv-set: the ACK's own reserved bits are the DUT's warning, in Issues observed")
sys.exit(1 if fails else 0)
PY
rc=$?
[ $rc -eq 0 ] || for f in "$out"/*.log; do echo "--- $f"; tail -20 "$f"; done
exit $rc
