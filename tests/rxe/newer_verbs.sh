#!/bin/sh
# The verbs this machine's rdma-core lacks (FLUSH: ibv_wr_flush, rdma-core
# 45 and later; Debian 12 has 44), built against a newer Debian suite's
# rdma-core and run against rxe on that suite's kernel:
#  1. the ibverbs backend check in the guest, whose FLUSH checks are
#     compiled only against such a library (they must have run);
#  2. the agent built the same way, as the DUT of a case in which it posts
#     FLUSH and ATOMIC WRITE, captured: rxe's own FLUSH on the wire. On the
#     kernels docs/rxe-results.md records, its ICRC covers the headers
#     twice (R13), which libroce names (headers-twice); its ATOMIC WRITE's
#     ICRC is right. In the same run, the suite's requester cases of both
#     (conformance-cases/placement/*-requester*.case), whose FLUSH the
#     suite's own run cannot post (the host's rdma-core 44): each FLUSH
#     case fails under CA17-22 alone, its completion not reached, and the
#     ATOMIC WRITE case passes, as docs/rxe-results.md says
#     (newer_verbs_check.py). On every kernel with FLUSH.
#
# usage: newer_verbs.sh RUN-WITH-RXE SOURCE-DIR WORK-DIR ROCE-TESTER CMAKE-ARGS...
#   ROCE_RXE_USERLAND_SUITE  the suite whose rdma-core, and whose kernel the
#                            backend check boots (default trixie)
#   ROCE_RXE_FLUSH_KERNELS   the suites whose kernels part 2 boots, each with
#                            that user space (default "trixie sid": the
#                            kernels with FLUSH docs/rxe-results.md records)
# Exit 77 (skipped, with the reason) when the VM or the suite cannot be had.
set -eu
run=$1 src=$2 work=$3 tester=$4
shift 4
suite=${ROCE_RXE_USERLAND_SUITE:-trixie}
say() { echo "newer_verbs: $*"; }

st=0
root=$("$src/scripts/rxe-vm/fetch-userland" --suite "$suite") || st=$?
[ $st -eq 0 ] || exit $st
say "rdma-core $(cat "$root/rdma-core-version") of $suite, in $root"

# The agent and the backend check against it (CMake says whether FLUSH
# is there: ROCE_AGENT_HAVE_IBV_FLUSH).
build=$work/build
mkdir -p "$build"
cmake -S "$src" -B "$build" -DROCE_IBVERBS_ROOT="$root" -DROCE_BUILD_BENCH=OFF "$@" >"$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log"; say "configure failed"; exit 1; }
grep -q "ROCE_AGENT_HAVE_IBV_FLUSH - Success" "$build/CMakeFiles/CMakeOutput.log" "$work/configure.log" 2>/dev/null ||
  grep -q "^ROCE_AGENT_HAVE_IBV_FLUSH:INTERNAL=1" "$build/CMakeCache.txt" ||
  { say "rdma-core $(cat "$root/rdma-core-version") has no ibv_wr_flush for this build"; exit 1; }
cmake --build "$build" -j2 --target roce-agent rxe-ibverbs-backend-check >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; say "build failed"; exit 1; }

# 1. The backend check.
st=0
"$run" --kernel-suite "$suite" --offline --userland "$root" \
  --guest-check "$build/tests/rxe/rxe-ibverbs-backend-check" >"$work/check.log" 2>&1 || st=$?
[ $st -ne 77 ] || { cat "$work/check.log"; exit 77; }
grep -E '^(ok|FAIL)' "$work/check.log" | grep -i flush
[ $st -eq 0 ] || { tail -40 "$work/check.log"; say "the backend check failed on $suite's kernel"; exit 1; }
grep -q '^ok: FLUSH posted through ibv_wr_flush' "$work/check.log" ||
  { say "the FLUSH checks did not run (the device reports no FLUSH?)"; exit 1; }

# 2. rxe's own FLUSH on the wire, and the suite's requester cases, on each
# kernel with FLUSH. The statement case's 100 ms windows are the soft
# DUT's; a guest under TCG on a loaded host can take longer (7.2 did).
sed 's/within 100ms/within 2s/' "$src/tester/tests/services/placement-dut.case" >"$work/placement-dut.case"
ran= skipped=
for k in ${ROCE_RXE_FLUSH_KERNELS:-trixie sid}; do
  out=$work/wire-$k
  rm -rf "$out"
  st=0
  "$run" --kernel-suite "$k" --offline --mtu 9000 --userland "$root" --agent "$build/agent/roce-agent" -- \
    sh -c 't=$1 d=$2; shift 2; "$t" run --iface "$ROCE_RXE_IFACE" --agent "$ROCE_RXE_AGENT" \
      --token-file "$ROCE_RXE_TOKEN_FILE" --report-dir "$d" "$@"; echo "kernel $ROCE_RXE_KERNEL_RELEASE" >"$d/kernel"' \
    sh "$tester" "$out" "$work/placement-dut.case" "$src"/conformance-cases/placement/*-requester*.case \
    >"$work/wire-$k.log" 2>&1 || st=$?
  if [ $st -eq 77 ]; then
    say "SKIP $k's kernel: $(tail -1 "$work/wire-$k.log")"
    skipped="$skipped $k"
    continue
  fi
  [ -f "$out/capture.pcapng" ] && [ -f "$out/results.json" ] ||
    { tail -40 "$work/wire-$k.log"; say "no capture or results on $k's kernel"; exit 1; }
  "$tester" lint "$out/capture.pcapng" >"$out/lint.txt" 2>&1 || true
  ran="$ran $out"
done
[ -n "$ran" ] || { say "no kernel with FLUSH could be booted:$skipped"; exit 77; }
[ -z "$skipped" ] || say "not run on$skipped (not cached: scripts/rxe-vm/fetch-kernel --suite SUITE)"
# shellcheck disable=SC2086
exec /usr/bin/python3 "$src/tests/rxe/newer_verbs_check.py" $ran
