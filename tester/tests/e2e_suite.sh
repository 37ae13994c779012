#!/bin/sh
# Runs inside scripts/netns-pair (tester namespace, soft DUT agent running):
# the whole conformance suite must pass over IPv4 and IPv6, and the
# results file and capture must be complete and consistent. Without --rcm
# the agent has no congestion management and only cases that require RCM
# may be not applicable; with --rcm (the agent started with
# tests/rcm-agent-args) only cases excluding it ('unless RCM') may be.
# usage: e2e_suite.sh ROCE-TESTER CASES-DIR CHECK-RESULTS [--rcm]
set -u
t=$1 cases=$2 check=$3 mode=${4:-plain}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The tester's kernel must not answer the DUT's packets with ICMP port
# unreachable: count what this namespace's kernel sent.
unreach() {
  /usr/bin/python3 -c '
rows = [l.split() for l in open("/proc/net/snmp")]
icmp = [r for r in rows if r[0] == "Icmp:"]
v4 = int(icmp[1][icmp[0].index("OutDestUnreachs")])
v6 = sum(int(l.split()[1]) for l in open("/proc/net/snmp6") if l.startswith("Icmp6OutDestUnreachs"))
print(v4 + v6)'
}
before=$(unreach)
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$out" "$cases"
rc=$?
if [ $rc -ne 0 ]; then
  echo "e2e_suite: FAIL: roce-tester run exited $rc against the fault-free soft DUT"
  python3 - "$out/results.json" <<'PY' || true
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    if c["verdict"] != "pass":
        print("  %s IPv%d %s: %s" % (c["id"], c["ip_version"], c["verdict"], c["reason"]))
PY
  exit 1
fi
/usr/bin/python3 "$check" "$out/results.json" "$out/capture.pcapng" --complete || exit 1
after=$(unreach)
if [ "$before" != "$after" ]; then
  echo "e2e_suite: FAIL: the tester's kernel sent $((after - before)) ICMP destination unreachable during the run"
  exit 1
fi
echo "e2e_suite: ok: no ICMP unreachable from the tester's kernel ($after before and after)"
# Every case ran over both IP versions and passed, or was not applicable
# only for congestion management.
/usr/bin/python3 - "$out/results.json" "$mode" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
rcm = sys.argv[2] == "--rcm"
cases = r["cases"]
assert cases, "no cases ran"
bad = []
for c in cases:
    # Informative: the requirements held; the case reports behaviour that
    # differs between conforming devices.
    if c["verdict"] in ("pass", "informative"):
        continue
    if c["verdict"] == "not_applicable":
        if not rcm and c["reason"] == "the DUT lacks RCM":
            continue
        if rcm and "has RCM, which the case excludes" in c["reason"]:
            continue
    bad.append("%s IPv%d %s: %s" % (c["id"], c["ip_version"], c["verdict"], c["reason"]))
assert not bad, "cases that neither passed nor were not applicable for RCM:\n  " + "\n  ".join(bad)
assert {c["ip_version"] for c in cases} == {4, 6}, "both IP versions"
assert r["setup"]["dut"]["ipv4"]["usable"] and r["setup"]["dut"]["ipv6"]["usable"]
assert r["setup"]["agent"]["hello"]["backend"] == "soft"
assert ("RCM" in r["setup"]["dut"]["device"]["capabilities"]) == rcm, "the agent's RCM capability"
if not rcm:
    rules = {x["id"]: x["verdict"] for x in r["rules"]}
    assert rules["IBA9.7-GBN"] == "pass" and rules["CA17-24"] == "pass", rules
    assert any(t["what"] == "retransmission" for c in cases for t in c["timings"]), "retransmissions timed"
na = sum(c["verdict"] == "not_applicable" for c in cases)
inf = sum(c["verdict"] == "informative" for c in cases)
print("e2e_suite: ok: %d case runs passed, %d informative, %d not applicable (%s congestion management)" %
      (len(cases) - na - inf, inf, na, "with" if rcm else "without"))
PY
[ "$mode" = "--rcm" ] && exit 0
# The tester resolves the DUT's MAC by itself when told to (ARP and ND).
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$out/self" \
  --resolve self -q "$cases/rc-responder/send-ack.case" >/dev/null || { echo "e2e_suite: FAIL: --resolve self"; exit 1; }
/usr/bin/python3 - "$out/self/results.json" "$ROCE_DUT_MAC" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["setup"]["dut"]
for fam, how in (("ipv4", "ARP request by the tester"), ("ipv6", "IPv6 Neighbour Solicitation by the tester")):
    assert d[fam]["resolved_by"] == how, (fam, d[fam])
    assert d[fam]["mac"] == sys.argv[2], (fam, d[fam]["mac"], sys.argv[2])
print("e2e_suite: ok: the DUT's MAC resolved by ARP and by Neighbour Solicitation")
PY
