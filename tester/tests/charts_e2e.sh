#!/bin/sh
# The report's charts and the series behind them, from real runs against
# the soft DUT with congestion management (tests/rcm-agent-args), each run
# in its own namespaces through scripts/netns-pair:
#   - clean: the rate cut, CNP pacing, go-back-N under load, the local ACK
#     timeout and the RNR wait; every series checked against the run's own
#     packets and symbols, every chart parsed as XML and checked against
#     its series (check_report_charts.py);
#   - ignore-cnp: the rate cut against a DUT that ignores CNPs: the case
#     fails, its series says the check does not hold, its chart draws the
#     bound as broken;
#   - report --compare -o DIR: compare.html charts the rule the DUT now
#     breaks and the rate during the CNPs that moved;
#   - both results files validate, and `report` rebuilds the charts byte
#     for byte from results.json.
# usage: charts_e2e.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER CASES-DIR TESTS-DIR
set -u
netns=$1 agent=$2 t=$3 cases=$4 dir=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
rcm=$(grep -v '^#' "$dir/rcm-agent-args" | sed 's/^/--agent-arg /' | tr '\n' ' ')

run() { # name, expected exit, extra agent arguments, case files...
  name=$1 want=$2 extra=$3
  shift 3
  # shellcheck disable=SC2086 # the agent arguments are words
  "$netns" --mtu 9000 --agent "$agent" $rcm $extra --timeout 300 -- sh -c \
    "\"$t\" run -q --iface \"\$ROCE_IF_TESTER\" --agent \"\$ROCE_AGENT\" --token-file \"\$ROCE_TOKEN_FILE\" \
      --report-dir \"$work/$name\" $*" >"$work/$name.log" 2>&1
  rc=$?
  [ $rc -eq 77 ] && { cat "$work/$name.log"; exit 77; }
  if [ $rc -eq "$want" ]; then ok "$name: run exit $rc"; else bad "$name: run exit $rc, expected $want"; cat "$work/$name.log"; fi
}
run clean 0 "" "$cases/congestion/rate-cut.case" "$cases/congestion/cnp-pacing.case" "$cases/congestion/cnp-invalid.case" \
  "$cases/rc-responder/load-go-back-n.case" "$cases/rc-requester/ack-timeout.case" "$cases/rc-requester/rnr-wait.case"
run ignore-cnp 1 "--agent-arg --fault --agent-arg ignore-cnp" "$cases/congestion/rate-cut.case"

for name in clean ignore-cnp; do
  /usr/bin/python3 "$dir/check_report_charts.py" "$work/$name" "$name" && ok "$name: series and charts" \
    || bad "$name: series and charts"
  "$t" report -q -o "$work/$name.again" "$work/$name" && cmp -s "$work/$name/report.html" "$work/$name.again/report.html" \
    && ok "$name: report rebuilds the charts byte for byte" || bad "$name: the rebuilt report.html differs"
done
"$t" report --compare -q -o "$work/cmp" "$work/clean" "$work/ignore-cnp" >"$work/cmp.log" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "report --compare: the regression (exit 1)" || { bad "report --compare exit $rc, expected 1"; cat "$work/cmp.log"; }
/usr/bin/python3 "$dir/check_report_charts.py" "$work/cmp" compare && ok "compare.html: verdict changes and values moved" \
  || bad "compare.html"
/usr/bin/python3 "$dir/validate_results.py" "$dir/../../docs/results.schema.json" "$work"/clean/results.json \
  "$work"/ignore-cnp/results.json
case $? in
  0) ok "results.json validates, series included" ;;
  77) echo "skip: results.json not validated (python3-jsonschema missing)" ;;
  *) bad "results.json does not validate" ;;
esac
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "charts_e2e: all ok"
