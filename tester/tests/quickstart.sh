#!/bin/sh
# ./scripts/quickstart with the binaries of this build: the whole suite
# against the fault-free soft DUT (and the congestion management cases
# against it with --rcm) leaves the four files, with the charts in the
# reports and their series in results.json and no issue observed, and says where they are and
# how to open the capture in Wireshark with the plugin; with a
# fault profile (one case, to stay quick) it still succeeds and the report
# shows the failure; a wrong profile is refused with the list.
# usage: quickstart.sh SOURCE-DIR BUILD-DIR
set -u
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
"$src/scripts/quickstart" --build-dir "$build" --no-setup --out "$work/qs" >"$work/log" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$work/log"; exit 77; }
[ $rc -eq 0 ] && ok "quickstart: exit 0" || { bad "quickstart exit $rc"; cat "$work/log"; }
for f in results.json capture.pcapng report.html junit.xml; do
  [ -s "$work/qs/$f" ] && ok "left $f" || bad "no $f"
done
for s in "file://$work/qs/report.html" "wireshark -r $work/qs/capture.pcapng" "junit.xml" "rocev2" \
         "plugins/4." "the personal folder"; do
  grep -qF "$s" "$work/log" && ok "says: $s" || bad "does not say: $s"
done
n=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["cases"]), r["summary"]["pass"] + r["summary"].get("informative", 0) + r["summary"]["not_applicable"])' "$work/qs/results.json")
set -- $n
[ "$1" -gt 0 ] && [ "$1" = "$2" ] && ok "the whole suite ran and passed ($1 case runs)" || bad "suite: $n"
m=$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["cases"]), r["summary"]["pass"] + r["summary"]["informative"])' "$work/qs/rcm/results.json" 2>/dev/null)
set -- $m
[ -n "$m" ] && [ "$1" -gt 0 ] && [ "$1" = "$2" ] && grep -qF "file://$work/qs/rcm/report.html" "$work/log" \
  && ok "the congestion management cases ran again with --rcm and passed ($1 case runs)" || bad "RCM pass: '$m'"
# A PASS against the clean soft DUT lists no issue: the warnings a case
# provokes on purpose (MW-INV-REFUSE-001's refused invalidations) are that
# case's evidence, named under the issues, not DUT issues.
grep -q 'id="no-issues"' "$work/qs/report.html" && ! grep -q 'id="issue-warnings"' "$work/qs/report.html" \
  && ok "report.html: no issues observed against the clean soft DUT" \
  || bad "report.html lists issues against the clean soft DUT"
# The charts: congestion in rcm/report.html, the load step and the timers
# in report.html, each SVG well-formed, and their series in results.json.
/usr/bin/python3 - "$work/qs" <<'PY' && ok "the reports hold the charts, results.json their series" || bad "charts"
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
def charts(path):
    out = []
    for m in re.finditer(r'<figure class="chart ([\w-]+)"[^>]*><figcaption[^>]*>(.*?)</figcaption>\n(<svg.*?</svg>)',
                         open(path).read(), re.S):
        ET.fromstring(m.group(3))
        out.append((m.group(1), m.group(2)))
    return out
def has(cs, cls, cap):
    assert any(k == cls and c.startswith(cap) for k, c in cs), "no %s chart for %s" % (cls, cap)
rcm, main = charts(d + "/rcm/report.html"), charts(d + "/report.html")
for ipv in (4, 6):
    has(rcm, "congestion-rate", "CONG-RATE-CUT-001 [IPv%d]" % ipv)
    has(rcm, "congestion-rate", "CONG-RATE-RECOVERY-001 [IPv%d]" % ipv)
    has(rcm, "congestion-np", "CONG-CNP-PACING-001 [IPv%d]" % ipv)
    has(main, "load-throughput", "RC-RESP-LOAD-GBN-001 [IPv%d]" % ipv)
    has(main, "load-latency", "RC-RESP-LOAD-GBN-001 [IPv%d]" % ipv)
for cid in ("RC-REQ-TIMEOUT-001", "RC-REQ-RNR-WAIT-001", "RC-REQ-RETRY-EXC-001"):
    has(main, "timers", cid)
for f in ("/results.json", "/rcm/results.json"):
    assert all("series" in c for c in json.load(open(d + f))["cases"]), f + ": a case without series"
cut = [c for c in json.load(open(d + "/rcm/results.json"))["cases"] if c["id"] == "CONG-RATE-CUT-001"]
assert len(cut) == 2 and all(c["series"]["congestion"]["rate"] for c in cut), "no rate series for the rate cut"
PY
"$src/scripts/quickstart" --build-dir "$build" --no-setup --out "$work/fault" --fault seq-nak-wrong-psn \
  --cases "$src/conformance-cases/rc-responder/psn-sequence-nak.case" >"$work/flog" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'id="overall">FAIL<' "$work/fault/report.html" && grep -q 'id="fault-warning"' "$work/fault/report.html" \
  && ok "--fault: exit 0, the report fails and names the fault" || { bad "--fault: exit $rc"; cat "$work/flog"; }
"$src/scripts/quickstart" --build-dir "$build" --no-setup --out "$work/x" --fault no-such-fault >"$work/xlog" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "go-back-0" "$work/xlog" && ok "a wrong profile: exit 2 and the list" || { bad "wrong profile: exit $rc"; cat "$work/xlog"; }
[ $fails -eq 0 ] && echo "quickstart: all passed"
exit $fails
