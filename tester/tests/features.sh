#!/bin/sh
# Runs inside scripts/netns-pair (tester namespace, soft DUT agent running):
# the runner's features that the conformance cases rely on, each shown on
# a small case (tester/tests/cases/features, and features-rcm against a
# soft DUT with congestion management) whose verdict and record
# features_check.py checks.
# usage: features.sh ROCE-TESTER CASES-DIR CHECK-RESULTS
set -u
t=$1 cases=$2 check=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$t" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$out" \
  --ip 4 "$cases" >"$out/log" 2>&1
rc=$?
cat "$out/log"
/usr/bin/python3 "$check" "$out/results.json" "$out/capture.pcapng" --complete || exit 1
exec /usr/bin/python3 "$(dirname "$0")/features_check.py" "$out/results.json" "$out/log" "$rc"
