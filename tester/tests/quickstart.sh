#!/bin/sh
# ./scripts/quickstart with the binaries of this build: the whole suite
# against the fault-free soft DUT (and the congestion management cases
# against it with --rcm) leaves the four files and says where they are and
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
