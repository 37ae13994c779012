#!/bin/sh
# Runs inside scripts/netns-pair (tester namespace, no harness agent): a
# case that loses its agent before it sent a packet ends in error on its
# own and the next case passes against a restarted agent; one whose DUT
# dies at a packet it injected fails CA17-23 naming that packet, and so
# does one whose wire goes silent (its agent answering) at a packet last
# in its case, which only the known-good exchange after the case shows;
# Ctrl-C ends a run cleanly with valid
# results and capture; a broken case file stops the run before any packet.
# usage: robustness.sh ROCE-TESTER ROCE-AGENT CASES-DIR CHECK-RESULTS
set -u
t=$1 agent=$2 cases=$3 check=$4
work=$(mktemp -d)
apid=
tpid=
cleanup() {
  [ -n "$tpid" ] && kill "$tpid" 2>/dev/null
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
ok() { echo "ok: $1"; }
IP=/usr/sbin/ip
[ -x "$IP" ] || IP=$(command -v ip)
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
start_agent() { # log-name [agent arguments...]
  n=$1; shift
  "$IP" netns exec "$ROCE_NS_DUT" "$agent" --listen "$ROCE_DUT_IP4:7472" --token-file "$work/token" \
    --backend soft --iface "$ROCE_IF_DUT" "$@" >"$work/agent.$n.log" 2>&1 &
  apid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/agent.$n.log" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "robustness: the agent did not start"; cat "$work/agent.$n.log"; exit 1
}
run() { # report-dir, cases...
  d=$1; shift
  "$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:7472" --token-file "$work/token" --report-dir "$d" -q "$@" \
    >"$d.log" 2>&1 &
  tpid=$!
}

# 1. The agent dies in the middle of the slow case.
start_agent 1
run "$work/r1" "$cases/a-quick.case" "$cases/b-slow.case" "$cases/c-quick.case"
sleep 2
kill "$apid"; wait "$apid" 2>/dev/null
start_agent 2
wait "$tpid"; rc=$?; tpid=
[ $rc -eq 3 ] && ok "a lost agent gives exit 3 (error)" || { bad "lost agent: exit $rc, expected 3"; cat "$work/r1.log"; }
/usr/bin/python3 "$check" "$work/r1/results.json" "$work/r1/capture.pcapng" --complete --verdict pass,error,pass \
  && ok "the broken case failed alone; the next passed" || bad "verdicts after a lost agent"
grep -q "agent" "$work/r1/results.json" && ok "the error names the agent" || bad "no reason"

# 2. Ctrl-C in the middle of a case.
run "$work/r2" "$cases/b-slow.case" "$cases/c-quick.case"
sleep 1.5
kill -INT "$tpid"
wait "$tpid"; rc=$?; tpid=
[ $rc -eq 130 ] && ok "Ctrl-C gives exit 130" || { bad "Ctrl-C: exit $rc"; cat "$work/r2.log"; }
/usr/bin/python3 "$check" "$work/r2/results.json" "$work/r2/capture.pcapng" --interrupted --verdict error \
  && ok "an interrupted run leaves valid results and capture" || bad "results after Ctrl-C"

# 3. A broken case file: nothing runs, the error is located.
printf 'case X\ntitle "x"\nrules CA17-1\ndut qp q type=XRC\n' >"$work/broken.case"
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:7472" --token-file "$work/token" --report-dir "$work/r3" \
  "$cases/a-quick.case" "$work/broken.case" >"$work/r3.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "broken.case:4:15: 'XRC' is not a value of type" "$work/r3.log" && [ ! -e "$work/r3/results.json" ] \
  && ok "a broken case file stops the run before it starts" || { bad "broken case: exit $rc"; cat "$work/r3.log"; }

# 4. No agent at all: every case ends in error, quickly.
kill "$apid"; wait "$apid" 2>/dev/null; apid=
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:7472" --token-file "$work/token" --report-dir "$work/r4" \
  --agent-timeout 2000 -q "$cases/a-quick.case" >"$work/r4.log" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "Connection refused" "$work/r4/results.json" && ok "no agent: error with the reason" \
  || { bad "no agent: exit $rc"; cat "$work/r4.log"; }
# 5. The DUT dies at a packet of the case's (its process ends, as a host
# whose kernel panicked): the case fails CA17-23, and the evidence is the
# packet injected last, the undefined opcode, not the exchange after it.
start_agent 5 --fault bug-undefined-opcode-crash
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:7472" --token-file "$work/token" --report-dir "$work/r5" \
  --agent-timeout 2000 -q "$cases/d-crash.case" >"$work/r5.log" 2>&1
rc=$?
wait "$apid" 2>/dev/null; apid=
[ $rc -eq 1 ] && ok "a DUT that dies at a packet gives exit 1 (a failure)" || { bad "crash: exit $rc, expected 1"; cat "$work/r5.log"; }
/usr/bin/python3 "$check" "$work/r5/results.json" "$work/r5/capture.pcapng" --complete --verdict fail \
  && ok "valid results and capture after the crash" || bad "results after the crash"
/usr/bin/python3 - "$work/r5/results.json" "$work/r5/report.html" <<'PY' && ok "CA17-23 names the undefined-opcode packet" || bad "the crash's rule or packet"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
ev = c["evidence"]
assert c["failed_rules"] == ["CA17-23"], c["failed_rules"]
assert "stopped answering" in c["reason"], c["reason"]
assert len(ev) == 1 and ev[0]["rules"] == ["CA17-23"] and len(ev[0]["packets"]) == 1, ev
pkt = c["packets"][ev[0]["packets"][0]]
assert pkt["direction"] == "tx" and pkt["summary"].startswith("opcode 0x1f"), pkt
assert ev[0]["step"] == pkt["step"] == 7 and ev[0]["frames"] == [pkt["frame"]], (ev, pkt)
assert "stopped answering" in open(sys.argv[2]).read()
PY
grep -q "bug-undefined-opcode-crash" "$work/agent.5.log" && ok "the agent said why it ended" || bad "agent log: no crash line"

# 6. The DUT's wire goes silent at the last packet of a case (the device
# halts, its agent answers): every step passes; the known-good exchange
# after the case gets no answer, and the case fails CA17-23 naming the
# undefined-opcode packet. Without the fault the same case passes, the
# exchange answered.
start_agent 6
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:7472" --token-file "$work/token" --report-dir "$work/r6a" \
  --agent-timeout 2000 -q "$cases/e-halt.case" "$cases/a-quick.case" >"$work/r6a.log" 2>&1
rc=$?
kill "$apid"; wait "$apid" 2>/dev/null; apid=
[ $rc -eq 0 ] && ok "a clean DUT passes the halting case, the probe answered" || { bad "clean halt case: exit $rc"; cat "$work/r6a.log"; }
/usr/bin/python3 - "$work/r6a/results.json" <<'PY' && ok "the probe ran after the injecting case, answered" || bad "the clean probe"
import json, re, sys
cs = json.load(open(sys.argv[1]))["cases"]
for c in cs:
    assert c["verdict"] == "pass", (c["id"], c["verdict"], c["reason"])
    ev = [e["text"] for e in c["events"] if "after the case" in e["text"]]
    assert len(ev) == 1 and "answered a known-good WRITE" in ev[0], (c["id"], ev)
    ms = float(re.search(r"\(([0-9.]+) ms\)", ev[0]).group(1))
    print("probe after %s: %.3f ms" % (c["id"], ms))
PY
start_agent 6b --fault bug-undefined-opcode-halt
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:7472" --token-file "$work/token" --report-dir "$work/r6" \
  --agent-timeout 2000 -q "$cases/e-halt.case" >"$work/r6.log" 2>&1
rc=$?
kill "$apid"; wait "$apid" 2>/dev/null; apid=
[ $rc -eq 1 ] && ok "a DUT silenced at a packet gives exit 1 (a failure)" || { bad "halt: exit $rc, expected 1"; cat "$work/r6.log"; }
/usr/bin/python3 "$check" "$work/r6/results.json" "$work/r6/capture.pcapng" --complete --verdict fail \
  && ok "valid results and capture after the halt" || bad "results after the halt"
/usr/bin/python3 - "$work/r6/results.json" "$work/r6/report.html" <<'PY' && ok "CA17-23 names the packet that silenced the DUT" || bad "the halt's rule or packet"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
ev = c["evidence"]
assert c["failed_rules"] == ["CA17-23"], c["failed_rules"]
assert "stopped answering" in c["reason"] and "known-good" in c["reason"], c["reason"]
assert all(s["status"] == "ok" for s in c["steps"]), c["steps"]
assert len(ev) == 1 and ev[0]["rules"] == ["CA17-23"] and len(ev[0]["packets"]) == 1, ev
pkt = c["packets"][ev[0]["packets"][0]]
assert pkt["direction"] == "tx" and pkt["summary"].startswith("opcode 0x1f"), pkt
assert ev[0]["step"] == pkt["step"] == 6 and ev[0]["frames"] == [pkt["frame"]], (ev, pkt)
assert not [p for p in c["packets"] if p.get("qp") == "alive_probe_qp"], "the probe's packets are not the case's"
said = [e["text"] for e in c["events"] if e["text"].startswith("after the case:")]
assert len(said) == 1 and "got no answer within 500 ms" in said[0], said
html = open(sys.argv[2]).read()
assert "stopped answering" in html and "known-good" in html
PY

[ $fails -eq 0 ] && echo "robustness: all passed"
exit $fails
