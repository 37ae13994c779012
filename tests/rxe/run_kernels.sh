#!/bin/sh
# rxe_suite: the suite's subset against rxe on every kernel
# docs/rxe-results.md records (one VM at a time), each from the kernel
# cache only: a kernel that is not cached, or whose cached release is not
# the one the document records, is skipped with the reason printed.
# Exit: 0 when every kernel that ran matched, 1 when one did not, 77 when
# none could run.
# usage: run_kernels.sh RUN-WITH-RXE ROCE-TESTER ROCE-AGENT CASES-DIR DOC SUBSET-FILE
set -u
run=$1 tester=$2 agent=$3 cases=$4 doc=$5 subset=$6
here=$(cd "$(dirname "$0")" && pwd)
fetch=$(dirname "$run")/fetch-kernel
kernels=$(/usr/bin/python3 "$here/rxe_results.py" kernels "$doc") || exit 1
ran=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$kernels" >"$tmp/list"
while read -r col suite release; do
  [ -n "$col" ] || continue
  # fetch-kernel --offline: the suite's cached kernel, never a download.
  kdir=$(ROCE_RXE_KERNEL_OFFLINE=1 "$fetch" --suite "$suite" 2>"$tmp/why")
  st=$?
  if [ $st -ne 0 ]; then
    echo "rxe_suite: SKIP: $col ($suite, $release): $(sed 's/^fetch-kernel: //; s/^SKIP: //' "$tmp/why" | tail -1)"
    skipped=$((skipped + 1))
    continue
  fi
  have=$(cat "$kdir/release")
  if [ "$have" != "$release" ]; then
    echo "rxe_suite: SKIP: $col ($suite): the cache holds $have, the document records $release" \
      "(scripts/rxe-vm/suite-results --update --kernel-suite $suite records the new one)"
    skipped=$((skipped + 1))
    continue
  fi
  echo "rxe_suite: $col ($suite, $release)"
  "$run" --kernel-suite "$suite" --offline --mtu 9000 --agent "$agent" --timeout 300 -- \
    "$here/run_suite.sh" "$tester" "$cases" "$doc" "$subset"
  st=$?
  [ $st -eq 77 ] && { echo "rxe_suite: SKIP: $col ($suite): the VM cannot run here"; skipped=$((skipped + 1)); continue; }
  ran=$((ran + 1))
  [ $st -eq 0 ] || { echo "rxe_suite: FAIL $col ($suite, $release)"; failed=$((failed + 1)); }
done <"$tmp/list"
echo "rxe_suite: $ran kernel(s) ran, $failed failed, $skipped skipped"
[ $ran -gt 0 ] || exit 77
[ $failed -eq 0 ]
