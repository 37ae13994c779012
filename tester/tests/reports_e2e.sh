#!/bin/sh
# Reports from real runs against the soft DUT in network namespaces (each
# run gets its own namespaces and agent through scripts/netns-pair): a
# fault-free run and two runs under fault profiles that break
# IBA9.7-PSN-SEQERR in two ways (a NAK with the wrong PSN: evidence frames;
# no NAK at all: an expected packet that never came).
#   - every run leaves results.json, capture.pcapng, report.html, junit.xml;
#     stale reports of an earlier run are replaced;
#   - junit.xml validates, names the broken rule and cites frames that the
#     capture holds with a comment naming the case;
#   - `roce-tester report` rebuilds both reports byte for byte;
#   - `report --compare` finds the regressions (exit 1) and the fixes (exit 0);
#   - the terminal: a live progress line and colours on a TTY (under
#     script(1)), no colour with NO_COLOR, neither when not a terminal;
#   - the HTML reports in headless Chromium (report_browser.py), with the
#     screenshots kept in ARTIFACT-DIR.
# usage: reports_e2e.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER CASES-DIR TESTS-DIR ARTIFACT-DIR
set -u
netns=$1 agent=$2 t=$3 cases=$4 dir=$5 art=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
sel="$cases/rc-responder/psn-sequence-nak.case $cases/rc-responder/send-ack.case"

run() { # name, expected exit, fault or '', wrapper...
  name=$1 want=$2 fault=$3
  shift 3
  mkdir -p "$work/$name"
  echo stale >"$work/$name/report.html"
  set -- "$@" "$t" run --iface '$ROCE_IF_TESTER' --agent '$ROCE_AGENT' --token-file '$ROCE_TOKEN_FILE' \
    --report-dir "$work/$name" $sel
  if [ -n "$fault" ]; then
    "$netns" --agent "$agent" --agent-arg --fault --agent-arg "$fault" --timeout 120 -- sh -c "$*" >"$work/$name.log" 2>&1
  else
    "$netns" --agent "$agent" --timeout 120 -- sh -c "$*" >"$work/$name.log" 2>&1
  fi
  rc=$?
  [ $rc -eq 77 ] && { cat "$work/$name.log"; exit 77; }
  if [ $rc -eq "$want" ]; then ok "$name: run exit $rc"; else bad "$name: run exit $rc, expected $want"; cat "$work/$name.log"; fi
}
run clean 0 ""
run wrongpsn 1 seq-nak-wrong-psn
run nonak 1 no-seq-nak
for name in clean wrongpsn nonak; do
  d=$work/$name
  for f in results.json capture.pcapng report.html junit.xml; do
    [ -s "$d/$f" ] || bad "$name: no $f"
  done
  grep -q stale "$d/report.html" && bad "$name: the stale report.html was kept"
  grep -q "report:  $d/report.html" "$work/$name.log" && grep -q "junit:   $d/junit.xml" "$work/$name.log" \
    && ok "$name: the run names its reports" || bad "$name: report paths not printed"
  xmllint --noout --schema "$dir/junit.xsd" "$d/junit.xml" 2>"$work/xsd.log" && ok "$name: junit.xml validates" \
    || { bad "$name: junit.xml does not validate"; cat "$work/xsd.log"; }
  "$t" report -q -o "$work/$name.again" "$d" && cmp -s "$d/report.html" "$work/$name.again/report.html" \
    && cmp -s "$d/junit.xml" "$work/$name.again/junit.xml" && ok "$name: report rebuilds both files byte for byte" \
    || bad "$name: rebuilt reports differ"
done
/usr/bin/python3 "$dir/validate_results.py" "$dir/../../docs/results.schema.json" "$work"/clean/results.json \
  "$work"/wrongpsn/results.json "$work"/nonak/results.json >"$work/validate.log" 2>&1
case $? in
  0) ok "the results validate against docs/results.schema.json" ;;
  77) cat "$work/validate.log" ;;
  *) bad "results do not validate"; cat "$work/validate.log" ;;
esac
/usr/bin/python3 - "$work/clean/results.json" <<'PY' && ok "results.json and report.html say which I/O path ran and whether the stack bypass attached" \
  || bad "results.json: io_path / stack_bypass"
import json, sys
i = json.load(open(sys.argv[1]))["setup"]["interface"]
p, b = i["io_path"], i["stack_bypass"]
print("io_path: %s (%s); stack_bypass: %s (%s)" % (p["name"], p["note"], b["attached"], b["note"]))
assert p["name"] in ("ring", "blocks", "pcap") and p["note"].startswith(p["name"] + ":"), p
assert isinstance(b["attached"], bool) and b["note"], b
# The note says what the flag says: attached, or why not.
assert b["attached"] == ("dropped at tc ingress" in b["note"]), b
page = open(sys.argv[1].replace("results.json", "report.html")).read()
assert "I/O path" in page and p["note"] in page and "IP stack bypass" in page and b["note"] in page, "report.html"
PY
/usr/bin/python3 - "$work/wrongpsn" "$work/nonak" <<'PY' && ok "junit failures name the rule and cite frames the capture holds" \
  || bad "junit content against the capture"
import subprocess, sys, xml.etree.ElementTree as ET, re
for d in sys.argv[1:]:
    root = ET.parse(d + "/junit.xml").getroot()
    failed = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert {c.get("name") for c in failed} == {"RC-RESP-PSN-SEQERR-001 [IPv4]", "RC-RESP-PSN-SEQERR-001 [IPv6]"}, failed
    out = subprocess.run(["tshark", "-r", d + "/capture.pcapng", "-T", "fields", "-e", "frame.number", "-e",
                          "frame.comment"], capture_output=True, text=True, check=True).stdout
    comments = dict(l.split("\t", 1) for l in out.splitlines())
    for c in failed:
        f = c.find("failure")
        assert f.get("type") == "IBA9.7-PSN-SEQERR" and f.get("message").startswith("IBA9.7-PSN-SEQERR: ")
        for fr in re.findall(r"frames in capture.pcapng: ([0-9, ]+)", f.text):
            for n in fr.split(", "):
                assert comments[n].startswith(c.get("name")), (n, comments[n])
PY
"$t" report --compare "$work/clean" "$work/wrongpsn" >"$work/cmp1" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "RC-RESP-PSN-SEQERR-001 \[IPv4\] *pass -> fail" "$work/cmp1" \
  && grep -q "rules newly broken (1): IBA9.7-PSN-SEQERR" "$work/cmp1" && ok "compare: the regressions, exit 1" \
  || { bad "compare clean -> faulty: exit $rc"; cat "$work/cmp1"; }
"$t" report --compare "$work/nonak" "$work/clean" >"$work/cmp2" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "0 regression(s), 2 fix(es)" "$work/cmp2" && ok "compare: the fixes, exit 0" \
  || { bad "compare faulty -> clean: exit $rc"; cat "$work/cmp2"; }

# The terminal, under script(1) for a TTY.
esc=$(printf '\033')
tty_run() { # name, env...
  name=$1
  shift
  "$netns" --agent "$agent" --timeout 120 -- env "$@" script -qfec \
    "stty cols 132; $t run --iface \$ROCE_IF_TESTER --agent \$ROCE_AGENT --token-file \$ROCE_TOKEN_FILE --report-dir $work/$name $sel" \
    /dev/null >"$work/$name.tty" 2>&1
}
tty_run tty TERM=xterm
grep -Eq "${esc}\[K(${esc}\[1m)?\[1/4\] 0 pass, 0 info, 0 fail, 0 n/a, 0 error  00:0[0-9]  RC-RESP-PSN-SEQERR-001 IPv4" "$work/tty.tty" \
  && ok "TTY: the live progress line (case n of N, counts, elapsed, the case at hand)" \
  || { bad "TTY: no live progress line"; od -c "$work/tty.tty" | head -30; }
grep -q "${esc}\[32mpass" "$work/tty.tty" && ok "TTY: verdicts in colour" || bad "TTY: no colour"
grep -Eq "\[3/4\] 2 pass, 0 info, 0 fail, 0 n/a, 0 error  00:0[0-9]  RC-RESP-SEND-ACK-001 IPv4" "$work/tty.tty" \
  && ok "TTY: the counts advance" || bad "TTY: counts"
tty_run nocolor TERM=xterm NO_COLOR=1
grep -q "${esc}\[K\[1/4\] 0 pass" "$work/nocolor.tty" && ! grep -q "${esc}\[[0-9;]*m" "$work/nocolor.tty" \
  && ok "NO_COLOR: the progress line stays, the colours go" || bad "NO_COLOR honoured"
if grep -q "$esc" "$work/clean.log" || grep -q "$(printf '\r')" "$work/clean.log"; then
  bad "not a terminal: escapes or carriage returns in the output"
else
  ok "not a terminal: plain lines"
fi
grep -q "^\[1/4\] pass .*RC-RESP-PSN-SEQERR-001 *IPv4" "$work/clean.log" && ok "one line per case run" || bad "case lines"

/usr/bin/python3 "$dir/report_browser.py" "$art" "$work/clean" "$work/wrongpsn" "$work/nonak" || fails=$((fails + 1))
[ $fails -eq 0 ] && echo "reports_e2e: all passed"
exit $fails
