#!/bin/sh
# rxe_fuzz: roce-tester fuzz against rxe, a fixed seed for a fixed time,
# on every kernel docs/rxe-results.md records (or those ROCE_RXE_SUITES
# names, as for rxe_suite: tests/rxe/run_kernels.sh), each from the kernel
# cache, one VM at a time. Each run's findings must be ones docs/fuzz.md
# records as known rxe deviations on that kernel, and the guest's whole
# kernel log (dmesg, taken once the agent has stopped) must hold no
# warning, oops or stall (tests/rxe/rxe_fuzz.py). Results stay in
# OUT-ROOT/COLUMN (results.json, cases/, report.html, serial.log).
#
# Exit: 0 when every kernel that ran passed, 1 when one did not, 77 when
# none could run.
# usage: fuzz_kernels.sh RUN-WITH-RXE ROCE-TESTER ROCE-AGENT RXE-RESULTS.md FUZZ.md OUT-ROOT
set -u
run=$1 tester=$2 agent=$3 doc=$4 fuzzdoc=$5 root=$6
seed=${ROCE_RXE_FUZZ_SEED:-34} secs=${ROCE_RXE_FUZZ_SECONDS:-30}
here=$(cd "$(dirname "$0")" && pwd)
fetch=$(dirname "$run")/fetch-kernel
/usr/bin/python3 "$here/rxe_fuzz.py" known "$fuzzdoc" "$doc" || exit 1
kernels=$(/usr/bin/python3 "$here/rxe_results.py" kernels "$doc") || exit 1
want=${ROCE_RXE_SUITES:-}
ran=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$kernels" >"$tmp/list"
if [ -n "$want" ]; then
  for w in $want; do
    awk -v w="$w" '$1 == w || $2 == w { found = 1 } END { exit !found }' "$tmp/list" ||
      { echo "rxe_fuzz: ROCE_RXE_SUITES names '$w', which $doc does not record"; exit 1; }
  done
fi
while read -r col suite release; do
  [ -n "$col" ] || continue
  if [ -n "$want" ] && ! printf ' %s ' "$want" | grep -qe " $col " -e " $suite "; then
    continue
  fi
  kdir=$(ROCE_RXE_KERNEL_OFFLINE=1 "$fetch" --suite "$suite" 2>"$tmp/why")
  if [ $? -ne 0 ]; then
    echo "rxe_fuzz: SKIP: $col ($suite, $release): $(sed 's/^fetch-kernel: //; s/^SKIP: //' "$tmp/why" | tail -1)"
    skipped=$((skipped + 1))
    continue
  fi
  out=$root/$col
  rm -rf "$out"
  mkdir -p "$out"
  echo "rxe_fuzz: $col ($suite, $(cat "$kdir/release")): seed $seed, $secs s"
  start=$(date +%s)
  # The whole kernel log (--kernel-log) comes to the console once the
  # agent has stopped; the console is kept (--serial-log).
  "$run" --kernel-suite "$suite" --offline --agent "$agent" --kernel-log --serial-log "$out/serial.log" \
    --timeout 150 -- "$here/fuzz_run.sh" "$tester" "$out" "$seed" "$secs"
  st=$?
  [ $st -eq 77 ] && { echo "rxe_fuzz: SKIP: $col ($suite): the VM cannot run here"; skipped=$((skipped + 1)); continue; }
  ran=$((ran + 1))
  # The run completed when roce-tester fuzz did (fuzz_run.sh wrote its
  # status); the harness failing after it (the agent did not stop: the
  # guest crashed) is judged with the findings.
  fexit=$(cat "$out/fuzz-exit" 2>/dev/null)
  case $fexit in
    0 | 1) ;;
    *)
      echo "rxe_fuzz: FAIL $col ($suite): the run did not complete (roce-tester fuzz: ${fexit:-none}, harness: $st)"
      failed=$((failed + 1))
      continue
      ;;
  esac
  died=
  [ $st -eq 0 ] || died=--guest-died
  /usr/bin/python3 "$here/rxe_fuzz.py" check "$out/results.json" "$out/serial.log" "$fuzzdoc" "$doc" --kernel "$col" $died ||
    { echo "rxe_fuzz: FAIL $col ($suite)"; failed=$((failed + 1)); }
  echo "rxe_fuzz: $col took $(($(date +%s) - start)) s, boot included"
done <"$tmp/list"
echo "rxe_fuzz: $ran kernel(s) ran, $failed failed, $skipped skipped"
[ $ran -gt 0 ] || exit 77
[ $failed -eq 0 ]
