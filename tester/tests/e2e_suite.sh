#!/bin/sh
# Runs inside scripts/netns-pair (tester namespace, soft DUT agent running):
# the whole conformance suite must pass over IPv4 and IPv6, and the
# results file and capture must be complete and consistent. Each mode says
# which cases may be not applicable, and why:
#   (none)  the agent is dual-mode (--rocev1) without congestion
#           management: cases that require RCM or a VLAN run;
#   --rcm   the agent started with tests/rcm-agent-args and no --rocev1:
#           cases excluding RCM ('unless RCM'), requiring ROCEV1 or a VLAN;
#   --vlan  the pair and the agent (dual-mode) on VLAN $ROCE_VLAN
#           (netns-pair --vlan), the tester with --vlan $ROCE_VLAN:5: cases
#           that require RCM.
# In every mode, the cases of a responder without FLUSH or ATOMIC WRITE.
# usage: e2e_suite.sh ROCE-TESTER CASES-DIR CHECK-RESULTS [--rcm|--vlan]
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
vlan_args=
if [ "$mode" = "--vlan" ]; then
  [ -n "${ROCE_VLAN:-}" ] || { echo "e2e_suite: FAIL: --vlan without netns-pair --vlan"; exit 1; }
  vlan_args="--vlan $ROCE_VLAN:5"
fi
# shellcheck disable=SC2086
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$out" $vlan_args "$cases"
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
# only for what the mode's set-up lacks.
/usr/bin/python3 - "$out/results.json" "$mode" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
mode = sys.argv[2]
rcm, vlan = mode == "--rcm", mode == "--vlan"
# The soft DUT has FLUSH and ATOMIC WRITE in every mode: the cases of a
# responder without them ('unless') are for other devices (their fault
# profile shows they can fail).
placement = ["has FLUSH, which the case excludes", "has ATOMIC_WRITE, which the case excludes"]
allowed = {
    "plain": ["the DUT lacks RCM", "the run is not over a VLAN"],
    "--rcm": ["has RCM, which the case excludes", "the run is not over a VLAN", "the DUT lacks ROCEV1"],
    "--vlan": ["the DUT lacks RCM"],
}[mode] + placement
cases = r["cases"]
assert cases, "no cases ran"
bad = []
for c in cases:
    # Informative: the requirements held; the case reports behaviour that
    # differs between conforming devices.
    if c["verdict"] in ("pass", "informative"):
        continue
    if c["verdict"] == "not_applicable" and any(a in c["reason"] for a in allowed):
        continue
    bad.append("%s IPv%d %s: %s" % (c["id"], c["ip_version"], c["verdict"], c["reason"]))
assert not bad, "cases that neither passed nor were not applicable for what %s lacks:\n  %s" % (
    mode, "\n  ".join(bad))
assert {c["ip_version"] for c in cases} == {4, 6}, "both IP versions"
assert r["setup"]["dut"]["ipv4"]["usable"] and r["setup"]["dut"]["ipv6"]["usable"]
assert r["setup"]["agent"]["hello"]["backend"] == "soft"
assert ("RCM" in r["setup"]["dut"]["device"]["capabilities"]) == rcm, "the agent's RCM capability"
assert ("ROCEV1" in r["setup"]["dut"]["device"]["capabilities"]) != rcm, "the agent's ROCEV1 capability (dual mode)"
rules = {x["id"]: x["verdict"] for x in r["rules"]}
if not rcm:
    v1 = {k: rules.get(k) for k in ("CA17-40", "CA17-41", "CA17-42", "CA17-43", "A16-ROCEV1")}
    assert set(v1.values()) == {"pass"}, ("the RoCE v1 rules on a dual-mode DUT", v1)
assert (rules.get("A17.4-PCP") == "pass") == vlan, ("A17.4-PCP", rules.get("A17.4-PCP"))
assert (r["setup"]["interface"]["vlan"] is not None) == vlan, r["setup"]["interface"]
if not rcm:
    assert rules["IBA9.7-GBN"] == "pass" and rules["CA17-24"] == "pass", rules
    assert any(t["what"] == "retransmission" for c in cases for t in c["timings"]), "retransmissions timed"
# Each of the annex's 46 numbered statements has a verdict of its own for
# this DUT, or, not applicable, the reason its cases give; none is left
# untested or untestable.
annex = {x["id"]: x for x in r["rules"] if x["id"].startswith("CA17-")}
assert len(annex) == 46, ("the annex's statements", sorted(annex))
for k, x in sorted(annex.items()):
    assert x["verdict"] not in ("not_tested", "not_testable"), (k, x["verdict"])
    if x["verdict"] in ("not_applicable", "error"):
        assert x.get("reason") and any(c["id"] in x["reason"] for c in x["cases"]), (k, x)
    else:
        assert "reason" not in x, (k, x)
# After each case run that injected packets, the liveness probe (a
# known-good WRITE on a fresh RC QP) ran and was answered; say what it
# cost.
import re
probe_ms = []
for c in cases:
    said = [e["text"] for e in c["events"] if e["text"].startswith("after the case:")]
    assert len(said) <= 1, (c["id"], said)
    if said:
        assert "answered a known-good WRITE" in said[0], (c["id"], c["ip_version"], said)
        probe_ms.append(float(re.search(r"\(([0-9.]+) ms\)", said[0]).group(1)))
probe_ms.sort()
assert probe_ms, "no liveness probe ran"
if probe_ms:
    print("e2e_suite: ok: %d liveness probes answered: %.2f ms per case run on average, median %.2f, max %.2f, %.2f s in all" %
          (len(probe_ms), sum(probe_ms) / len(probe_ms), probe_ms[len(probe_ms) // 2], probe_ms[-1], sum(probe_ms) / 1e3))
na = sum(c["verdict"] == "not_applicable" for c in cases)
inf = sum(c["verdict"] == "informative" for c in cases)
print("e2e_suite: ok: %d case runs passed, %d informative, %d not applicable (%s)" %
      (len(cases) - na - inf, inf, na, {"plain": "without congestion management", "--rcm": "with congestion management",
                                         "--vlan": "over a VLAN"}[mode]))
PY
[ "$mode" != "plain" ] && exit 0
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
