#!/bin/sh
# rxe_suite: the suite's subset against rxe on every kernel
# docs/rxe-results.md records (one VM at a time), each from the kernel
# cache (scripts/rxe-vm/fetch-kernel fills it; ./scripts/test does before
# the tests). A kernel that is not cached is skipped with the reason
# printed ("rxe_suite: SKIP: COLUMN ..."; ./scripts/test --full fails on
# such a skip unless ROCE_ALLOW_SKIP names it). A cached build of a kernel
# line other than the one recorded (the archive moved on) runs, and is
# judged against its line's column, with a note.
#
#   ROCE_RXE_SUITES   the kernels to run, by column or suite ("6.1",
#                     "bookworm sid"); default: all. The contributor tier
#                     runs one.
#
# Exit: 0 when every kernel that ran matched, 1 when one did not, 77 when
# none could run.
# usage: run_kernels.sh RUN-WITH-RXE ROCE-TESTER ROCE-AGENT CASES-DIR DOC SUBSET-FILE
set -u
run=$1 tester=$2 agent=$3 cases=$4 doc=$5 subset=$6
here=$(cd "$(dirname "$0")" && pwd)
fetch=$(dirname "$run")/fetch-kernel
kernels=$(/usr/bin/python3 "$here/rxe_results.py" kernels "$doc") || exit 1
want=${ROCE_RXE_SUITES:-}
ran=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$kernels" >"$tmp/list"
if [ -n "$want" ]; then
  for w in $want; do
    awk -v w="$w" '$1 == w || $2 == w { found = 1 } END { exit !found }' "$tmp/list" ||
      { echo "rxe_suite: ROCE_RXE_SUITES names '$w', which $doc does not record (it has: $(awk '{ printf "%s (%s) ", $1, $2 }' "$tmp/list"))"; exit 1; }
  done
fi
while read -r col suite release; do
  [ -n "$col" ] || continue
  if [ -n "$want" ] && ! printf ' %s ' "$want" | grep -qe " $col " -e " $suite "; then
    continue
  fi
  # fetch-kernel --offline: the suite's cached kernel, never a download.
  kdir=$(ROCE_RXE_KERNEL_OFFLINE=1 "$fetch" --suite "$suite" 2>"$tmp/why")
  st=$?
  if [ $st -ne 0 ]; then
    echo "rxe_suite: SKIP: $col ($suite, $release): $(sed 's/^fetch-kernel: //; s/^SKIP: //' "$tmp/why" | tail -1)"
    skipped=$((skipped + 1))
    continue
  fi
  have=$(cat "$kdir/release")
  [ "$have" = "$release" ] ||
    echo "rxe_suite: note: $col ($suite): the cache holds $have, the document records $release" \
      "(scripts/rxe-vm/suite-results --update --kernel-suite $suite records the new one)"
  echo "rxe_suite: $col ($suite, $have)"
  "$run" --kernel-suite "$suite" --offline --mtu 9000 --agent "$agent" --timeout 300 -- \
    "$here/run_suite.sh" "$tester" "$cases" "$doc" "$subset"
  st=$?
  [ $st -eq 77 ] && { echo "rxe_suite: SKIP: $col ($suite): the VM cannot run here"; skipped=$((skipped + 1)); continue; }
  ran=$((ran + 1))
  [ $st -eq 0 ] || { echo "rxe_suite: FAIL $col ($suite, $have)"; failed=$((failed + 1)); }
done <"$tmp/list"
echo "rxe_suite: $ran kernel(s) ran, $failed failed, $skipped skipped"
[ $ran -gt 0 ] || exit 77
[ $failed -eq 0 ]
