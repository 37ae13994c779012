#!/bin/sh
# Runs inside scripts/rxe-vm/run-with-rxe (the agent in the guest):
# roce-tester fuzz against rxe for a fixed time and seed, watching the
# guest's console as it goes (--console-log: a kernel error, oops or stall
# is a hang finding at once). Its findings are judged afterwards, with the
# whole kernel log, by rxe_fuzz.py (tests/rxe/fuzz_kernels.sh).
# usage: fuzz_run.sh ROCE-TESTER OUT-DIR SEED SECONDS
# Exit: 0 when the run completed (with findings or none), 1 when it did not.
set -u
t=$1 out=$2 seed=$3 secs=$4
echo "fuzz_run: rxe on Linux ${ROCE_RXE_KERNEL_RELEASE:?fuzz_run.sh runs under scripts/rxe-vm/run-with-rxe}"
# --reduce-time and --max-findings bound the confirming, reducing and
# replaying after the fuzzing: a run stays within about a minute.
"$t" fuzz --iface "$ROCE_RXE_IFACE" --agent "$ROCE_RXE_AGENT" --token-file "$ROCE_RXE_TOKEN_FILE" \
  --console-log "$ROCE_RXE_SERIAL_LOG" --duration "$secs" --seed "$seed" --reduce-time 30 --max-findings 8 \
  -o "$out"
rc=$?
echo "$rc" >"$out/fuzz-exit"
case $rc in
  0 | 1) exit 0 ;; # no finding, or findings: rxe_fuzz.py judges them
  *) echo "fuzz_run: roce-tester fuzz exited $rc"; exit 1 ;;
esac
