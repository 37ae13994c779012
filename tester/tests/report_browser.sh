#!/bin/sh
# The HTML report in headless Chromium on synthetic results (every verdict,
# hostile text, a ladder long enough to be drawn in part, an interrupted
# run with no case): see report_browser.py for what is checked. Screenshots
# stay in ARTIFACT-DIR.
# usage: report_browser.sh ROCE-TESTER TESTS-DIR ARTIFACT-DIR
set -u
t=$1 dir=$2 art=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in hostile empty variant; do
  /usr/bin/python3 "$dir/make_results.py" $k "$tmp/$k" && "$t" report -q "$tmp/$k" || exit 1
done
exec /usr/bin/python3 "$dir/report_browser.py" "$art" "$tmp/hostile" "$tmp/empty" "$tmp/variant"
